"""The two players: red (the priests of Amun) and blue (the priests of Aton)."""

from __future__ import annotations

from enum import IntEnum


class Player(IntEnum):
    RED = 0
    BLUE = 1

    @property
    def other(self) -> "Player":
        return PLAYERS[1 - self]

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, name: str) -> "Player":
        """'red' or 'blue' (any case) to a Player; ValueError otherwise."""
        try:
            return cls[name.upper()]
        except (KeyError, AttributeError):
            raise ValueError(f"expected 'red' or 'blue', got {name!r}") from None


RED, BLUE = Player.RED, Player.BLUE
#: Players by index, so that hot code can keep plain ints and convert on the way out.
PLAYERS: tuple[Player, Player] = (RED, BLUE)
