"""The score track from 0 to 40, one line per player, each with its marker."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from aton.game import WINNING_SCORE
from aton.players import PLAYERS, Player

from ..narrate import player_name
from .symbols import SEAT_SYMBOL

LABEL_WIDTH = 12


class ScoreTrack(Widget):
    COMPONENT_CLASSES = {"track--red", "track--blue", "track--rest", "track--tick", "track--goal"}

    scores: reactive[tuple[int, int]] = reactive((0, 0))

    def render(self) -> Text:
        length = max(11, min(2 * WINNING_SCORE + 1, self.size.width - LABEL_WIDTH - 4))
        lines = [self._line(seat, score, length) for seat, score in zip(PLAYERS, self.scores, strict=True)]
        return Text("\n").join(lines)

    def _line(self, seat: Player, score: int, length: int) -> Text:
        own = self.get_component_rich_style(f"track--{seat}")
        rest = self.get_component_rich_style("track--rest")
        tick = self.get_component_rich_style("track--tick")
        line = Text()
        line.append(f"{SEAT_SYMBOL[seat]} {player_name(seat):<5}{score:>3} ", own)
        at = round(min(score, WINNING_SCORE) * (length - 1) / WINNING_SCORE)
        tick_every = (length - 1) / 4
        for column in range(length):
            if column < at:
                line.append("━", own)
            elif column == at:
                line.append(SEAT_SYMBOL[seat], own)
            elif any(column == round(tick_every * k) for k in (1, 2, 3)):
                line.append("┊", tick)
            else:
                line.append("─", rest)
        goal = "★" if score >= WINNING_SCORE else " "
        line.append(f" {WINNING_SCORE}{goal}", self.get_component_rich_style("track--goal"))
        return line
