"""One game's result, as a tournament counts it, whichever game was played.

Colours are counted by their number, 0 for red and 1 for blue, as both engines number them
(``aton.players.Player`` and ``atlas_zeus.players.Player`` are IntEnums with those values),
so that the tournament's counting (``bots.tournament``) serves every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

__all__ = ["GameResult"]


@dataclass
class GameResult:
    seed: int
    winner: IntEnum | None  # the winner's colour (0 red, 1 blue); None: a draw
    termination: StrEnum  # the game's own Termination
    rounds: int
    scores: tuple[int, int]  # per colour: Aton's points, Atlas & Zeus's people alive
    decisions: tuple[int, int]  # per colour
    think_s: tuple[float, float]  # time spent in each bot, per colour
    elapsed_s: float
