"""The two clans, red and blue, and their people.

``Player`` names a clan in Python code; "red" and "blue" (``str(player)``, ``Player.parse``)
are its form on the wire and in records.  People are strings: ``"R1"``…``"R8"`` and
``"B1"``…``"B8"`` — 1 the high priest (strength 40), 2–4 the lords (30), 5–8 the soldiers (20).
"""

from __future__ import annotations

from enum import IntEnum
from typing import TypeGuard


class Player(IntEnum):
    RED = 0
    BLUE = 1

    #: The opponent (set on each member below).
    other: Player
    #: "red" or "blue".
    wire_name: str
    #: The first letter of this clan's people: "R" or "B".
    letter: str

    def __str__(self) -> str:
        return self.wire_name

    def __bool__(self) -> bool:
        """Always true: ``if player:`` tests for a player, not for red."""
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
RED.wire_name, BLUE.wire_name = "red", "blue"
RED.letter, BLUE.letter = "R", "B"
#: Both players, red first (also the drawing order, §11.18).
PLAYERS: tuple[Player, Player] = (RED, BLUE)

#: People per clan.
CLAN_SIZE = 8
#: Strength by rank number 1..8: the high priest, three lords, four soldiers.
_STRENGTHS = (40, 30, 30, 30, 20, 20, 20, 20)
#: All sixteen people, red's first, each clan by rank.
PEOPLE: tuple[str, ...] = tuple(f"{p.letter}{n}" for p in PLAYERS for n in range(1, CLAN_SIZE + 1))
_OWNERS = {person: p for p in PLAYERS for person in PEOPLE if person[0] == p.letter}
_STRENGTH = {person: _STRENGTHS[int(person[1:]) - 1] for person in PEOPLE}


def is_person(name: object) -> TypeGuard[str]:
    """Whether ``name`` is one of the sixteen person ids."""
    return isinstance(name, str) and name in _OWNERS


def owner_of(person: str) -> Player:
    """The clan of a person ("R4" → red); KeyError for a name that is not a person."""
    return _OWNERS[person]


def strength_of(person: str) -> int:
    """A person's printed strength: 40, 30 or 20."""
    return _STRENGTH[person]


def people_of(player: Player) -> tuple[str, ...]:
    """A clan's eight people, by rank."""
    start = player * CLAN_SIZE
    return PEOPLE[start:start + CLAN_SIZE]


def name_of(player: Player | None) -> str | None:
    """"red", "blue" or None (nobody)."""
    return None if player is None else str(player)
