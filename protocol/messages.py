"""The message catalogue: every message type of protocol 1, declared once.

Each message is a frozen dataclass whose fields are ``Annotated[type, Spec]``;
its docstring is its documentation.  ``parse`` validates a decoded map against
the declaration and builds the dataclass; ``Message.to_wire`` gives the map to
encode.  docs/protocol.md's message tables are generated from these classes
(``protocol.doc_tables``) and a test keeps them in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Annotated, Any, ClassVar, TypeVar

from .account_keys import KEY_LINE_CHARS, NONCE_BYTES
from .clocks import TIME_CONTROLS
from .errors import ErrorCode, ProtocolError
from .gateway_assertions import ASSERTION_BYTES, SIGNATURE_BYTES
from .names import NAME_CHARS, name_order
from .schema import (
    Binary,
    Bool,
    Int,
    Items,
    ListOf,
    MapOf,
    OneOf,
    Optional,
    Plain,
    Record,
    Spec,
    Text,
    build,
    declared_fields,
    shown,
)

#: A map whose layout is documented elsewhere (a view, an event, the clocks), and a list of them.
Map = dict[str, Any]
Maps = tuple[Map, ...]

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 7
PROTOCOL_VERSION = f"{PROTOCOL_MAJOR}.{PROTOCOL_MINOR}"

MAX_ID = 2**31 - 1
GAME_ID = Int(1, 2**53)
REQUEST_ID = Optional(Int(0, MAX_ID))
NAME = Text(1, NAME_CHARS)
CHAT_CHARS = 200  # the longest chat line the protocol carries (a server may allow less)
LOG_EVENTS = 150  # the most events a game_state recounts
WELCOME_GAMES = 64  # the most unfinished games a welcome lists (a game_state follows for every one)
CLOCKS = tuple(TIME_CONTROLS)
BOT_LEVELS = ("random", "easy", "normal", "hard")
SEATS = ("red", "blue")
#: A frame's ``commitments``: each seat's sealed commitment of this round; since this minor
#: version beside the view, before it in the view.
COMMITMENTS_BESIDE_THE_VIEW = 3
COMMITMENTS = Record("per seat: none, sealed, awaiting_open or opened; see 'Sealed cartouches'")
#: Since this minor version a game's decks are fixed with the players (``deal``, ``deal_commit``,
#: ``deal_open``, ``deal_revealed``; see 'Fair decks'); an older client is sent none of them.
FAIR_DECKS = 5
DEAL_VALUE = Binary(32, 32)
#: Why the server fixed a seat's part of a deal (``protocol.fairness``): from its secret, or the
#: seat's commitment.
DEAL_FILLS = MapOf(SEATS, OneOf(("server", "commitment")))
#: Since this minor version a player may mute another's chat for themselves and report a player
#: (``mute``, ``unmute``, ``mutes``, ``report``, ``reported``, the event ``chat_hidden``), and a
#: server may ban (the error and ``bye`` code ``banned``) and mute (the error ``muted``); an older
#: client is told ``not_allowed`` and ``misbehaving`` instead.
MODERATION = 6
MUTES = 200  # the most players one player may mute (a server may allow fewer)
REPORT_CHARS = 500  # the longest reason a report carries
#: The error codes of 1.6, and what a client older than it is told instead.
NEWER_ERRORS = {ErrorCode.BANNED.value: ErrorCode.NOT_ALLOWED.value, ErrorCode.MUTED.value: ErrorCode.NOT_ALLOWED.value}
#: Since this minor version a game is rated or casual (``rated`` in ``create_table``,
#: ``quick_match`` and ``play_bot``), and ratings are shown with names (see 'Ratings').
RATINGS = 6
RATED = Optional(Bool())
#: Since this minor version a client may prove an account on ``hello`` (``key`` or ``gateway``,
#: ``challenge``, ``prove``) and manage it (``get_account``, ``rename``, ``add_key``,
#: ``remove_key`` → ``account``); see 'Accounts'.
ACCOUNTS = 6
KEY_LINE = Text(1, KEY_LINE_CHARS)
FINGERPRINT = Text(len("SHA256:") + 43, len("SHA256:") + 43)
ACCOUNT_KEYS = 16  # the most keys an account holds (a server may allow fewer)
WEB_LINK_CHARS = 500  # the longest sign-in link for the web page (``web_login``)
#: The most games a ``profile`` page carries (and places a ``leaderboard`` page), and the deepest
#: page a client may ask for.
PROFILE_GAMES = 50
HISTORY_PAGES = 1000
#: Since this minor version a table chooses its game (``game`` in ``create_table``, ``quick_match``
#: and ``play_bot``; the lobby's tables and games and a game's ``options`` say it), and Atlas & Zeus
#: is hosted beside Aton: its moves are ``act``, its programmings sealed with ``commit`` (``slots``)
#: and opened with ``open`` (``move``); see 'Atlas & Zeus'.
TWO_GAMES = 7
#: The game a request that does not say plays (and the one game a client older than 1.7 knows).
DEFAULT_GAME = "aton"
#: The games a table can be played with.
GAMES = (DEFAULT_GAME, "atlas-zeus")
GAME = OneOf(GAMES)
#: An Atlas & Zeus move on the wire (``act``, ``open``): bounded all the way down.
MOVE = Plain("a move of Atlas & Zeus, see 'Atlas & Zeus'")


class Direction(StrEnum):
    CLIENT = "client → server"
    SERVER = "server → client"


@dataclass(frozen=True, slots=True)
class Message:
    """Base of all messages; ``TYPE`` is the wire name, ``DIRECTION`` who sends it."""

    TYPE: ClassVar[str] = ""
    DIRECTION: ClassVar[Direction]
    #: The names of its fields, in order (``to_wire`` runs for every frame the server sends)
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.TYPE}
        for name in self.FIELDS:
            value = getattr(self, name)
            if value is not None:
                data[name] = list(value) if isinstance(value, tuple) else value
        return data


M = TypeVar("M", bound=Message)

CATALOGUE: dict[Direction, dict[str, type[Message]]] = {d: {} for d in Direction}


def message(type_name: str, direction: Direction) -> Callable[[type[M]], type[M]]:
    """Register a message class under its wire name and direction."""

    def register(cls: type[M]) -> type[M]:
        cls.TYPE = type_name
        cls.DIRECTION = direction
        cls.FIELDS = tuple(f.name for f in fields(cls))
        declared_fields(cls)  # a field without its Spec fails here, at import
        CATALOGUE[direction][type_name] = cls
        return cls

    return register


def field_specs(cls: type[Message]) -> tuple[tuple[str, Spec, bool], ...]:
    """(name, spec, required) for each field of a message class, in declaration order."""
    return declared_fields(cls)


def parse(data: Any, direction: Direction) -> Message:
    """Validate a decoded frame and build its message; ProtocolError says what is wrong."""
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_FRAME, "a frame must hold one msgpack map")
    type_name = data.get("type")
    cls = CATALOGUE[direction].get(type_name) if isinstance(type_name, str) else None
    if cls is None:
        known = ", ".join(sorted(CATALOGUE[direction]))
        problem = "required field is missing" if type_name is None else f"unknown message type {shown(type_name)}"
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"type: {problem} (expected one of: {known})", field="type")
    return build(cls, data)


def request_id(data: Any) -> int | None:
    """The request id of a raw frame, if it has a usable one (for error replies)."""
    if isinstance(data, dict):
        rid = data.get("id")
        if type(rid) is int and 0 <= rid <= MAX_ID:
            return rid
    return None


def _client(type_name: str) -> Callable[[type[M]], type[M]]:
    return message(type_name, Direction.CLIENT)


def _server(type_name: str) -> Callable[[type[M]], type[M]]:
    return message(type_name, Direction.SERVER)


# --------------------------------------------------------------------------- handshake


@_client("hello")
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """First frame of every connection. The server answers ``welcome`` (or ``error`` + ``bye``)."""

    version: Annotated[str, Text(3, 16)]  # "MAJOR.MINOR"; the server serves major 1
    name: Annotated[str, NAME]
    kind: Annotated[str, OneOf(("human", "bot", "spectator"))]
    resume: Annotated[str | None, Optional(Text(16, 64))] = None
    lobby: Annotated[bool | None, Optional(Bool())] = None
    id: Annotated[int | None, REQUEST_ID] = None
    #: The account key this client proves (since 1.6): an OpenSSH public key line of type
    #: ssh-ed25519; the server answers ``challenge``.  Without it (and ``gateway``) you play as a guest.
    key: Annotated[str | None, Optional(KEY_LINE)] = None
    #: For a client a gateway started (since 1.6): the gateway's signed assertion of its player
    #: (see 'Accounts'); the server answers ``challenge``, which the session key it names signs.
    gateway: Annotated[bytes | None, Optional(Binary(SIGNATURE_BYTES + 1, ASSERTION_BYTES))] = None


@_server("challenge")
@dataclass(frozen=True, slots=True)
class Challenge(Message):
    """Prove the account key of your ``hello`` (since 1.6): answer ``prove`` with a signature over
    the proof message of this ``nonce``, this ``server`` name and your key's fingerprint (see 'Accounts')."""

    nonce: Annotated[bytes, Binary(NONCE_BYTES, NONCE_BYTES)]
    server: Annotated[str, Text(1, 64)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("prove")
@dataclass(frozen=True, slots=True)
class Prove(Message):
    """The answer to ``challenge`` (since 1.6): the Ed25519 signature (64 bytes) of the proof message
    by your key (for ``gateway``: by the session key of the assertion). ``welcome`` follows; a key's
    proof that fails gets ``error`` ``proof_failed`` first, and you play as a guest; a gateway's is
    refused (``error`` ``proof_failed``, then ``bye``)."""

    signature: Annotated[bytes, Binary(64, 64)]
    id: Annotated[int | None, REQUEST_ID] = None


@_server("welcome")
@dataclass(frozen=True, slots=True)
class Welcome(Message):
    """The session is open. Keep ``resume``: a later ``hello`` with it takes back your seats."""

    server: Annotated[str, Text(1, 64)]
    version: Annotated[str, Text(3, 16)]
    session: Annotated[str, Text(1, 64)]
    resume: Annotated[str, Text(16, 64)]
    name: Annotated[str, NAME]
    limits: Annotated[Map, Record("frame_bytes, messages_per_second, chat_chars, handshake_seconds")]
    reply_to: Annotated[int | None, REQUEST_ID] = None
    #: Unfinished games this session holds a seat in (since 1.1), at most ``WELCOME_GAMES``
    #: of them: a ``game_state`` follows for each (and for any beyond those listed), so a
    #: client that resumes need not start a new game.
    games: Annotated[tuple[int, ...], ListOf(GAME_ID, 0, WELCOME_GAMES)] = ()
    #: Whether you play as a guest (since 1.6): no account proved; your name is marked ("~ann").
    guest: Annotated[bool | None, Optional(Bool())] = None
    #: Something to tell the player at once (since 1.6), e.g. that the name asked for belongs to
    #: another account and which free one they got.
    notice: Annotated[str | None, Optional(Text(1, 300))] = None


@_client("ping")
@dataclass(frozen=True, slots=True)
class Ping(Message):
    """Keep-alive; answered by ``pong``."""

    id: Annotated[int | None, REQUEST_ID] = None


@_server("pong")
@dataclass(frozen=True, slots=True)
class Pong(Message):
    """Answer to ``ping``."""

    reply_to: Annotated[int | None, REQUEST_ID] = None


@_server("error")
@dataclass(frozen=True, slots=True)
class Error(Message):
    """A request failed; nothing changed. ``field`` names the offending field, if any."""

    code: Annotated[str, OneOf(tuple(c.value for c in ErrorCode))]
    message: Annotated[str, Text(1, 500, printable=False)]
    field: Annotated[str | None, Optional(Text(1, 64))] = None
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_server("bye")
@dataclass(frozen=True, slots=True)
class Bye(Message):
    """The server is about to close the connection, and why."""

    code: Annotated[str, OneOf(("shutdown", "replaced", "misbehaving", "timeout",
                                "unsupported_version", "server_full", "banned"))]
    reason: Annotated[str, Text(1, 500)]


@_server("ack")
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """A move was accepted and stored; ``version`` is the game's version after it."""

    game: Annotated[int, GAME_ID]
    version: Annotated[int, Int(0, 2**53)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


# --------------------------------------------------------------------------- accounts


@_client("get_account")
@dataclass(frozen=True, slots=True)
class GetAccount(Message):
    """Ask for your account (since 1.6): answered ``account``."""

    id: Annotated[int | None, REQUEST_ID] = None


@_client("rename")
@dataclass(frozen=True, slots=True)
class Rename(Message):
    """Give your account another name (since 1.6), if no account has it or one like it (else
    ``error`` ``name_taken``, whose message offers a free variant); answered ``account``.  Not while
    you play or wait for a game."""

    name: Annotated[str, NAME]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("add_key")
@dataclass(frozen=True, slots=True)
class AddKey(Message):
    """Add a key to your account (since 1.6): an OpenSSH public key line (as in ~/.ssh/id_ed25519.pub),
    which then logs in over SSH or signs a ``hello`` as this account; answered ``account``."""

    key: Annotated[str, KEY_LINE]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("remove_key")
@dataclass(frozen=True, slots=True)
class RemoveKey(Message):
    """Remove a key from your account (since 1.6), never its last one; answered ``account``."""

    fingerprint: Annotated[str, FINGERPRINT]
    id: Annotated[int | None, REQUEST_ID] = None


@_server("account")
@dataclass(frozen=True, slots=True)
class AccountInfo(Message):
    """Your account (since 1.6): its name, whether you are a guest (no account: no keys), its kind,
    and its keys: fingerprint, added, last_seen (whole seconds since the Unix epoch; nil: never
    used), logins; ``key`` is the fingerprint this connection proved."""

    name: Annotated[str, NAME]
    guest: Annotated[bool, Bool()]
    kind: Annotated[str, OneOf(("human", "bot"))]
    keys: Annotated[Maps, Items("keys: fingerprint, added, last_seen, logins", ACCOUNT_KEYS)] = ()
    key: Annotated[str | None, Optional(FINGERPRINT)] = None
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("get_web_login")
@dataclass(frozen=True, slots=True)
class GetWebLogin(Message):
    """Ask for a link that signs a web browser in as your account (since 1.6): answered
    ``web_login``; refused (``not_allowed``) for a guest, or where the server serves no browsers,
    and ``rate_limited`` after a few in a short time."""

    id: Annotated[int | None, REQUEST_ID] = None


@_server("web_login")
@dataclass(frozen=True, slots=True)
class WebLogin(Message):
    """A link to the server's web page that signs one browser in as your account (since 1.6): it
    works once, for ``seconds`` seconds; its code is the last part, after ``?code=``."""

    link: Annotated[str, Text(1, WEB_LINK_CHARS)]
    seconds: Annotated[int, Int(1, 86400)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


# --------------------------------------------------------------------------- lobby


#: The lobby's sections and the key of an entry in each.
LOBBY_KEYS = {"players": "name", "tables": "table", "games": "game"}
LOBBY_SECTIONS = tuple(LOBBY_KEYS)
LOBBY_ENTRIES = 5000  # the most entries one lobby list may carry (a frame holds fewer anyway)


def lobby_order(section: str, key: Any) -> Any:
    """Where the entry whose key is ``key`` comes in its section, the order of its pages:
    players by name (``name_order``), open tables oldest first, games newest first."""
    if section == "players":
        return name_order(key)
    return key if section == "tables" else -key


@_server("lobby")
@dataclass(frozen=True, slots=True)
class Lobby(Message):
    """Snapshot of the lobby, sent after ``welcome`` (when subscribed); ``lobby_update`` follows.

    Each list is the first page of its section, in the section's order (since 1.3); ``totals``
    says how many entries each section has in all, and ``get_lobby_page`` asks for the others.
    """

    players: Annotated[Maps, Items("player entries: name, kind, status; since 1.6 ratings", LOBBY_ENTRIES)]
    tables: Annotated[Maps, Items("open tables: table, host, clock, private, waiting since; since 1.6 rated, "
                                         "rating; since 1.7 kind", LOBBY_ENTRIES)]
    games: Annotated[Maps, Items("games in progress: game, red, blue, round, scores, clock; since 1.6 "
                                        "rated, ratings; since 1.7 kind, people", LOBBY_ENTRIES)]
    #: How many entries each section has on the server (since 1.3).
    totals: Annotated[dict[str, int] | None,
                      Optional(Record("players, tables, games: the number of entries of each"))] = None
    #: The ratings of the bots the server hosts (since 1.6), so that a client can offer a bot about
    #: its player's strength: per level, per clock, ``{rating, provisional}``.
    bots: Annotated[dict[str, Any] | None, Optional(Record("per bot level: per clock {rating, provisional}"))] = None


@_server("lobby_update")
@dataclass(frozen=True, slots=True)
class LobbyUpdate(Message):
    """One change to the lobby: an entry of a section was added, updated or removed."""

    section: Annotated[str, OneOf(LOBBY_SECTIONS)]
    op: Annotated[str, OneOf(("add", "update", "remove"))]
    item: Annotated[Map, Record("an entry of that section; for remove only its key")]


@_client("get_lobby_page")
@dataclass(frozen=True, slots=True)
class GetLobbyPage(Message):
    """Ask for a page of a lobby section: its entries from ``offset`` on (since 1.3)."""

    section: Annotated[str, OneOf(LOBBY_SECTIONS)]
    offset: Annotated[int, Int(0, MAX_ID)] = 0
    id: Annotated[int | None, REQUEST_ID] = None


@_server("lobby_page")
@dataclass(frozen=True, slots=True)
class LobbyPage(Message):
    """A page of a lobby section: its entries from ``offset`` on, in order, as many as the server
    sends at once; ``total`` counts the whole section (since 1.3)."""

    section: Annotated[str, OneOf(LOBBY_SECTIONS)]
    offset: Annotated[int, Int(0, MAX_ID)]
    total: Annotated[int, Int(0, MAX_ID)]
    entries: Annotated[Maps, Items("entries of that section, as in lobby", LOBBY_ENTRIES)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("create_table")
@dataclass(frozen=True, slots=True)
class CreateTable(Message):
    """Open a table and wait for an opponent. Private tables are joined only by invite code."""

    clock: Annotated[str, OneOf(CLOCKS)] = "normal"
    private: Annotated[bool, Bool()] = False
    id: Annotated[int | None, REQUEST_ID] = None
    #: A rated game (since 1.6): only a player with an account may ask, and only one may join.
    rated: Annotated[bool | None, RATED] = None
    #: The game played at the table (since 1.7).
    game: Annotated[str, GAME] = DEFAULT_GAME


@_server("table_created")
@dataclass(frozen=True, slots=True)
class TableCreated(Message):
    """Your table is open; share ``invite`` for a private table."""

    table: Annotated[int, GAME_ID]
    clock: Annotated[str, OneOf(CLOCKS)]
    private: Annotated[bool, Bool()]
    invite: Annotated[str | None, Optional(Text(4, 16))] = None
    reply_to: Annotated[int | None, REQUEST_ID] = None
    rated: Annotated[bool | None, RATED] = None  # since 1.6
    game: Annotated[str | None, Optional(GAME)] = None  # since 1.7


@_client("join_table")
@dataclass(frozen=True, slots=True)
class JoinTable(Message):
    """Sit down at an open public table; the game starts at once (``game_state``)."""

    table: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("join_invite")
@dataclass(frozen=True, slots=True)
class JoinInvite(Message):
    """Sit down at a (private) table by its invite code."""

    code: Annotated[str, Text(4, 16)]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("quick_match")
@dataclass(frozen=True, slots=True)
class QuickMatch(Message):
    """Play the next player who asks for a quick match with the same clock (and, since 1.6, rated
    or casual alike; only a player with an account may ask for a rated one; since 1.7, the same game)."""

    clock: Annotated[str, OneOf(CLOCKS)] = "normal"
    id: Annotated[int | None, REQUEST_ID] = None
    rated: Annotated[bool | None, RATED] = None
    game: Annotated[str, GAME] = DEFAULT_GAME  # since 1.7


@_server("queued")
@dataclass(frozen=True, slots=True)
class Queued(Message):
    """You wait for a quick-match opponent."""

    clock: Annotated[str, OneOf(CLOCKS)]
    reply_to: Annotated[int | None, REQUEST_ID] = None
    rated: Annotated[bool | None, RATED] = None  # since 1.6
    game: Annotated[str | None, Optional(GAME)] = None  # since 1.7


@_client("play_bot")
@dataclass(frozen=True, slots=True)
class PlayBot(Message):
    """Start a game at once against a bot hosted by the server (rated, since 1.6, for a player
    with an account who asks: it moves their rating half as far as a game against a person)."""

    level: Annotated[str, OneOf(BOT_LEVELS)] = "normal"
    clock: Annotated[str, OneOf(CLOCKS)] = "normal"
    seat: Annotated[str | None, Optional(OneOf(SEATS))] = None
    id: Annotated[int | None, REQUEST_ID] = None
    rated: Annotated[bool | None, RATED] = None
    game: Annotated[str, GAME] = DEFAULT_GAME  # since 1.7


@_client("leave")
@dataclass(frozen=True, slots=True)
class Leave(Message):
    """Close your open table, leave the quick-match queue, or stop watching ``game``."""

    game: Annotated[int | None, Optional(GAME_ID)] = None
    id: Annotated[int | None, REQUEST_ID] = None


@_server("left")
@dataclass(frozen=True, slots=True)
class Left(Message):
    """Confirms ``leave``."""

    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("watch")
@dataclass(frozen=True, slots=True)
class Watch(Message):
    """Watch a public game as a spectator: ``game_state`` now, ``update`` afterwards."""

    game: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


# --------------------------------------------------------------------------- game


@_server("game_state")
@dataclass(frozen=True, slots=True)
class GameState(Message):
    """The whole game as this receiver may see it, on join, resume, watch or ``sync``."""

    game: Annotated[int, GAME_ID]
    version: Annotated[int, Int(0, 2**53)]
    seat: Annotated[str | None, Optional(OneOf(SEATS))]
    players: Annotated[Map, Record("red, blue: {name, kind, connected; since 1.6 rating, provisional}")]
    options: Annotated[Map, Record("the table's options: clock, private, time control; since 1.7 game")]
    view: Annotated[Map, Record("the receiver's view, see 'The view'")]
    clocks: Annotated[Map, Record("see 'Clocks and forfeits'")]
    reply_to: Annotated[int | None, REQUEST_ID] = None
    #: The game's latest events as this receiver may see them, oldest first (since 1.2):
    #: the story so far for a spectator who comes in, or what a player missed while away.
    log: Annotated[Maps, Items("events, see 'Events'", LOG_EVENTS)] = ()
    #: This round's sealed commitments, per seat (since 1.3; a 1.2 client finds them in ``view``).
    commitments: Annotated[dict[str, str] | None, Optional(COMMITMENTS)] = None


@_server("update")
@dataclass(frozen=True, slots=True)
class Update(Message):
    """Events since the last frame, the receiver's view after them, and the clocks.

    ``version`` is the game's version after these events; each event also carries its
    own ``version``.  A client that sees a gap asks ``sync``.
    """

    game: Annotated[int, GAME_ID]
    version: Annotated[int, Int(0, 2**53)]
    events: Annotated[Maps, Items("events, see 'Events'", 4000)]
    view: Annotated[Map, Record("the receiver's view, see 'The view'")]
    clocks: Annotated[Map, Record("see 'Clocks and forfeits'")]
    #: This round's sealed commitments, per seat (since 1.3; a 1.2 client finds them in ``view``).
    commitments: Annotated[dict[str, str] | None, Optional(COMMITMENTS)] = None


def commitments_of(frame: GameState | Update) -> dict[str, str]:
    """The seats' commitments a frame carries: beside the view (1.3), or in it (a 1.2 server)."""
    if frame.commitments is not None:
        return frame.commitments
    in_view: dict[str, str] = frame.view.get("commitments", {})
    return in_view


def as_read_by(frame: Message, minor: int) -> Message | None:
    """``frame`` as a client of protocol 1.``minor`` reads it (None: it is not sent to such a
    client): before 1.3, a view carried the seats' commitments; before 1.5 there was no deal;
    before 1.6 no moderation (its error codes become ``not_allowed``)."""
    if minor < FAIR_DECKS and isinstance(frame, (Deal, DealRevealed)):
        return None
    if minor < MODERATION:
        if isinstance(frame, (Mutes, Reported)):
            return None
        if isinstance(frame, Error) and frame.code in NEWER_ERRORS:
            return replace(frame, code=NEWER_ERRORS[frame.code])
        if isinstance(frame, Bye) and frame.code == "banned":
            return replace(frame, code="misbehaving")
    if minor < ACCOUNTS and isinstance(frame, (Challenge, AccountInfo)):
        return None
    if minor < COMMITMENTS_BESIDE_THE_VIEW and isinstance(frame, (GameState, Update)) and frame.commitments is not None:
        return replace(frame, view={**frame.view, "commitments": frame.commitments})
    return frame


def minor_of(version: str) -> int:
    """The minor number of a "MAJOR.MINOR" version (0 when it is not a number)."""
    minor = version.partition(".")[2]
    return int(minor) if minor.isdigit() else 0


@_server("deal")
@dataclass(frozen=True, slots=True)
class Deal(Message):
    """This game's decks are being fixed by the server and its players (since 1.5; see 'Fair decks').

    ``stage`` "commit": answer ``deal_commit`` with your contribution's commitment; "open": every
    contributing seat's commitment is in ``commitments``: answer ``deal_open``.  ``server`` is the
    server's commitment to its secret; ``fills`` the seats whose part the server fixes (hosted bots,
    older clients).  The game's ``game_state`` follows once the deal is done.
    """

    game: Annotated[int, GAME_ID]
    seat: Annotated[str, OneOf(SEATS)]
    stage: Annotated[str, OneOf(("commit", "open"))]
    server: Annotated[bytes, DEAL_VALUE]
    commitments: Annotated[dict[str, bytes] | None, Optional(MapOf(SEATS, DEAL_VALUE))] = None
    fills: Annotated[dict[str, str] | None, Optional(DEAL_FILLS)] = None


@_client("deal_commit")
@dataclass(frozen=True, slots=True)
class DealCommit(Message):
    """Your sealed contribution to a game's deal (since 1.5): SHA-256 over "aton-deal/1 contribution",
    the game, your seat and 32 random bytes (see 'Fair decks')."""

    game: Annotated[int, GAME_ID]
    digest: Annotated[bytes, DEAL_VALUE]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("deal_open")
@dataclass(frozen=True, slots=True)
class DealOpen(Message):
    """Open your contribution (since 1.5), once ``deal`` says "open"; ``ack`` when it counts."""

    game: Annotated[int, GAME_ID]
    value: Annotated[bytes, DEAL_VALUE]
    id: Annotated[int | None, REQUEST_ID] = None


@_server("deal_revealed")
@dataclass(frozen=True, slots=True)
class DealRevealed(Message):
    """The game is over: the server's secret, the players' opened contributions, how any other seat's
    part was fixed, and the game's record, to check every card you saw (since 1.5; 'Fair decks')."""

    game: Annotated[int, GAME_ID]
    secret: Annotated[bytes, DEAL_VALUE]
    opened: Annotated[dict[str, bytes], MapOf(SEATS, DEAL_VALUE)]
    record: Annotated[Map, Record("an aton-record/1 document: format, seed, moves, meta", max_keys=16)]
    fills: Annotated[dict[str, str] | None, Optional(DEAL_FILLS)] = None


@_client("sync")
@dataclass(frozen=True, slots=True)
class Sync(Message):
    """Ask for the full ``game_state`` again (after a version gap)."""

    game: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("get_record")
@dataclass(frozen=True, slots=True)
class GetRecord(Message):
    """Ask for a finished game's record (players and spectators; not before the end)."""

    game: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


@_server("record")
@dataclass(frozen=True, slots=True)
class GameRecordReply(Message):
    """A finished game's record as a map: the ``aton-record/1`` document (docs/records.md), or (since
    1.7) an Atlas & Zeus game's ``atlas-zeus-record/1`` (see 'Atlas & Zeus')."""

    game: Annotated[int, GAME_ID]
    record: Annotated[Map, Record("a record document: format, seed, moves, meta", max_keys=16)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("get_profile")
@dataclass(frozen=True, slots=True)
class GetProfile(Message):
    """Ask for a player's profile (since 1.6): an account's, or a player's online now, by name;
    yours without a name.  ``page`` (from 0) pages its games, newest first."""

    name: Annotated[str | None, Optional(NAME)] = None
    page: Annotated[int, Int(0, HISTORY_PAGES)] = 0
    id: Annotated[int | None, REQUEST_ID] = None


@_server("profile")
@dataclass(frozen=True, slots=True)
class Profile(Message):
    """A player's profile (since 1.6): their finished games counted, and a page of their games,
    newest first — yours all of them, another player's those you may read the record of (see
    'Profiles and the leaderboard'); ``more``: there is a next page."""

    name: Annotated[str, NAME]
    guest: Annotated[bool, Bool()]
    played: Annotated[int, Int(0, 2**53)]
    won: Annotated[int, Int(0, 2**53)]
    lost: Annotated[int, Int(0, 2**53)]
    drawn: Annotated[int, Int(0, 2**53)]
    games: Annotated[Maps, Items("games: game, started, clock, seat, opponent, opponent_then, opponent_guest, "
                                 "result, reason, rounds, seconds; since 1.7 kind", PROFILE_GAMES)]
    page: Annotated[int, Int(0, HISTORY_PAGES)] = 0
    more: Annotated[bool, Bool()] = False
    #: The player's ratings, per clock: rating, provisional, games (rated); absent for a guest.
    ratings: Annotated[dict[str, Any] | None, Optional(Record("per clock: rating, provisional, games"))] = None
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("get_leaderboard")
@dataclass(frozen=True, slots=True)
class GetLeaderboard(Message):
    """Ask for a clock's leaderboard (since 1.6): the accounts whose rating for it is no longer
    provisional, best first; ``page`` (from 0) pages them."""

    clock: Annotated[str, OneOf(CLOCKS)] = "normal"
    page: Annotated[int, Int(0, HISTORY_PAGES)] = 0
    id: Annotated[int | None, REQUEST_ID] = None


@_server("leaderboard")
@dataclass(frozen=True, slots=True)
class Leaderboard(Message):
    """A page of a clock's leaderboard (since 1.6): ``total`` accounts are ranked; ``more``: there
    is a next page (see 'Profiles and the leaderboard')."""

    clock: Annotated[str, OneOf(CLOCKS)]
    total: Annotated[int, Int(0, 2**53)]
    entries: Annotated[Maps, Items("places: rank, name, kind, rating, rd, games", PROFILE_GAMES)]
    page: Annotated[int, Int(0, HISTORY_PAGES)] = 0
    more: Annotated[bool, Bool()] = False
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("commit")
@dataclass(frozen=True, slots=True)
class Commit(Message):
    """Seal your cartouches: SHA-256 over "aton-commit/1", the four cards and a nonce.  Atlas &
    Zeus (since 1.7): seal your programming, SHA-256 over "atlas-zeus-program/1", its text and a
    nonce, and say the ``slots`` it fills, which everyone sees at once (see 'Atlas & Zeus')."""

    game: Annotated[int, GAME_ID]
    digest: Annotated[bytes, Binary(32, 32)]
    id: Annotated[int | None, REQUEST_ID] = None
    #: Atlas & Zeus (since 1.7): the slots the sealed programming fills.
    slots: Annotated[tuple[int, ...] | None, Optional(ListOf(Int(1, 6), 1, 3))] = None


@_client("open")
@dataclass(frozen=True, slots=True)
class Open(Message):
    """Open your sealed commitment (when asked by the ``open_requested`` event): Aton's four
    ``cards``, or (since 1.7) Atlas & Zeus's programming, ``move``, with the nonce."""

    game: Annotated[int, GAME_ID]
    cards: Annotated[tuple[int, ...] | None, Optional(ListOf(Int(1, 4), 4, 4))]
    nonce: Annotated[bytes, Binary(16, 64)]
    id: Annotated[int | None, REQUEST_ID] = None
    #: Atlas & Zeus (since 1.7): the programming, ``{"kind": "program", "cards": [[slot, card], ...]}``.
    move: Annotated[Map | None, Optional(MOVE)] = None


@_client("act")
@dataclass(frozen=True, slots=True)
class Act(Message):
    """Make a move of Atlas & Zeus (since 1.7): a card's decision during the resolution, an
    option of your view's ``decision``; your programming under Open hand (face up); or resign.
    A malformed move is ``invalid``, an illegal one ``illegal_move`` (the message says why)."""

    game: Annotated[int, GAME_ID]
    move: Annotated[Map, MOVE]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("exchange")
@dataclass(frozen=True, slots=True)
class Exchange(Message):
    """Spend your exchange token (before your commit): discard the hand, draw four."""

    game: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("remove")
@dataclass(frozen=True, slots=True)
class Remove(Message):
    """Remove the stone on (temple, square)."""

    game: Annotated[int, GAME_ID]
    temple: Annotated[int, Int(1, 4)]
    square: Annotated[int, Int(0, 11)]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("place")
@dataclass(frozen=True, slots=True)
class Place(Message):
    """Place a stone on (temple, square)."""

    game: Annotated[int, GAME_ID]
    temple: Annotated[int, Int(1, 4)]
    square: Annotated[int, Int(0, 11)]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("resign")
@dataclass(frozen=True, slots=True)
class Resign(Message):
    """Resign the game."""

    game: Annotated[int, GAME_ID]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("rematch")
@dataclass(frozen=True, slots=True)
class Rematch(Message):
    """After the game: offer a rematch, or answer the opponent's offer (``accept``)."""

    game: Annotated[int, GAME_ID]
    accept: Annotated[bool, Bool()] = True
    id: Annotated[int | None, REQUEST_ID] = None


@_client("pause")
@dataclass(frozen=True, slots=True)
class Pause(Message):
    """Stop your clock (``on``) while you read the help or a dialog, or start it again (since 1.4).

    Only in a game against a bot the server hosts (its ``options`` say ``pause_s``); refused
    with ``not_allowed`` in a game against a person.  A game's pauses add up to at most
    ``pause_s`` seconds, then the clock runs on by itself (the event ``clock_resumed``)."""

    game: Annotated[int, GAME_ID]
    on: Annotated[bool, Bool()] = True
    id: Annotated[int | None, REQUEST_ID] = None


@_client("chat")
@dataclass(frozen=True, slots=True)
class Chat(Message):
    """Say something at the table (players and spectators read it)."""

    game: Annotated[int, GAME_ID]
    text: Annotated[str, Text(1, CHAT_CHARS)]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("mute")
@dataclass(frozen=True, slots=True)
class Mute(Message):
    """Hide that player's chat lines from you (since 1.6): each becomes the event ``chat_hidden``
    in what you receive, and nobody else is told. Kept with your account across sessions (a guest's
    mutes, and mutes of a guest, last as long as the session). Answered by ``mutes``; a name that
    is neither online, an account, nor a player of one of your games is ``not_found``."""

    name: Annotated[str, NAME]
    id: Annotated[int | None, REQUEST_ID] = None


@_client("unmute")
@dataclass(frozen=True, slots=True)
class Unmute(Message):
    """Show that player's chat lines to you again (since 1.6). Answered by ``mutes``."""

    name: Annotated[str, NAME]
    id: Annotated[int | None, REQUEST_ID] = None


@_server("mutes")
@dataclass(frozen=True, slots=True)
class Mutes(Message):
    """The players whose chat lines are hidden from you (since 1.6): the answer to ``mute`` and
    ``unmute``, and sent after ``welcome`` when your account has muted anyone."""

    names: Annotated[tuple[str, ...], ListOf(NAME, 0, MUTES)]
    reply_to: Annotated[int | None, REQUEST_ID] = None


@_client("report")
@dataclass(frozen=True, slots=True)
class Report(Message):
    """Report a player to the server's operator (since 1.6): who (online, or a player of
    ``game``, which you play or watch), and why. A server takes a few a day from one player
    (``rate_limited`` past them). Answered by ``reported``."""

    name: Annotated[str, NAME]
    reason: Annotated[str, Text(1, REPORT_CHARS)]
    game: Annotated[int | None, Optional(GAME_ID)] = None
    id: Annotated[int | None, REQUEST_ID] = None


@_server("reported")
@dataclass(frozen=True, slots=True)
class Reported(Message):
    """Your report is stored for the operator (since 1.6)."""

    reply_to: Annotated[int | None, REQUEST_ID] = None
