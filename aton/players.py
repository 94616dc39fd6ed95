"""The two players: red (the priests of Amun) and blue (the priests of Aton).

``Player`` is the one way Python code names a player: the state, its events and
views, the bots and the client all use it.  The strings "red" and "blue" are its
form on the wire and in files (``str(player)`` and ``Player.parse``), nowhere else.
A ``Player`` is also the index of that player's entry in the state's per-player
lists (``state.scores[player]``).
"""

from __future__ import annotations

from enum import IntEnum


class Player(IntEnum):
    RED = 0
    BLUE = 1

    #: The opponent (set on each member below: a plain attribute, cheap in search loops).
    other: Player
    #: Its name on the wire, "red" or "blue" (set on each member below: the server names the
    #: players of every frame it sends, and an enum's ``name`` is a slow property).
    wire_name: str

    def __str__(self) -> str:
        return self.wire_name

    def __bool__(self) -> bool:
        """Always true, as a player's name is: ``if seat:`` tests for a player, not for red."""
        return True

    @classmethod
    def parse(cls, name: object) -> Player:
        """'red' or 'blue' (any case) to a Player; ValueError otherwise."""
        try:
            return cls[name.upper()]  # type: ignore[attr-defined]
        except (KeyError, AttributeError):
            raise ValueError(f"expected 'red' or 'blue', got {name!r}") from None

    @classmethod
    def parse_optional(cls, name: object) -> Player | None:
        """``parse``, with None (nobody) kept as None."""
        return None if name is None else cls.parse(name)


RED, BLUE = Player.RED, Player.BLUE
RED.other, BLUE.other = BLUE, RED
for _player in (RED, BLUE):
    _player.wire_name = _player.name.lower()
del _player
#: Both players, red first.
PLAYERS: tuple[Player, Player] = (RED, BLUE)


def name_of(player: Player | None) -> str | None:
    """The plain form of an optional player: "red", "blue" or None (nobody)."""
    return None if player is None else str(player)
