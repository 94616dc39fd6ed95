"""One setting with a few options on one line: ←/→ or a click picks one."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.reactive import reactive
from textual.widget import Widget


class ChoiceRow(Widget, can_focus=True):
    COMPONENT_CLASSES = {"choice--label", "choice--option", "choice--chosen"}
    BINDINGS = [
        Binding("left,h", "step(-1)", "Previous", show=False),
        Binding("right,l", "step(1)", "Next", show=False),
    ]

    index: reactive[int] = reactive(0)

    def __init__(self, label: str, options: tuple[str, ...], value: str, shown: tuple[str, ...] | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.label = label
        self.options = options
        self.shown = shown or options  # how each option is written
        self.index = options.index(value)

    @property
    def value(self) -> str:
        return self.options[self.index]

    def action_step(self, step: int) -> None:
        self.index = (self.index + step) % len(self.options)

    def _label_width(self) -> int:
        return len(self.label) + 2

    def render(self) -> Text:
        line = Text(self.label.ljust(self._label_width()), self.get_component_rich_style("choice--label"))
        for i, option in enumerate(self.shown):
            style = "choice--chosen" if i == self.index else "choice--option"
            line.append(f" {option} ", self.get_component_rich_style(style))
            line.append(" ")
        return line

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        x = self._label_width()
        for i, option in enumerate(self.shown):
            if at is not None and x <= at.x < x + len(option) + 2:
                self.index = i
                return
            x += len(option) + 3
