"""Rule switches: every choice marked *(option)* in docs/rules.md as a named option.

The defaults are the rules this project implements; a table may offer a variant
by passing other values, without touching the engine's structure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Rules:
    #: The second player's cartouches 3 and 4 stay face down until their own turn
    #: (False: both players' C3/C4 are revealed at the start of the first turn).
    hide_second_player_until_turn: bool = True
    #: When the deck runs out during an exchange, reshuffle the discard pile
    #: *without* the four cards just exchanged (False: with them).
    exchange_reshuffle_excludes_hand: bool = True
    #: In a scoring category with equal stones nobody scores (False: both score it).
    scoring_tie_nobody_scores: bool = True
    #: After a scoring round the stones in the Kingdom of the Dead go back to their
    #: owners' supplies (False: they leave the game for good).
    dead_return_to_supply: bool = True
    #: Equal points after a scoring round that ends the game are a draw (False: the
    #: game goes on until the points differ).
    equal_points_draw: bool = True
    #: Safety limit on rounds for self-play; when reached, more points wins.
    max_rounds: int = 200

    def __post_init__(self) -> None:
        for f in fields(self):
            value, expected = getattr(self, f.name), type(f.default)
            if type(value) is not expected:
                raise ValueError(f"{f.name} must be {expected.__name__}, got {value!r}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")

    def to_dict(self) -> dict[str, bool | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """The rules of a plain form (values of any type: checked here)."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        return cls(**data)


DEFAULT_RULES = Rules()
