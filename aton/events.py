"""Events: what a move caused, complete and in order.

The client's log and the server's broadcasts are built from these.  Every event
is public except ``CardsDrawn``, whose card values only their owner may see:
``for_viewer`` gives the copy a given receiver may have.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import ClassVar

from .outcome import Outcome, Termination
from .players import Player


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def for_viewer(self, viewer: Player | None) -> "Event":
        """The version of this event that ``viewer`` (None: a spectator) may receive."""
        return self

    def to_dict(self) -> dict:
        data: dict = {"type": self.kind}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if isinstance(value, Player):
                value = str(value)
            elif isinstance(value, Termination):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            data[name] = value
        return data


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

    def for_viewer(self, viewer: Player | None) -> "CardsDrawn":
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
