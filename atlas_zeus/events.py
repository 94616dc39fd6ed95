"""Events: what a move caused, complete and in order.

The screen's log and the server's broadcasts are built from these.  Every event is public
except the cards of ``Programmed`` (face down) and ``CardsDrawn``, which only their owner
may see: ``for_viewer`` gives the copy a receiver may have.  ``to_dict`` gives the plain
form ``{"type": kind, ...}`` (players "red"/"blue", cards by wire name) and
``event_from_dict`` reads it back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from .cards import Card
from .outcome import Outcome, Termination
from .players import Player


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def for_viewer(self, viewer: Player | None) -> Event:
        """The version of this event that ``viewer`` (None: a spectator) may receive."""
        return self

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            data[f.name] = _plain(getattr(self, f.name))
        return data


def _plain(value: object) -> object:
    if isinstance(value, Player):
        return str(value)
    if isinstance(value, Card | Termination):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int
    initiative: Player


@dataclass(frozen=True, slots=True)
class Programmed(Event):
    """A player put cards on ``slots``; ``cards`` (in slot order) only for the owner, or for
    everyone when ``face_up`` (Open hand)."""

    kind: ClassVar[str] = "programmed"
    player: Player
    slots: tuple[int, ...]
    cards: tuple[Card, ...] | None
    face_up: bool

    def for_viewer(self, viewer: Player | None) -> Programmed:
        return self if self.face_up or viewer == self.player else replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class CardTurned(Event):
    kind: ClassVar[str] = "card_turned"
    slot: int
    player: Player
    card: Card


@dataclass(frozen=True, slots=True)
class CardWithoutEffect(Event):
    """A card discarded without effect: ``why`` is "fogged" (at the moment of the Fog) or
    "no_target" (it had no legal choice, or nothing to act on)."""

    kind: ClassVar[str] = "card_without_effect"
    slot: int
    player: Player
    card: Card
    why: str


@dataclass(frozen=True, slots=True)
class PersonMoved(Event):
    """``by``: the card's wire name ("transfer", "fish", "volcano" for a lava escape)."""

    kind: ClassVar[str] = "person_moved"
    person: str
    from_island: int
    to_island: int
    by: str


@dataclass(frozen=True, slots=True)
class PersonDied(Event):
    """``by``: "crab", "harpoon", "volcano" (lava or crater) or "sinking"."""

    kind: ClassVar[str] = "person_died"
    person: str
    island: int
    by: str


@dataclass(frozen=True, slots=True)
class IslandSank(Event):
    kind: ClassVar[str] = "island_sank"
    island: int


@dataclass(frozen=True, slots=True)
class IslandErupted(Event):
    kind: ClassVar[str] = "island_erupted"
    island: int
    player: Player


@dataclass(frozen=True, slots=True)
class FloodMoved(Event):
    """``by``: "surge", "flood", "sinking" or "volcano"."""

    kind: ClassVar[str] = "flood_moved"
    from_island: int
    to_island: int
    by: str


@dataclass(frozen=True, slots=True)
class MarkerPlaced(Event):
    """``marker``: "net", "turtle" or "pilehouse"; ``island`` for a net or pilehouse,
    ``person`` for a turtle."""

    kind: ClassVar[str] = "marker_placed"
    player: Player
    marker: str
    island: int | None
    person: str | None


@dataclass(frozen=True, slots=True)
class MarkerReturned(Event):
    """A marker left play and its card went to the discard pile.  ``why``: "sank", "erupted"
    (its island), "moved" or "died" (the turtle's person)."""

    kind: ClassVar[str] = "marker_returned"
    player: Player
    marker: str
    island: int | None
    person: str | None
    why: str


@dataclass(frozen=True, slots=True)
class OpenHandPlayed(Event):
    """``player`` will program face up next (``count`` programmings are now due face up)."""

    kind: ClassVar[str] = "open_hand"
    player: Player
    count: int


@dataclass(frozen=True, slots=True)
class Weakened(Event):
    """``player``'s people count as weakened strength for Crab until the round ends."""

    kind: ClassVar[str] = "weakened"
    player: Player


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """``cards`` is None for everyone but the owner."""

    kind: ClassVar[str] = "cards_drawn"
    player: Player
    count: int
    cards: tuple[Card, ...] | None

    def for_viewer(self, viewer: Player | None) -> CardsDrawn:
        return self if viewer == self.player else replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class PileReshuffled(Event):
    """A player's draw pile was shuffled: ``size`` cards.  ``by``: "draw" (the discard pile
    became the draw pile) or "reshuffle" (the card: both piles together)."""

    kind: ClassVar[str] = "pile_reshuffled"
    player: Player
    size: int
    by: str


@dataclass(frozen=True, slots=True)
class InitiativePassed(Event):
    kind: ClassVar[str] = "initiative_passed"
    player: Player


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    kind: ClassVar[str] = "game_over"
    winner: Player | None
    reason: Termination

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.reason, self.winner)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, **self.outcome.to_dict()}


EVENT_TYPES: dict[str, type[Event]] = {cls.kind: cls for cls in Event.__subclasses__()}


def _cards(value: object) -> tuple[Card, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise ValueError("cards must be a list")
    return tuple(Card.parse(v) for v in value)


def _ints(value: object) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(type(v) is int for v in value):
        raise ValueError("expected a list of numbers")
    return tuple(value)


def _checked(expected: type | tuple[type, ...]) -> Callable[[object], Any]:
    def read(value: object) -> object:
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is int):
            raise ValueError(f"unexpected value {value!r}")
        return value
    return read


#: How to read each field type of an event (by its annotation's text).
_READERS: dict[str, Callable[[object], Any]] = {
    "int": _checked(int), "str": _checked(str), "bool": _checked(bool),
    "int | None": lambda v: None if v is None else _checked(int)(v),
    "str | None": lambda v: None if v is None else _checked(str)(v),
    "Player": Player.parse, "Player | None": Player.parse_optional,
    "Card": Card.parse, "tuple[Card, ...] | None": _cards, "tuple[int, ...]": _ints,
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The event of a plain form; ValueError names an unknown type or a missing or wrong field.
    Keys that are not fields of the event are ignored."""
    if not isinstance(data, dict):
        raise ValueError("an event must be an object")
    cls = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    if cls is GameOver:
        try:
            outcome = Outcome.from_dict(data)
        except ValueError as exc:
            raise ValueError(f"game_over: {exc}") from None
        return GameOver(outcome.winner, outcome.termination)
    values = []
    for f in fields(cls):
        if f.name not in data:
            raise ValueError(f"{cls.kind}: missing field {f.name!r}")
        try:
            values.append(_READERS[str(f.type)](data[f.name]))
        except ValueError as exc:
            raise ValueError(f"{cls.kind}.{f.name}: {exc}") from None
    return cls(*values)
