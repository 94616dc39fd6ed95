"""The game log of a replay: the live game's log, cut into steps, the current one lit.

``StepLog`` is a ``GameLog`` that knows which of its lines tell which step of the
replay.  It writes every step once (again when its width changes, so the lines
wrap to it) and then shows the steps up to the current one, or all of them
(``show``); the current step's lines are lit, and a click on a line posts
``StepLog.Picked`` with its step.  A step may carry a mark (an analysis's verdict on
its move, "?? −21%"), written after its first line in the mark's colour.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from textual.events import Click, Resize
from textual.geometry import Size
from textual.strip import Strip

from .game_log import GameLog
from .step_picked import StepPicked


@dataclass(frozen=True)
class StepMark:
    """A mark after a step's first line: ``text`` in the style of the component class
    ``log--{kind}`` ("inaccuracy", "mistake", "blunder")."""

    kind: str
    text: str


class StepLog(GameLog):
    COMPONENT_CLASSES = GameLog.COMPONENT_CLASSES | {
        "log--current", "log--inaccuracy", "log--mistake", "log--blunder"}

    class Picked(StepPicked):
        """A line of ``step`` was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(auto_scroll=False, **kwargs)  # ``_shown`` brings the current step into sight, not the end
        self.steps: Sequence[Sequence[str]] = ()
        self.ending = ""  # a last note after every step (why the record stops replaying)
        self.marks: Mapping[int, StepMark] = {}  # by step
        self.ends: list[int] = []  # the rendered line after each step's last (a step's lines: ends[i-1]:ends[i])
        self.strips: list[Strip] = []  # every step's lines, rendered at ``width``
        self.width = 0
        self.current = 0
        self.whole = False  # show the steps after the current one too

    def tell(self, steps: Sequence[Sequence[str]], ending: str = "",
             marks: Mapping[int, StepMark] | None = None) -> None:
        """The lines of every step (and a note after them), and the marks of some steps."""
        self.steps, self.ending, self.marks = steps, ending, marks or {}
        self.width = 0
        self._render_steps()

    def show(self, current: int, whole: bool) -> None:
        """Light step ``current``; show the steps up to it, or all of them (``whole``)."""
        self.current, self.whole = current, whole
        self._shown()

    def on_resize(self, _: Resize) -> None:
        self.call_after_refresh(self._render_steps)  # once the log knows its new width

    def _render_steps(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self.width or not self.steps:
            return
        self.width = width
        self.clear()
        self.ends = []
        for step, lines in enumerate(self.steps):
            mark = self.marks.get(step)
            for number, line in enumerate(lines):
                text = self._styled(False, line)
                if mark is not None and number == 0:
                    text.append(f"  {mark.text}", self.get_component_rich_style(f"log--{mark.kind}"))
                self.write(text)
            self.ends.append(len(self.lines))
        if self.ending:
            self.note(self.ending)
        self.strips = list(self.lines)
        self._shown()

    def _redraw(self) -> None:
        """The steps again (the theme or the width changed), marks and all, once laid out."""
        self.width = 0
        self.call_after_refresh(self._render_steps)

    def _shown(self) -> None:
        if not self.ends:
            return
        last_step = self.current == len(self.ends) - 1  # the note after the steps shows with the last
        end = len(self.strips) if self.whole or last_step else self.ends[self.current]
        self.lines = self.strips[:end]
        self.virtual_size = Size(self.virtual_size.width, end)
        lit = self._lit()
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        if lit.start < top or lit.stop > top + height:  # bring the current step into sight
            self.scroll_to(y=max(0, min(lit.start, lit.stop - height)), animate=False, immediate=True)
        self.refresh()

    def _lit(self) -> range:
        """The rendered lines of the current step (none before the steps are rendered)."""
        if not self.ends:
            return range(0)
        return range(self.ends[self.current - 1] if self.current else 0, self.ends[self.current])

    def step_at(self, line: int) -> int | None:
        """The step that rendered line ``line`` tells (None: no step's line)."""
        step = bisect_right(self.ends, line)
        return step if step < len(self.ends) and line < len(self.lines) else None

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        step = None if at is None else self.step_at(at.y + self.scroll_offset.y)
        if step is not None:
            event.stop()
            self.post_message(self.Picked(step))

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.scroll_offset.y + y in self._lit():
            lit = self.get_component_rich_style("log--current", partial=True)
            return Strip(Segment.apply_style(iter(strip), post_style=lit), strip.cell_length)
        return strip
