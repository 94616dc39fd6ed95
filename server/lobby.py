"""The lobby: who is online, open tables, the quick-match queue and the list of games.

The lobby keeps the lists and tells its subscribers about every change
(``lobby`` snapshot after welcome, ``lobby_update`` afterwards).  Starting a game
is the server's job: the lobby hands it the two participants.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.names import player_name, skeleton, with_suffix

from .hosted_bots import bot_name

if TYPE_CHECKING:
    from .connection import Connection
    from .room import Room

INVITE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1")


def reserved_names(server_name: str) -> tuple[str, ...]:
    """The names no player may take or imitate: the hosted bots', and the server's own, as
    ``welcome`` names it and as it speaks of itself ("the server")."""
    return (*(bot_name(level) for level in m.BOT_LEVELS), server_name, "server")


def looks(name: str) -> str:
    """What a name online looks like: two names that look alike are not both online."""
    return skeleton(name) or name.casefold()


@dataclass
class OpenTable:
    table: int
    host: "Connection"
    clock: str
    private: bool
    invite: str | None
    since: float = field(default_factory=time.time)

    def entry(self) -> dict:
        return {"table": self.table, "host": self.host.name, "clock": self.clock,
                "private": self.private, "since": int(self.since)}


class Lobby:
    def __init__(self, start_game: Callable[["Connection", "Connection", str, int | None, bool], None],
                 reserved: tuple[str, ...] = ()) -> None:
        self._start_game = start_game
        self.reserved = reserved  # names no player may take (``reserved_names``)
        self.online: dict[str, "Connection"] = {}  # name -> connection
        self.looks_online: set[str] = set()  # what each name online looks like (``looks``)
        self.status: dict[str, str] = {}  # name -> lobby, waiting, playing, watching
        self.tables: dict[int, OpenTable] = {}
        self.invites: dict[str, int] = {}
        self.queue: dict[str, "Connection"] = {}  # clock -> the one waiting connection
        self.games: dict[int, dict] = {}  # game id -> lobby entry
        self.subscribers: set["Connection"] = set()

    # ------------------------------------------------------------------ presence

    def admit_name(self, proposed: str) -> str:
        """The name a newcomer proposes, normalised; ProtocolError says why it cannot be one."""
        return player_name(proposed, self.reserved)

    def unique_name(self, wanted: str) -> str:
        """``wanted``, or ``wanted-2``, ``wanted-3``… if someone online has it or one like it."""
        name, n = wanted, 1
        while looks(name) in self.looks_online:
            n += 1
            name = with_suffix(wanted, f"-{n}")
        return name

    def arrive(self, conn: "Connection") -> None:
        self.online[conn.name] = conn
        self.looks_online.add(looks(conn.name))
        self.status[conn.name] = "lobby"
        self._broadcast("players", "add", self._player_entry(conn.name))
        if conn.lobby_subscribed:
            self.subscribers.add(conn)
            conn.deliver(self.snapshot())

    def depart(self, conn: "Connection") -> None:
        self.subscribers.discard(conn)
        self._withdraw(conn)
        if self.online.get(conn.name) is conn:
            del self.online[conn.name]
            self.looks_online.discard(looks(conn.name))
            self.status.pop(conn.name, None)
            self._broadcast("players", "remove", {"name": conn.name})

    def set_status(self, name: str, status: str) -> None:
        if name in self.online and self.status.get(name) != status:
            self.status[name] = status
            self._broadcast("players", "update", self._player_entry(name))

    def _player_entry(self, name: str) -> dict:
        conn = self.online[name]
        return {"name": name, "kind": conn.kind, "status": self.status.get(name, "lobby")}

    def snapshot(self) -> m.Lobby:
        return m.Lobby(
            players=tuple(self._player_entry(n) for n in self.online),
            tables=tuple(t.entry() for t in self.tables.values() if not t.private),
            games=tuple(self.games.values()),
        )

    def _broadcast(self, section: str, op: str, item: dict) -> None:
        if not self.subscribers:
            return
        update = m.LobbyUpdate(section=section, op=op, item=item)
        for conn in list(self.subscribers):
            conn.deliver(update)

    # ------------------------------------------------------------------ tables

    def create_table(self, conn: "Connection", table_id: int, clock: str, private: bool) -> OpenTable:
        self._withdraw(conn)
        invite = None
        if private:
            invite = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(6))
            self.invites[invite] = table_id
        table = OpenTable(table_id, conn, clock, private, invite)
        self.tables[table_id] = table
        self.set_status(conn.name, "waiting")
        if not private:
            self._broadcast("tables", "add", table.entry())
        return table

    def join_table(self, conn: "Connection", table_id: int) -> None:
        table = self.tables.get(table_id)
        if table is None or table.private:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no open public table {table_id}")
        self._sit_down(conn, table)

    def join_invite(self, conn: "Connection", code: str) -> None:
        table_id = self.invites.get(code.upper())
        if table_id is None or table_id not in self.tables:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no open table has the invite code {code!r}")
        self._sit_down(conn, self.tables[table_id])

    def _sit_down(self, conn: "Connection", table: OpenTable) -> None:
        if table.host is conn:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot join your own table")
        self._withdraw(conn)
        self._close_table(table)
        self._start_game(table.host, conn, table.clock, table.table, table.private)

    def quick_match(self, conn: "Connection", clock: str) -> bool:
        """Pair with the waiting player, or wait.  True when a game started."""
        waiting = self.queue.get(clock)
        if waiting is conn:
            return False
        self._withdraw(conn)
        if waiting is None or waiting.closed.is_set():
            self.queue[clock] = conn
            self.set_status(conn.name, "waiting")
            return False
        del self.queue[clock]
        self._start_game(waiting, conn, clock, None, False)
        return True

    def leave(self, conn: "Connection") -> None:
        self._withdraw(conn)
        self.set_status(conn.name, "lobby")

    def _withdraw(self, conn: "Connection") -> None:
        """Close the connection's open table and take it out of the queue."""
        for table in [t for t in self.tables.values() if t.host is conn]:
            self._close_table(table)
        for clock in [c for c, waiting in self.queue.items() if waiting is conn]:
            del self.queue[clock]

    def _close_table(self, table: OpenTable) -> None:
        self.tables.pop(table.table, None)
        if table.invite:
            self.invites.pop(table.invite, None)
        if not table.private:
            self._broadcast("tables", "remove", {"table": table.table})

    # ------------------------------------------------------------------ games

    def game_changed(self, room: "Room") -> None:
        """Keep the lobby's entry of a game in step (only real changes are broadcast)."""
        if room.game.is_over:
            if self.games.pop(room.game_id, None) is not None:
                self._broadcast("games", "remove", {"game": room.game_id})
            return
        if room.options.get("private"):
            return
        entry = {
            "game": room.game_id,
            **room.player_names(),
            "clock": room.options.get("clock"),
            "spectators": len(room.spectators),
            **room.game.summary(),
        }
        old = self.games.get(room.game_id)
        if old != entry:
            self.games[room.game_id] = entry
            self._broadcast("games", "add" if old is None else "update", entry)
