"""Moves: the decisions of §8 as small immutable values, and their plain form.

A move does not name its player: ``GameState.play(player, move)`` does.  Moves are
normalised (a programming sorted by slot, a transfer's steps by person) so that equal
decisions compare equal (§11.13).  ``move_from_dict`` checks a plain move's *shape* only;
whether it is legal is the state's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import Card
from .players import PEOPLE, is_person
from .ring import ISLAND_COUNT, Direction

#: Slots of the action track.
SLOTS = (1, 2, 3, 4, 5, 6)
#: The track's colour pairs; the initiative player takes one slot of each.
PAIRS = ((1, 2), (3, 4), (5, 6))
#: Cards per programming; steps per transfer at most.
CARDS_PER_PROGRAM = 3
MAX_STEPS = 3

PlainMove = dict[str, Any]
#: A Transfer's steps: (person, island) each.
Steps = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Program:
    """Three cards put on the track: ``((slot, card), ...)`` in slot order."""

    kind: ClassVar[str] = "program"
    cards: tuple[tuple[int, Card], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    @classmethod
    def in_slot_order(cls, cards: tuple[tuple[int, Card], ...]) -> Program:
        """A programming whose cards are known to be in slot order already (the engine's
        generator of legal programmings: a third of its time went to sorting)."""
        move = object.__new__(cls)
        object.__setattr__(move, "cards", cards)
        return move

    @property
    def slots(self) -> tuple[int, ...]:
        return tuple(slot for slot, _ in self.cards)

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "cards": [[slot, card.value] for slot, card in self.cards]}


@dataclass(frozen=True, slots=True)
class Transfer:
    """Up to three steps ``(person, island)``, sorted by person.  No step is a pass, legal only
    under ``Options.transfer_may_pass``."""

    kind: ClassVar[str] = "transfer"
    steps: Steps

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(sorted(self.steps, key=lambda s: _PERSON_ORDER.get(s[0], 99))))

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "steps": [[person, island] for person, island in self.steps]}


@dataclass(frozen=True, slots=True)
class Harpoon:
    kind: ClassVar[str] = "harpoon"
    person: str

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "person": self.person}


@dataclass(frozen=True, slots=True)
class Turtle:
    kind: ClassVar[str] = "turtle"
    person: str

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "person": self.person}


@dataclass(frozen=True, slots=True)
class Flee:
    """The person who flees from a lava island onto a small one (§5.2)."""

    kind: ClassVar[str] = "flee"
    person: str

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "person": self.person}


@dataclass(frozen=True, slots=True)
class Fog:
    kind: ClassVar[str] = "fog"
    slot: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "slot": self.slot}


@dataclass(frozen=True, slots=True)
class Surge:
    kind: ClassVar[str] = "surge"
    direction: Direction

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "direction": self.direction.value}


@dataclass(frozen=True, slots=True)
class Flood:
    kind: ClassVar[str] = "flood"
    island: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "island": self.island}


@dataclass(frozen=True, slots=True)
class Net:
    kind: ClassVar[str] = "net"
    island: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "island": self.island}


@dataclass(frozen=True, slots=True)
class Pilehouse:
    kind: ClassVar[str] = "pilehouse"
    island: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "island": self.island}


@dataclass(frozen=True, slots=True)
class Volcano:
    kind: ClassVar[str] = "volcano"
    island: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "island": self.island}


@dataclass(frozen=True, slots=True)
class Fish:
    kind: ClassVar[str] = "fish"
    person: str
    island: int

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind, "person": self.person, "island": self.island}


@dataclass(frozen=True, slots=True)
class Resign:
    kind: ClassVar[str] = "resign"

    def to_dict(self) -> PlainMove:
        return {"kind": self.kind}


Move = Program | Transfer | Harpoon | Turtle | Flee | Fog | Surge | Flood | Net | Pilehouse | Volcano | Fish | Resign
#: The card decisions (every kind but program and resign), by the card that asks them.
DECISION_OF_CARD: dict[Card, str] = {
    Card.TRANSFER: "transfer", Card.HARPOON: "harpoon", Card.FOG: "fog", Card.SURGE: "surge",
    Card.FISH: "fish", Card.VOLCANO: "volcano", Card.FLOOD: "flood", Card.NET: "net",
    Card.TURTLE: "turtle", Card.PILEHOUSE: "pilehouse",
}
MOVE_KINDS = ("program", "transfer", "harpoon", "turtle", "flee", "fog", "surge", "flood", "net",
              "pilehouse", "volcano", "fish", "resign")
RESIGN = Resign()
_ISLAND_MOVES: dict[str, type[Flood | Net | Pilehouse | Volcano]] = {
    "flood": Flood, "net": Net, "pilehouse": Pilehouse, "volcano": Volcano}
_PERSON_ORDER = {person: i for i, person in enumerate(PEOPLE)}


def move_from_dict(data: Mapping[str, Any]) -> Move:
    """A move from its plain form; ValueError names what is wrong with its shape."""
    if not isinstance(data, Mapping):
        raise ValueError("a move must be an object")
    kind = data.get("kind")
    if kind == "program":
        return Program(_program_cards(data.get("cards")))
    if kind == "transfer":
        return Transfer(_steps(data.get("steps")))
    if kind in ("harpoon", "turtle", "flee"):
        person = _person(data.get("person"))
        return Harpoon(person) if kind == "harpoon" else Turtle(person) if kind == "turtle" else Flee(person)
    if kind == "fog":
        return Fog(_slot(data.get("slot")))
    if kind == "surge":
        direction = data.get("direction")
        if direction not in ("cw", "ccw"):
            raise ValueError(f"direction must be 'cw' or 'ccw', got {direction!r}")
        return Surge(Direction(direction))
    if kind in ("flood", "net", "pilehouse", "volcano"):
        island = _island(data.get("island"))
        return _ISLAND_MOVES[kind](island)
    if kind == "fish":
        return Fish(_person(data.get("person")), _island(data.get("island")))
    if kind == "resign":
        return RESIGN
    raise ValueError(f"unknown move kind {kind!r}")


def _program_cards(cards: object) -> tuple[tuple[int, Card], ...]:
    if not isinstance(cards, list | tuple) or len(cards) != CARDS_PER_PROGRAM:
        raise ValueError(f"cards must be a list of {CARDS_PER_PROGRAM} [slot, card] pairs")
    pairs = []
    for pair in cards:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(f"cards must be a list of {CARDS_PER_PROGRAM} [slot, card] pairs")
        pairs.append((_slot(pair[0]), Card.parse(pair[1])))
    if len({slot for slot, _ in pairs}) != CARDS_PER_PROGRAM:
        raise ValueError("each card must go on a different slot")
    return tuple(pairs)


def _steps(steps: object) -> Steps:
    if not isinstance(steps, list | tuple) or len(steps) > MAX_STEPS:
        raise ValueError(f"steps must be a list of up to {MAX_STEPS} [person, island] pairs")
    pairs = []
    for pair in steps:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(f"steps must be a list of up to {MAX_STEPS} [person, island] pairs")
        pairs.append((_person(pair[0]), _island(pair[1])))
    if len({person for person, _ in pairs}) != len(pairs):
        raise ValueError("each step must move a different person")
    return tuple(pairs)


def _person(person: object) -> str:
    if not is_person(person):
        raise ValueError(f"person must be one of R1..R8, B1..B8, got {person!r}")
    return person


def _island(island: object) -> int:
    if type(island) is not int or not 1 <= island <= ISLAND_COUNT:
        raise ValueError(f"island must be a number 1..{ISLAND_COUNT}, got {island!r}")
    return island


def _slot(slot: object) -> int:
    if type(slot) is not int or slot not in SLOTS:
        raise ValueError(f"slot must be a number 1..6, got {slot!r}")
    return slot
