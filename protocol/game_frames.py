"""A game's frames as a client uses them: decoded once, where they are read, into the engine's types.

``game_state`` and ``update`` carry the receiver's view and the game's events as plain
maps (``protocol.messages``).  A client turns them, as soon as it has read them
(``typed``), into a ``GameStateFrame`` or an ``UpdateFrame``: the view an
``aton.views.View``, each event an ``aton.events.Event`` or a
``protocol.events.ArbiterEvent`` with the version the server gave it, the seats
``Player`` values.  Everything after that point — the Textual client, the bot SDK,
their strategies and narration — works on these types and never on the maps.

Keys a newer server adds are ignored, and an event type this client does not know
becomes an ``UnknownEvent`` (nobody tells it; its version keeps the numbering whole),
so that a compatible protocol change never breaks an older client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeAlias, TypeVar, overload

from atlas_zeus import events as zeus_events
from atlas_zeus.views import View as ZeusView
from aton.events import EVENT_TYPES, Event
from aton.players import Player
from aton.views import View

from . import events as ev
from . import messages as m
from .errors import ErrorCode, ProtocolError


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event of a type this client does not know (a newer server's), kept as it came."""

    type: str
    data: dict[str, Any]


GameEvent: TypeAlias = Event | zeus_events.Event | ev.ArbiterEvent | UnknownEvent
#: A game's view: Aton's or Atlas & Zeus's.
V = TypeVar("V", View, ZeusView)
GameView: TypeAlias = View | ZeusView


class Numbered(NamedTuple):
    """An event as the server numbered it: ``version`` is the game's version after it (a
    named tuple: a client makes one per event it reads)."""

    version: int
    event: GameEvent


def rating_text(rating: int, provisional: bool) -> str:
    """A rating as players read it: "1623", or "1500?" while it is provisional."""
    return f"{rating}?" if provisional else str(rating)


def rating_of(entry: dict[str, Any]) -> str | None:
    """The rating a map of the wire carries (``rating`` and ``provisional``, since 1.6) as players
    read it; None if it carries none (a guest, an older server) or a malformed one."""
    rating = entry.get("rating")
    if type(rating) is not int:
        return None
    return rating_text(rating, entry.get("provisional") is True)


@dataclass(frozen=True, slots=True)
class Seated:
    """Who sits in a seat: ``kind`` is "human" or "bot" (a bot the server hosts included);
    ``rating`` their rating for the game's clock as players read it (since 1.6; None: a guest)."""

    name: str
    kind: str
    connected: bool
    rating: str | None = None


@dataclass(frozen=True, slots=True)
class SeatClock:
    """A seat's clock when the frame was sent: the milliseconds left for what it owes now
    (``action``: "commit", "open" or "move"; None: nothing), and its time-outs in a row."""

    remaining_ms: int | None
    action: str | None
    strikes: int
    paused: bool = False  # stopped at its player's request (since 1.4): it stands at remaining_ms


@dataclass(frozen=True, slots=True)
class StateFrameOf(Generic[V]):
    """``game_state``: the whole game as this receiver may see it; ``view`` its game's view."""

    game: int
    version: int
    seat: Player | None  # None: watching
    players: dict[Player, Seated]
    options: dict[str, Any]  # the table's: clock, private, time_control; since 1.7 game
    view: V
    commitments: dict[Player, str]  # "none", "sealed", "awaiting_open" or "opened"
    clocks: dict[Player, SeatClock]
    log: tuple[Numbered, ...]  # the latest events, oldest first
    reply_to: int | None = None


@dataclass(frozen=True, slots=True)
class UpdateFrameOf(Generic[V]):
    """``update``: the events since the last frame, and the view and clocks after them."""

    game: int
    version: int
    events: tuple[Numbered, ...]
    view: V
    commitments: dict[Player, str]
    clocks: dict[Player, SeatClock]


class GameStateFrame(StateFrameOf[View]):
    """A ``game_state`` of a game of Aton."""

    __slots__ = ()


class UpdateFrame(UpdateFrameOf[View]):
    """An ``update`` of a game of Aton."""

    __slots__ = ()


class ZeusStateFrame(StateFrameOf[ZeusView]):
    """A ``game_state`` of a game of Atlas & Zeus (since 1.7)."""

    __slots__ = ()


class ZeusUpdateFrame(UpdateFrameOf[ZeusView]):
    """An ``update`` of a game of Atlas & Zeus (since 1.7)."""

    __slots__ = ()


#: Any game's frames.
AnyStateFrame: TypeAlias = GameStateFrame | ZeusStateFrame
AnyUpdateFrame: TypeAlias = UpdateFrame | ZeusUpdateFrame
#: The name of Atlas & Zeus on the wire (``options["game"]``); anything else is Aton.
ATLAS_ZEUS = "atlas-zeus"


@overload
def typed(message: m.GameState) -> GameStateFrame: ...
@overload
def typed(message: m.Update) -> UpdateFrame: ...
@overload
def typed(message: m.Message) -> m.Message | GameStateFrame | UpdateFrame: ...
def typed(message: m.Message) -> m.Message | GameStateFrame | UpdateFrame:
    """``message`` with a ``game_state`` or an ``update`` decoded into the engine's types (any
    other message as it is); ProtocolError ``invalid`` when its view or an event is malformed."""
    try:
        if isinstance(message, m.GameState):
            return _state(message, GameStateFrame, View.from_dict, _aton_event)
        if isinstance(message, m.Update):
            return _update(message, UpdateFrame, View.from_dict, _aton_event)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(ErrorCode.INVALID, f"{message.TYPE}: {exc}") from None
    return message


def typed_for(message: m.Message, game: str) -> m.Message | AnyStateFrame | AnyUpdateFrame:
    """``typed`` for a client of every game: a ``game_state`` is read as the game its options name,
    an ``update`` as ``game`` (the game of its ``game_state``, which the client has seen first)."""
    if isinstance(message, m.GameState):
        game = str(message.options.get("game", m.DEFAULT_GAME))
    if game != ATLAS_ZEUS or not isinstance(message, m.GameState | m.Update):
        return typed(message)
    try:
        if isinstance(message, m.GameState):
            return _state(message, ZeusStateFrame, ZeusView.from_dict, _zeus_event)
        return _update(message, ZeusUpdateFrame, ZeusView.from_dict, _zeus_event)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(ErrorCode.INVALID, f"{message.TYPE}: {exc}") from None


StateFrameT = TypeVar("StateFrameT", GameStateFrame, ZeusStateFrame)
UpdateFrameT = TypeVar("UpdateFrameT", UpdateFrame, ZeusUpdateFrame)
#: How a game's view and events are read from their plain maps.
ViewReader: TypeAlias = Callable[[dict[str, Any]], Any]
EventReader: TypeAlias = Callable[[dict[str, Any]], "Event | zeus_events.Event | None"]


def _state(message: m.GameState, frame: type[StateFrameT], view: ViewReader, event: EventReader) -> StateFrameT:
    """A ``game_state`` as ``frame``, its view and events read by the game's readers."""
    return frame(game=message.game, version=message.version, seat=Player.parse_optional(message.seat),
                 players={Player.parse(seat): _seated(info) for seat, info in message.players.items()},
                 options=message.options, view=view(message.view),
                 commitments=_commitments(m.commitments_of(message)), clocks=_clocks(message.clocks),
                 log=tuple(numbered(e, event) for e in message.log), reply_to=message.reply_to)


def _update(message: m.Update, frame: type[UpdateFrameT], view: ViewReader, event: EventReader) -> UpdateFrameT:
    """An ``update`` as ``frame``, its view and events read by the game's readers."""
    return frame(game=message.game, version=message.version, events=tuple(numbered(e, event) for e in message.events),
                 view=view(message.view), commitments=_commitments(m.commitments_of(message)),
                 clocks=_clocks(message.clocks))


def _aton_event(data: dict[str, Any]) -> Event | None:
    cls = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    return None if cls is None else cls.from_dict(data)


def _zeus_event(data: dict[str, Any]) -> zeus_events.Event | None:
    if data.get("type") not in zeus_events.EVENT_TYPES:
        return None
    return zeus_events.event_from_dict(data)


def numbered(data: dict[str, Any], engine_event: EventReader = _aton_event) -> Numbered:
    """One event of a frame, read: the engine's (Aton's unless ``engine_event`` reads another
    game's), the arbiter's, or one this client does not know."""
    kind = data.get("type")
    version = data["version"]
    if type(version) is not int:
        raise ValueError(f"{kind}: version: unexpected {version!r:.40}")
    if kind in ev.ARBITER_EVENTS:  # first: the arbiter's "committed" is the one on the wire
        return Numbered(version, ev.parse(data))
    event = engine_event(data)
    return Numbered(version, UnknownEvent(str(kind), data) if event is None else event)


def _seated(info: dict[str, Any]) -> Seated:
    return Seated(name=info["name"], kind=info["kind"], connected=info["connected"], rating=rating_of(info))


def _commitments(by_name: dict[str, str]) -> dict[Player, str]:
    return {Player.parse(seat): state for seat, state in by_name.items()}


def _clocks(clocks: dict[str, Any]) -> dict[Player, SeatClock]:
    return {Player.parse(seat): SeatClock(c["remaining_ms"], c["for"], c["strikes"], c.get("paused") is True)
            for seat, c in clocks.items()}
