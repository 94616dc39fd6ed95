"""How a game ended: ``Outcome(termination, winner)``, as python-chess's ``Board.outcome()``.

``GameState.outcome()`` returns one once the game is over (None before).  The
``Termination`` values are the ``reason`` strings of the wire, the records and
``aton replay --json``, so that a ``Termination`` is written as it always was;
``Outcome.to_dict``/``from_dict`` are the only places that spell a draw "draw".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .players import Player


class Termination(StrEnum):
    """Why the game ended: by the rules (the first six) or by a player giving up (a forfeit)."""

    POINTS = "points"  #: 40 points reached with cartouche 1
    TEMPLE = "temple"  #: one player's stones fill a whole temple
    YELLOW = "yellow"  #: one player's stones cover every yellow square
    GREEN = "green"  #: one player's stones cover every green square
    SCORING = "scoring"  #: a scoring round took a player to 40 points; the higher score wins
    ROUND_LIMIT = "round_limit"  #: the table's last round ended; the higher score wins
    RESIGN = "resign"  #: a player resigned (a move)
    TIME = "time"  #: a player ran out of time too often (decided by the arbiter)
    ABANDONED = "abandoned"  #: a player stayed away past the grace period (decided by the arbiter)

    @property
    def is_forfeit(self) -> bool:
        """A player gave the game up (resigned, ran out of time, left): the other one wins."""
        return self in FORFEITS

    @property
    def is_arbiter_decided(self) -> bool:
        """No move ended the game: the arbiter did (time, abandoning); a record keeps it in
        ``meta.result``, which ``aton.record.replay`` reads."""
        return self in ARBITER_DECIDED


FORFEITS = frozenset({Termination.RESIGN, Termination.TIME, Termination.ABANDONED})
ARBITER_DECIDED = frozenset({Termination.TIME, Termination.ABANDONED})
#: The wire's and the records' word for "nobody won" in a ``winner`` field.
DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: why it ended, and who won (None: a draw)."""

    termination: Termination
    winner: Player | None

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def to_dict(self) -> dict[str, str]:
        """``{"winner": "red" | "blue" | "draw", "reason": termination}`` (views, records, results)."""
        return {"winner": DRAW if self.winner is None else str(self.winner),
                "reason": self.termination.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Outcome:
        """The inverse of ``to_dict``; ValueError names what is wrong."""
        winner, reason = data.get("winner"), data.get("reason")
        termination = next((t for t in Termination if t.value == reason), None)
        if termination is None:
            raise ValueError(f"unknown reason {reason!r}")
        return cls(termination, None if winner == DRAW else Player.parse(winner))
