"""The game's story so far, one plain sentence per event, newest at the bottom."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text
from textual.events import Resize
from textual.theme import Theme
from textual.widgets import RichLog

from aton.players import PLAYERS

from ..narrate import player_name

#: the players are named with a capital (square kinds are not: "a blue square")
_SEAT_WORDS = {seat: re.compile(rf"\b{player_name(seat)}\b") for seat in PLAYERS}


class GameLog(RichLog, can_focus=False):
    """The lines are kept as text, and drawn again in the new theme's colours when it changes
    and wrapped again when the width changes (a RichLog keeps the lines as it has drawn them,
    colours, width and all)."""

    COMPONENT_CLASSES = {"log--red", "log--blue", "log--round", "log--note"}

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, min_width=20, **kwargs)
        self.story: list[tuple[bool, str]] = []  # (a note of the client's own?, the line), oldest first
        self.drawn_width: int | None = None  # the width every line is wrapped at (None: not all at one)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def add(self, lines: Iterable[str]) -> None:
        for line in lines:
            self._tell(False, line)

    def note(self, line: str) -> None:
        """A line from the client itself (not an event), e.g. a connection notice."""
        self._tell(True, line)

    def _tell(self, note: bool, line: str) -> None:
        self.story.append((note, line))
        self.write(self._styled(note, line))
        if self.scrollable_content_region.width != self.drawn_width:
            self.drawn_width = None  # written at another width (or none, folded away): to be drawn again

    def on_resize(self, _: Resize) -> None:
        width = self.scrollable_content_region.width
        if width and width != self.drawn_width:  # (no width: folded away, or not laid out yet)
            self._redraw()
            self.drawn_width = width

    def _theme_changed(self, _: Theme) -> None:
        self._redraw()

    def _redraw(self) -> None:
        """Every line again, at the width and in the colours of now."""
        self.clear()
        for note, line in self.story:
            self.write(self._styled(note, line))

    def _styled(self, note: bool, line: str) -> Text:
        if note:
            return Text(line, self.get_component_rich_style("log--note"))
        if line.startswith("──"):
            return Text(line, self.get_component_rich_style("log--round"))
        text = Text(line)
        for seat, pattern in _SEAT_WORDS.items():
            text.highlight_regex(pattern, self.get_component_rich_style(f"log--{seat}"))
        return text
