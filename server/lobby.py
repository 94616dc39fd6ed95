"""The lobby: who is online, open tables, the quick-match queue and the list of games.

The lobby keeps three lists — the players online, the open public tables and the public
games — and tells its subscribers about their changes (``lobby_update``), gathered: the
entries that changed within ``Limits.lobby_update_interval`` go out together at its end,
each once with its latest state (one that came and went meanwhile not at all), so that
fifty players arriving at once cost every subscriber one batch of updates and one redraw,
not fifty.  A subscriber that was sent a snapshot or a page meanwhile (a newcomer) saw some
of those changes already: it gets only what differs from what it was shown.  A newcomer gets
the first page of each list (``lobby``) and asks for the others (``get_lobby_page``): a
page holds at most ``Limits.lobby_page_entries`` entries, and only as many as fit in a
frame, counted from their encoded size, so a lobby of any size and any names reaches every
client.  Starting a game is the server's job: the lobby hands it the two participants.
"""

from __future__ import annotations

import bisect
import secrets
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import encode_payload
from protocol.names import name_key, player_name, with_suffix

from .accounts import bot_name
from .clock import Clock, LoopClock, Timer
from .config import Limits

if TYPE_CHECKING:
    from .connection import Connection
    from .room import Room


def check_may_play_rated(conn: Connection, what: str) -> None:
    """Refuse a guest a rated game (``what``: the request, in the player's words)."""
    if conn.account is None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{what}: rated games are for players with an account; "
                            "a guest plays casual games")

def check_client_plays(conn: Connection, game: str) -> None:
    """Refuse a client older than 1.7 a game other than Aton, the one game it knows."""
    if game != m.DEFAULT_GAME and conn.protocol_minor < m.TWO_GAMES:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"that is a game of {game}, which your client does not know: "
                            f"update it (protocol 1.{m.TWO_GAMES} or later)")


INVITE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1")


def reserved_names(server_name: str) -> tuple[str, ...]:
    """The names no player may take or imitate: the hosted bots', and the server's own, as
    ``welcome`` names it and as it speaks of itself ("the server")."""
    return (*(bot_name(level) for level in m.BOT_LEVELS), server_name, "server")


#: A lobby entry as someone last saw it: its map, or None when it was not there.
Seen = dict | None
#: An entry of a section: (section, key).
EntryKey = tuple[str, Any]

#: A msgpack array's header grows from 1 byte (up to 15 items) to 3 (up to 65,535).
ARRAY_HEADER_GROWTH = 2


class LobbySection:
    """One of the lobby's lists: its entries by key, and the keys in the section's order
    (``protocol.messages.lobby_order``), so that any page of it is cut at once."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.entries: dict[Any, dict] = {}
        self._order: list[tuple[Any, Any]] = []  # (place in the order, key) of every entry, sorted

    def __len__(self) -> int:
        return len(self.entries)

    def put(self, key: Any, entry: dict) -> bool:
        """Add or replace the entry of ``key``; True if it is new."""
        new = key not in self.entries
        if new:
            bisect.insort(self._order, (m.lobby_order(self.name, key), key))
        self.entries[key] = entry
        return new

    def pop(self, key: Any) -> bool:
        """Remove the entry of ``key``; True if there was one."""
        if self.entries.pop(key, None) is None:
            return False
        del self._order[bisect.bisect_left(self._order, (m.lobby_order(self.name, key), key))]
        return True

    def page(self, offset: int, most: int, room: int) -> tuple[dict, ...]:
        """The entries from ``offset`` on, in order: at most ``most``, and at most ``room``
        bytes of them once encoded."""
        page: list[dict] = []
        for _, key in self._order[offset:offset + most]:
            entry = self.entries[key]
            room -= len(encode_payload(entry))
            if room < 0:
                break
            page.append(entry)
        return tuple(page)


@dataclass
class OpenTable:
    table: int
    host: Connection
    clock: str
    private: bool
    invite: str | None
    rated: bool = False
    host_rating: dict | None = None  # the host's rating for the clock, as the wire shows it
    since: float = field(default_factory=time.time)
    game: str = m.DEFAULT_GAME  # the game played at the table (``server.games``)

    def entry(self) -> dict:
        entry = {"table": self.table, "host": self.host.name, "kind": self.game, "clock": self.clock,
                 "private": self.private, "since": int(self.since), "rated": self.rated}
        return entry if self.host_rating is None else {**entry, "rating": self.host_rating}


#: A place in the quick-match queue: the game, the clock, and whether the game is rated.
QueueKey = tuple[str, str, bool]


def no_ratings(conn: Connection) -> dict | None:
    return None


class Lobby:
    def __init__(self, start_game: Callable[[Connection, Connection, str, str, int | None, bool, bool], None],
                 limits: Limits, reserved: tuple[str, ...] = (),
                 ratings_of: Callable[[Connection], dict | None] = no_ratings,
                 bot_ratings: Callable[[], dict | None] = lambda: None, clock: Clock | None = None) -> None:
        """``start_game(host, guest, game, clock, table, private, rated)`` starts a game;
        ``ratings_of`` gives a player's ratings, per clock, as their lobby entry shows them;
        ``bot_ratings`` the hosted bots' (per level, per clock), as the snapshot tells them;
        ``clock`` times the batches of updates (the event loop's by default)."""
        self._start_game = start_game
        self._ratings_of = ratings_of
        self._bot_ratings = bot_ratings
        self.limits = limits
        self.reserved = reserved  # names no player may take (``reserved_names``)
        self.online: dict[str, Connection] = {}  # name -> connection
        #: an account's other connections under its name (the latest is in ``online``), oldest first
        self.also_online: dict[str, list[Connection]] = {}
        self.looks_online: set[str] = set()  # what each name online looks like (``name_key``)
        self.tables: dict[int, OpenTable] = {}  # every open table, private ones too
        self.invites: dict[str, int] = {}
        self.queue: dict[QueueKey, Connection] = {}  # (game, clock, rated) -> the one waiting connection
        #: what subscribers see: players (status lobby, waiting, playing, watching), public tables and games
        self.sections = {name: LobbySection(name) for name in m.LOBBY_SECTIONS}
        #: each listed game's ``Room.lobby_signature`` when its entry was last built (while it is in play)
        self._game_signatures: dict[int, tuple] = {}
        #: the games in play that changed since their entries were last brought up to date: a game
        #: changes at every move, its entry is looked at once a batch (``_refresh_games``)
        self._games_changed: dict[int, Room] = {}
        self.subscribers: set[Connection] = set()
        #: every entry changed since the last batch, in the order of their first change, with what
        #: the subscribers were last told of it
        self.changed: dict[EntryKey, Seen] = {}
        #: what a snapshot or a page has shown a connection since the last batch, of entries in ``changed``
        self.shown: dict[Connection, dict[EntryKey, Seen]] = {}
        self.clock = clock or LoopClock()
        self._batch: Timer | None = None  # the end of the current interval, once something changed

    # ------------------------------------------------------------------ presence

    def admit_name(self, proposed: str) -> str:
        """The name a newcomer proposes, normalised; ProtocolError says why it cannot be one."""
        return player_name(proposed, self.reserved)

    def unique_name(self, wanted: str) -> str:
        """``wanted``, or ``wanted-2``, ``wanted-3``… if someone online has it or one like it."""
        name, n = wanted, 1
        while name_key(name) in self.looks_online:
            n += 1
            name = with_suffix(wanted, f"-{n}")
        return name

    def arrive(self, conn: Connection) -> None:
        """A newcomer is online (an account's second connection shares its one entry)."""
        self._list(conn, "lobby")
        if conn.lobby_subscribed:
            self.subscribers.add(conn)
            conn.deliver(self.snapshot())
            self._showing(conn, m.LOBBY_SECTIONS)

    def _list(self, conn: Connection, status: str) -> None:
        """List ``conn`` under its name, with ``status`` (an account's other connection under that
        name keeps the entry's)."""
        earlier = self.online.get(conn.name)
        if earlier is not None and earlier is not conn:
            self.also_online.setdefault(conn.name, []).append(earlier)
            status = self.sections["players"].entries.get(conn.name, {}).get("status", status)
        self.online[conn.name] = conn
        self.looks_online.add(name_key(conn.name))
        self._put("players", conn.name, self._player_entry(conn, status))

    def depart(self, conn: Connection) -> None:
        self.subscribers.discard(conn)
        self.shown.pop(conn, None)
        self._withdraw(conn)
        self._unlist(conn)

    def _unlist(self, conn: Connection) -> None:
        others = self.also_online.get(conn.name, [])
        if conn in others:
            others.remove(conn)
        elif self.online.get(conn.name) is conn:
            if others:
                self.online[conn.name] = others.pop()
            else:
                del self.online[conn.name]
                self.looks_online.discard(name_key(conn.name))
                self._pop("players", conn.name)
        if not others:
            self.also_online.pop(conn.name, None)

    def rename(self, conn: Connection, name: str) -> None:
        """An account was renamed: its connection is listed under its new name."""
        status = self.sections["players"].entries.get(conn.name, {}).get("status", "lobby")
        self._unlist(conn)
        conn.name = name
        self._list(conn, status)

    def _player_entry(self, conn: Connection, status: str) -> dict:
        entry = {"name": conn.name, "kind": conn.kind, "status": status}
        ratings = self._ratings_of(conn)
        return entry if ratings is None else {**entry, "ratings": ratings}

    def ratings_changed(self, conn: Connection) -> None:
        """A player's ratings changed (a rated game ended): their entry shows the new ones."""
        entry = self.sections["players"].entries.get(conn.name)
        if entry is not None and self.online.get(conn.name) is conn:
            self._put("players", conn.name, self._player_entry(conn, entry["status"]))

    def set_status(self, name: str, status: str) -> None:
        entry = self.sections["players"].entries.get(name)
        if entry is not None and entry["status"] != status:
            self._put("players", name, {**entry, "status": status})

    # ------------------------------------------------------------------ the lists and their pages

    def snapshot(self) -> m.Lobby:
        """The first page of every section, all of them in one frame."""
        self._refresh_games()
        empty = m.Lobby(players=(), tables=(), games=(),
                        totals={name: len(section) for name, section in self.sections.items()},
                        bots=self._bot_ratings())
        room = self._room(empty, lists=len(self.sections))
        first = {name: section.page(0, self.limits.lobby_page_entries, room)
                 for name, section in self.sections.items()}
        return replace(empty, players=first["players"], tables=first["tables"], games=first["games"])

    def page(self, conn: Connection, request: m.GetLobbyPage) -> m.LobbyPage:
        """The page of a section ``conn`` asked for (empty past the end)."""
        self._refresh_games()
        section = self.sections[request.section]
        empty = m.LobbyPage(section=request.section, offset=request.offset, total=len(section), entries=(),
                            reply_to=request.id)
        entries = section.page(request.offset, self.limits.lobby_page_entries, self._room(empty))
        self._showing(conn, (request.section,))
        return replace(empty, entries=entries)

    def _showing(self, conn: Connection, sections: tuple[str, ...]) -> None:
        """``conn`` is shown ``sections`` as they are now (their totals too): of the entries that
        changed since the last batch, it will be told only what changes after this."""
        if conn in self.subscribers and self.changed:
            shown = self.shown.setdefault(conn, {})
            for section, key in self.changed:
                if section in sections:
                    shown[(section, key)] = self.sections[section].entries.get(key)

    def _room(self, empty: m.Message, lists: int = 1) -> int:
        """The bytes each of the ``lists`` empty lists of a message may take once filled, so
        that the message still fits in a frame."""
        return (self.limits.frame_bytes - len(encode_payload(empty.to_wire()))) // lists - ARRAY_HEADER_GROWTH

    def _put(self, section: str, key: Any, entry: dict) -> None:
        self._changing(section, key)
        self.sections[section].put(key, entry)
        self._changed()

    def _pop(self, section: str, key: Any) -> None:
        if key in self.sections[section].entries:
            self._changing(section, key)
            self.sections[section].pop(key)
            self._changed()

    def _changing(self, section: str, key: Any) -> None:
        """Keep what the subscribers were last told of an entry about to change."""
        if (section, key) not in self.changed:
            self.changed[(section, key)] = self.sections[section].entries.get(key)

    def _changed(self) -> None:
        """Something changed: it goes out with the rest at the end of the interval."""
        if self.limits.lobby_update_interval <= 0:
            self.publish()
        elif self._batch is None:
            self._batch = self.clock.call_later(self.limits.lobby_update_interval, self.publish)

    def publish(self) -> None:
        """Tell every subscriber what changed since the last batch: each changed entry once, as
        it is now, in the order of their first change; nothing of an entry that is as they were
        last told (or shown).  Each update is sent to everyone in turn, so it is encoded once."""
        if self._batch is not None:
            self._batch.cancel()
            self._batch = None
        self._refresh_games()
        changed, self.changed = self.changed, {}
        shown, self.shown = self.shown, {}
        for (section, key), told in changed.items():
            now = self.sections[section].entries.get(key)
            update = lobby_update(section, key, told, now)
            for conn in list(self.subscribers):
                seen = shown.get(conn, {})
                if (section, key) in seen:
                    own = lobby_update(section, key, seen[(section, key)], now)
                    if own is not None:
                        conn.deliver(own)
                elif update is not None:
                    conn.deliver(update)

    def stop(self) -> None:
        """No more batches (the server stops)."""
        if self._batch is not None:
            self._batch.cancel()
            self._batch = None

    # ------------------------------------------------------------------ tables

    def create_table(self, conn: Connection, table_id: int, clock: str, private: bool, rated: bool = False,
                     host_rating: dict | None = None, game: str = m.DEFAULT_GAME) -> OpenTable:
        self._withdraw(conn)
        invite = None
        if private:
            invite = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(6))
            self.invites[invite] = table_id
        table = OpenTable(table_id, conn, clock, private, invite, rated, host_rating, game=game)
        self.tables[table_id] = table
        self.set_status(conn.name, "waiting")
        if not private:
            self._put("tables", table_id, table.entry())
        return table

    def join_table(self, conn: Connection, table_id: int) -> None:
        table = self.tables.get(table_id)
        if table is None or table.private:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no open public table {table_id}")
        self._sit_down(conn, table)

    def join_invite(self, conn: Connection, code: str) -> None:
        table_id = self.invites.get(code.upper())
        if table_id is None or table_id not in self.tables:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open table has the invite code {code!r}")
        self._sit_down(conn, self.tables[table_id])

    def _sit_down(self, conn: Connection, table: OpenTable) -> None:
        if table.host is conn:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot join your own table")
        check_client_plays(conn, table.game)
        if table.rated:
            check_may_play_rated(conn, "this table is rated")
            if conn.account == table.host.account:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot play a rated game against yourself")
        self._withdraw(conn)
        self._close_table(table)
        self._start_game(table.host, conn, table.game, table.clock, table.table, table.private, table.rated)

    def quick_match(self, conn: Connection, clock: str, rated: bool = False, game: str = m.DEFAULT_GAME) -> bool:
        """Pair with the player waiting for the same game, clock and rating, or wait.  True when a
        game started."""
        key = (game, clock, rated)
        waiting = self.queue.get(key)
        if waiting is conn:
            return False
        if rated and waiting is not None and not waiting.closed.is_set() and waiting.account == conn.account:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you wait for a rated quick match from another connection: "
                                "you cannot play a rated game against yourself")
        self._withdraw(conn)
        if waiting is None or waiting.closed.is_set():
            self.queue[key] = conn
            self.set_status(conn.name, "waiting")
            return False
        del self.queue[key]
        self._start_game(waiting, conn, game, clock, None, False, rated)
        return True

    def leave(self, conn: Connection) -> None:
        self._withdraw(conn)
        self.set_status(conn.name, "lobby")

    def _withdraw(self, conn: Connection) -> None:
        """Close the connection's open table and take it out of the queue."""
        for table in [t for t in self.tables.values() if t.host is conn]:
            self._close_table(table)
        for key in [k for k, waiting in self.queue.items() if waiting is conn]:
            del self.queue[key]

    def _close_table(self, table: OpenTable) -> None:
        self.tables.pop(table.table, None)
        if table.invite:
            self.invites.pop(table.invite, None)
        self._pop("tables", table.table)

    # ------------------------------------------------------------------ games

    def game_changed(self, room: Room) -> None:
        """Keep the lobby's entry of a game in step (only real changes are broadcast).  Called
        after every move: a game over leaves the list at once; one in play has its entry brought
        up to date when it is next shown or its batch goes out (``_refresh_games``)."""
        if room.game.is_over:
            self._games_changed.pop(room.game_id, None)
            self._game_signatures.pop(room.game_id, None)
            self._pop("games", room.game_id)
        elif room.game_id not in self._games_changed and not room.options.get("private"):
            self._games_changed[room.game_id] = room
            self._changed()

    def _refresh_games(self) -> None:
        """Bring the entries of the games changed since the last look up to date; one is built
        again only when its game's ``lobby_signature`` changed.  (A batch is due already: the
        change that listed the game here asked for one.)"""
        changed, self._games_changed = self._games_changed, {}
        for room in changed.values():
            self._refresh_game(room)

    def _refresh_game(self, room: Room) -> None:
        signature = room.lobby_signature()
        if self._game_signatures.get(room.game_id) == signature:
            return
        self._game_signatures[room.game_id] = signature
        entry = {
            "game": room.game_id,
            "kind": room.game.name,
            **room.player_names(),
            "clock": room.options.get("clock"),
            "spectators": len(room.spectators),
            **room.game.summary(),
            "rated": bool(room.options.get("rated")),
        }
        ratings = {str(seat): held.rating for seat, held in room.seats.items() if held.rating is not None}
        if ratings:
            entry["ratings"] = ratings
        if self.sections["games"].entries.get(room.game_id) != entry:
            self._changing("games", room.game_id)
            self.sections["games"].put(room.game_id, entry)


def lobby_update(section: str, key: Any, told: Seen, now: Seen) -> m.LobbyUpdate | None:
    """The update that brings an entry from what a subscriber was told to what it is now (None:
    nothing to say)."""
    if now is None:
        return None if told is None else m.LobbyUpdate(section=section, op="remove",
                                                       item={m.LOBBY_KEYS[section]: key})
    if now == told:
        return None
    return m.LobbyUpdate(section=section, op="add" if told is None else "update", item=now)
