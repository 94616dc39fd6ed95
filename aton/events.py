"""Events: what a move caused, complete and in order.

The client's log and the server's broadcasts are built from these.  Every event
is public except ``CardsDrawn``, whose card values only their owner may see:
``for_viewer`` gives the copy a given receiver may have.  ``to_dict`` gives an
event's plain form (as on the wire, players "red"/"blue"), ``event_from_dict`` reads
it back (a client decodes what it receives with it).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from operator import attrgetter, itemgetter
from typing import Any, ClassVar

from .outcome import Outcome, Termination
from .players import Player


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def for_viewer(self, viewer: Player | None) -> Event:
        """The version of this event that ``viewer`` (None: a spectator) may receive."""
        return self

    def to_dict(self) -> dict[str, Any]:
        """The plain form sent to clients: ``type`` and the fields, players named."""
        data: dict[str, Any] = {"type": self.kind}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            plain = _TO_PLAIN.get(type(value))
            data[name] = value if plain is None else plain(value)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """The event of this class in its plain form; keys that are not its fields (a wire
        event's ``version``, fields of a newer server) are ignored.  ValueError names a
        missing or wrong field."""
        fields_of, conversions = _readers(cls)
        try:
            values = fields_of(data)
            if conversions:
                values = list(values) if type(values) is tuple else [values]
                for index, read in conversions:
                    values[index] = read(values[index])
            elif type(values) is not tuple:
                values = (values,)
            return cls(*values)
        except (KeyError, TypeError, ValueError):
            raise ValueError(_what_is_wrong(cls, data)) from None


#: How ``to_dict`` makes a field's value plain, by the value's type (any other value is plain already).
_TO_PLAIN: dict[type, Callable[[Any], Any]] = {Player: str, Termination: attrgetter("value"), tuple: list}
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """An event class's field names (``dataclasses.fields`` is slow enough to matter per move)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int


@dataclass(frozen=True, slots=True)
class DeckShuffled(Event):
    """A player's discard pile (or turned-up war cards) became their new deck."""

    kind: ClassVar[str] = "deck_shuffled"
    player: Player
    size: int


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """Four cards drawn into the hand; ``cards`` is None for everyone but the owner."""

    kind: ClassVar[str] = "cards_drawn"
    player: Player
    cards: tuple[int, ...] | None

    def for_viewer(self, viewer: Player | None) -> CardsDrawn:
        return self if viewer == self.player else replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class Exchanged(Event):
    kind: ClassVar[str] = "exchanged"
    player: Player


@dataclass(frozen=True, slots=True)
class Committed(Event):
    kind: ClassVar[str] = "committed"
    player: Player


@dataclass(frozen=True, slots=True)
class CardRevealed(Event):
    kind: ClassVar[str] = "card_revealed"
    player: Player
    cartouche: int
    value: int


@dataclass(frozen=True, slots=True)
class PointsScored(Event):
    """Points from cartouche 1: ``points`` = 2 x (higher - lower)."""

    kind: ClassVar[str] = "points_scored"
    player: Player
    points: int
    higher: int
    lower: int
    total: int


@dataclass(frozen=True, slots=True)
class WarCardsTurned(Event):
    """C1 and C2 tied: each player turned up the top card of their deck."""

    kind: ClassVar[str] = "war_cards_turned"
    red: int
    blue: int


@dataclass(frozen=True, slots=True)
class TurnOrderDecided(Event):
    """Who plays first; ``reason`` is cartouche2, cartouche1 or war, with the deciding values."""

    kind: ClassVar[str] = "turn_order_decided"
    first: Player
    reason: str
    red: int
    blue: int


@dataclass(frozen=True, slots=True)
class WarCardsReturned(Event):
    """The turned-up war cards went back under their owners' decks, in the order turned up."""

    kind: ClassVar[str] = "war_cards_returned"
    red: tuple[int, ...]
    blue: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """``removal``: stones to remove (C2 - 2; -1 means one of one's own; 0 in round 1)."""

    kind: ClassVar[str] = "turn_started"
    player: Player
    range: int
    removal: int
    placement: int


@dataclass(frozen=True, slots=True)
class RemovalSkipped(Event):
    """No removal at all in the first round of the game (``would_remove`` = C2 - 2)."""

    kind: ClassVar[str] = "removal_skipped"
    player: Player
    would_remove: int


@dataclass(frozen=True, slots=True)
class StoneRemoved(Event):
    kind: ClassVar[str] = "stone_removed"
    player: Player
    owner: Player
    temple: int
    square: int


@dataclass(frozen=True, slots=True)
class RemovalLapsed(Event):
    """Fewer eligible stones than required: ``count`` removals did not happen."""

    kind: ClassVar[str] = "removal_lapsed"
    player: Player
    count: int


@dataclass(frozen=True, slots=True)
class StonePlaced(Event):
    kind: ClassVar[str] = "stone_placed"
    player: Player
    temple: int
    square: int


@dataclass(frozen=True, slots=True)
class StonesToKingdom(Event):
    """No empty square left in range: stones went from the supply to the Kingdom of the Dead."""

    kind: ClassVar[str] = "stones_to_kingdom"
    player: Player
    count: int


@dataclass(frozen=True, slots=True)
class PlacementLapsed(Event):
    """The supply ran dry: ``count`` stones could not be placed and nothing else happens."""

    kind: ClassVar[str] = "placement_lapsed"
    player: Player
    count: int


@dataclass(frozen=True, slots=True)
class ScoringStarted(Event):
    kind: ClassVar[str] = "scoring_started"
    dead: int


@dataclass(frozen=True, slots=True)
class CategoryScored(Event):
    """One category of a scoring round: the counts compared and the points each player got."""

    kind: ClassVar[str] = "category_scored"
    category: int
    title: str
    red_count: int
    blue_count: int
    red_points: int
    blue_points: int


@dataclass(frozen=True, slots=True)
class StonesReturned(Event):
    """After scoring, the stones in the Kingdom of the Dead went back (or left the game)."""

    kind: ClassVar[str] = "stones_returned"
    red: int
    blue: int
    to_supply: bool


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    kind: ClassVar[str] = "resigned"
    player: Player


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """``winner`` None is a draw; ``reason`` why the game ended (see ``aton.outcome``)."""

    kind: ClassVar[str] = "game_over"
    winner: Player | None
    reason: Termination
    red_score: int
    blue_score: int

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.reason, self.winner)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in Event.__subclasses__()
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The engine event in a plain map (its ``type`` one of ``EVENT_TYPES``); ValueError otherwise."""
    cls = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    return cls.from_dict(data)


# ---------------------------------------------------------------------- reading the plain form
#
# A client reads every event it receives, so reading is a table lookup per field: values
# that are already what the field holds (ints, strings, booleans) are taken as they are,
# the others converted by one call.  Only a map that fails is looked at closely, to say why.

_PLAYERS: dict[Any, Player] = {str(p): p for p in Player}
_PLAYERS_OR_NONE: dict[Any, Player | None] = {**_PLAYERS, None: None}


def _integers_or_none(value: Any) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


#: How each field type of an event is read from its plain form (None: as it is).
_READ_TYPE: dict[Any, Callable[[Any], Any] | None] = {
    int: None,
    str: None,
    bool: None,
    Player: _PLAYERS.__getitem__,
    Player | None: _PLAYERS_OR_NONE.__getitem__,
    Termination: Termination,
    tuple[int, ...]: tuple,
    tuple[int, ...] | None: _integers_or_none,
}
#: What each field type must be in the plain form (checked to say what is wrong).
_PLAIN_TYPE: dict[Any, tuple[type, ...]] = {
    int: (int,), str: (str,), bool: (bool,), Player: (str,), Player | None: (str, type(None)),
    Termination: (str,), tuple[int, ...]: (list, tuple), tuple[int, ...] | None: (list, tuple, type(None)),
}

_Readers = tuple[Callable[[dict[str, Any]], Any], tuple[tuple[int, Callable[[Any], Any]], ...]]
_READERS: dict[type, _Readers] = {}
_HINTS: dict[type, dict[str, Any]] = {}


def _readers(cls: type[Event]) -> _Readers:
    """How to read an event class, made once per class: an ``itemgetter`` of its fields in
    order (one value, or a tuple of them), and (index, reader) for the fields to convert.
    A field of a type not in ``_READ_TYPE`` fails here, so a new one is taught at once."""
    readers = _READERS.get(cls)
    if readers is None:
        names = _field_names(cls)
        hints = _HINTS[cls] = typing.get_type_hints(cls)
        conversions = tuple((i, read) for i, name in enumerate(names) if (read := _READ_TYPE[hints[name]]) is not None)
        readers = _READERS[cls] = (itemgetter(*names), conversions)
    return readers


def _what_is_wrong(cls: type[Event], data: dict[str, Any]) -> str:
    """Why ``data`` is not the plain form of a ``cls`` event."""
    hints = _HINTS[cls]
    for name in _field_names(cls):
        if name not in data:
            return f"{cls.kind}: {name} is missing"
        value, hint = data[name], hints[name]
        read = _READ_TYPE[hint]
        wrong = type(value) not in _PLAIN_TYPE[hint] or (hint in (int, tuple[int, ...]) and value is True)
        try:
            if not wrong and read is not None:
                read(value)
        except (KeyError, TypeError, ValueError):
            wrong = True
        if wrong:
            return f"{cls.kind}: {name}: unexpected {value!r:.40}"
    return f"{cls.kind}: unreadable"
