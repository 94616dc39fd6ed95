"""The arbiter's own events: what the server adds to a game's story, declared once.

The engine's events (``aton.events``) tell what a move caused.  The server adds
its own, in the same ``events`` lists of ``update`` and ``log`` of ``game_state``:
sealed commitments, time-outs, connections coming and going, chat and rematches.
Each is a frozen dataclass whose fields are ``Annotated[type, Spec]``, as the
messages are; the room builds them, ``to_wire`` gives the map (before the server
numbers it with ``version``), ``parse`` checks a received one, and docs/protocol.md's
table of them is generated from these classes (``protocol.doc_tables``).  Players
are ``Player`` values here, "red"/"blue" on the wire.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar

from aton.players import Player

from .messages import CHAT_CHARS, GAME_ID, NAME, SEATS
from .schema import Bool, Int, Number, OneOf, Text, build, declared_fields


class Seat(OneOf):
    """A seat on the wire ("red" or "blue"), a ``Player`` once read."""

    def check(self, value: Any, path: str) -> Player:  # type: ignore[override]
        return Player.parse(super().check(value, path))


SEAT = Seat(SEATS)
_PLAYER_NAMED = {str(player): player for player in Player}


def player_of(seat: Hashable) -> Player:
    """The ``Player`` a game's seat stands for: the server's rooms hold seats of any game and
    name them on the wire by ``str()``; this protocol's seats are "red" and "blue"."""
    return _PLAYER_NAMED[str(seat)]
#: What a clock can run for: the four cards, opening them, a removal or placement.
CLOCK_ACTIONS = ("commit", "open", "move")


@dataclass(frozen=True, slots=True)
class ArbiterEvent:
    """Base of the arbiter's events; ``TYPE`` is the wire name."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.TYPE}
        for name, _, _ in declared_fields(type(self)):
            value = getattr(self, name)
            data[name] = str(value) if isinstance(value, Player) else value
        return data


#: wire name -> class, in the order docs/protocol.md lists them
ARBITER_EVENTS: dict[str, type[ArbiterEvent]] = {}


E = TypeVar("E", bound=ArbiterEvent)


def arbiter_event(type_name: str) -> Callable[[type[E]], type[E]]:
    """Register an arbiter event class under its wire name."""

    def register(cls: type[E]) -> type[E]:
        cls.TYPE = type_name
        declared_fields(cls)  # a field without its Spec fails here, at import
        ARBITER_EVENTS[type_name] = cls
        return cls

    return register


def parse(data: dict[str, Any]) -> ArbiterEvent:
    """The arbiter event in a received map (its ``type`` one of ``ARBITER_EVENTS``); keys that
    are not its fields (``version``, or fields of a newer server) are ignored."""
    return build(ARBITER_EVENTS[data["type"]], data)


@arbiter_event("committed")
@dataclass(frozen=True, slots=True)
class Committed(ArbiterEvent):
    """That player sealed their cartouches (nothing else is revealed)."""

    player: Annotated[Player, SEAT]


@arbiter_event("open_requested")
@dataclass(frozen=True, slots=True)
class OpenRequested(ArbiterEvent):
    """Both players are sealed: open yours now."""


@arbiter_event("opened")
@dataclass(frozen=True, slots=True)
class Opened(ArbiterEvent):
    """That player's opening matched its commitment: the server holds the cards, so that
    player's client may forget them and the nonce. The cartouches are revealed once both are open."""

    player: Annotated[Player, SEAT]


@arbiter_event("timeout")
@dataclass(frozen=True, slots=True)
class TimedOut(ArbiterEvent):
    """Time ran out on that player's decision. Unless it `forfeit`s the game (the `max_strikes`-th
    time-out in a row, or any at `open`), the server played the default move: the hand in
    ascending order for `commit`, the first legal square for `move`."""

    player: Annotated[Player, SEAT]
    action: Annotated[str, OneOf(CLOCK_ACTIONS)]
    strikes: Annotated[int, Int(1, 1000)]
    #: True: this time-out lost the game on time (``game_over`` follows); no move was played.
    forfeit: Annotated[bool, Bool()] = False


@arbiter_event("disconnected")
@dataclass(frozen=True, slots=True)
class Disconnected(ArbiterEvent):
    """That player's connection dropped; they forfeit unless back within `grace_s` seconds."""

    player: Annotated[Player, SEAT]
    grace_s: Annotated[float, Number(0, 86400)]


@arbiter_event("reconnected")
@dataclass(frozen=True, slots=True)
class Reconnected(ArbiterEvent):
    """That player is back."""

    player: Annotated[Player, SEAT]


@arbiter_event("chat")
@dataclass(frozen=True, slots=True)
class ChatSaid(ArbiterEvent):
    """A line said at the table by the player in that seat, under their name."""

    player: Annotated[Player, SEAT]
    name: Annotated[str, NAME]
    text: Annotated[str, Text(1, CHAT_CHARS)]


@arbiter_event("chat_hidden")
@dataclass(frozen=True, slots=True)
class ChatHidden(ArbiterEvent):
    """A line said at the table by the player in that seat, whom you muted (`mute`): its text is not
    sent to you (since 1.6; only to a receiver that muted them)."""

    player: Annotated[Player, SEAT]


@arbiter_event("rematch_offered")
@dataclass(frozen=True, slots=True)
class RematchOffered(ArbiterEvent):
    """After the game, that player offers (or accepts) a rematch."""

    player: Annotated[Player, SEAT]


@arbiter_event("rematch_declined")
@dataclass(frozen=True, slots=True)
class RematchDeclined(ArbiterEvent):
    """That player declined; the offers so far are withdrawn."""

    player: Annotated[Player, SEAT]


@arbiter_event("rematch_started")
@dataclass(frozen=True, slots=True)
class RematchStarted(ArbiterEvent):
    """Both agreed: the rematch is `game`, colours swapped (its `game_state` came just before).
    A game has one rematch: a later `rematch` of it is `not_allowed`."""

    game: Annotated[int, GAME_ID]


@arbiter_event("clock_paused")
@dataclass(frozen=True, slots=True)
class ClockPaused(ArbiterEvent):
    """That player's clock stopped at their request (`pause`, in a game against a bot the server
    hosts); `pause_left_s`: the seconds of pausing the game has left."""

    player: Annotated[Player, SEAT]
    pause_left_s: Annotated[float, Number(0, 86400)]


@arbiter_event("clock_resumed")
@dataclass(frozen=True, slots=True)
class ClockResumed(ArbiterEvent):
    """That player's clock runs again where it stopped: they asked, their connection dropped, or
    the game's pauses used up their time (`pause_left_s` 0). (The end of the game stops every clock
    without it.)"""

    player: Annotated[Player, SEAT]
    pause_left_s: Annotated[float, Number(0, 86400)]


@arbiter_event("rating_changed")
@dataclass(frozen=True, slots=True)
class RatingChanged(ArbiterEvent):
    """The game was rated (since 1.6; it follows `game_over`): that player's rating for the
    table's clock before and after it, rounded (the change players read is `after` − `before`);
    `provisional` while the rating is not yet settled (shown "1500?")."""

    player: Annotated[Player, SEAT]
    before: Annotated[int, Int(0, 10000)]
    after: Annotated[int, Int(0, 10000)]
    provisional: Annotated[bool, Bool()]
