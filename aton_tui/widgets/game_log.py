"""The game's story so far, one plain sentence per event, newest at the bottom."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text
from textual.widgets import RichLog

from aton.players import PLAYERS

from ..narrate import player_name

#: the players are named with a capital (square kinds are not: "a blue square")
_SEAT_WORDS = {seat: re.compile(rf"\b{player_name(seat)}\b") for seat in PLAYERS}


class GameLog(RichLog, can_focus=False):
    COMPONENT_CLASSES = {"log--red", "log--blue", "log--round", "log--note"}

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, min_width=20, **kwargs)

    def add(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(self._styled(line))

    def note(self, line: str) -> None:
        """A line from the client itself (not an event), e.g. a connection notice."""
        self.write(Text(line, self.get_component_rich_style("log--note")))

    def _styled(self, line: str) -> Text:
        if line.startswith("──"):
            return Text(line, self.get_component_rich_style("log--round"))
        text = Text(line)
        for seat, pattern in _SEAT_WORDS.items():
            text.highlight_regex(pattern, self.get_component_rich_style(f"log--{seat}"))
        return text
