"""How a game ended: ``Outcome(termination, winner)``, with Aton's wire shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .players import Player


class Termination(StrEnum):
    """Why the game ended: by the rules (the first three) or by a player giving up."""

    ELIMINATED = "eliminated"  #: one clan has no people left; the other wins
    BOTH_ELIMINATED = "both_eliminated"  #: both clans died at the same check: a draw
    ROUND_LIMIT = "round_limit"  #: ``Options.max_rounds`` passed: a draw, and a bug to flag
    RESIGN = "resign"
    TIME = "time"
    ABANDONED = "abandoned"

    @property
    def is_forfeit(self) -> bool:
        """A player gave the game up: the other one wins."""
        return self in FORFEITS

    @property
    def is_arbiter_decided(self) -> bool:
        """No move ended the game: the arbiter did (time, abandoning)."""
        return self in ARBITER_DECIDED


FORFEITS = frozenset({Termination.RESIGN, Termination.TIME, Termination.ABANDONED})
ARBITER_DECIDED = frozenset({Termination.TIME, Termination.ABANDONED})
#: The wire's word for "nobody won".
DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: why it ended and who won (None: a draw)."""

    termination: Termination
    winner: Player | None

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def to_dict(self) -> dict[str, str]:
        """``{"winner": "red" | "blue" | "draw", "reason": termination}``."""
        return {"winner": DRAW if self.winner is None else str(self.winner), "reason": self.termination.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Outcome:
        """The inverse of ``to_dict``; ValueError names what is wrong."""
        winner, reason = data.get("winner"), data.get("reason")
        termination = next((t for t in Termination if t.value == reason), None)
        if termination is None:
            raise ValueError(f"unknown reason {reason!r}")
        return cls(termination, None if winner == DRAW else Player.parse(winner))
