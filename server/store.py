"""Persistence: every game, its seats, its accepted moves and its sealed commitments, in SQLite
(and, for a game in progress when the server stopped cleanly, its log and clocks: ``Pause``).

Writes are group-committed: each write method queues its statements, and
``commit`` runs everything queued in one transaction.  The server commits at the
end of every event-loop turn, before it sends any frame of that turn
(``server.connection.Outbox``), so a move is stored before it is acknowledged or
broadcast and a crash can lose nothing anyone has seen, while one commit serves
every move accepted in the turn.  WAL mode with ``synchronous=NORMAL`` makes a
commit durable against a process crash (SIGKILL); an operating-system crash may
lose the last moments.  Reads commit first, so they see every earlier write.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from protocol import messages as m

from .accounts import create_tables as accounts_tables
from .moderation import create_tables as moderation_tables
from .private_files import keep_private, private_umask
from .ratings import bot_levels_respaced
from .ratings import create_tables as ratings_tables

_JSON = msgspec.json.Encoder()


def _json(value: object) -> str:
    """A move's (or a seal's claim's) map as the JSON text stored: written for every move, so by
    msgspec, a tenth of ``json.dumps``'s time; ``json.loads`` reads it as it reads older rows."""
    return _JSON.encode(value).decode()

#: The tables as the last release before schema versions (``PRAGMA user_version`` 0) made them.
TABLES_BEFORE_VERSIONS = (
    """CREATE TABLE IF NOT EXISTS games (
        id INTEGER PRIMARY KEY,
        seed INTEGER NOT NULL,
        rules TEXT NOT NULL,
        options TEXT NOT NULL,
        seats TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'over')),
        result TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        finished REAL
    )""",
    """CREATE TABLE IF NOT EXISTS moves (
        game INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        seat TEXT NOT NULL,
        move TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS seals (
        game INTEGER NOT NULL REFERENCES games(id),
        seat TEXT NOT NULL,
        digest BLOB,
        move TEXT,
        nonce BLOB,
        PRIMARY KEY (game, seat)
    )""",
    """CREATE TABLE IF NOT EXISTS pauses (
        game INTEGER PRIMARY KEY REFERENCES games(id),
        version INTEGER NOT NULL,
        log TEXT NOT NULL,
        seats TEXT NOT NULL
    )""",
)
#: Columns those releases added to a table already released, for a database made by an earlier
#: one (``CREATE TABLE IF NOT EXISTS`` leaves an existing table as it is): (table, column,
#: declaration, the statement that fills it from what such a database holds, if any).
COLUMNS_ADDED_BEFORE_VERSIONS = (
    ("seals", "nonce", "BLOB", None),
    # A seal held its cards only (an Aton commit); their column stays, unread.
    ("seals", "move", "TEXT",
     "UPDATE seals SET move = json_object('move', 'commit', 'cards', json(cards)) WHERE cards IS NOT NULL"),
)


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _unversioned_to_1(db: sqlite3.Connection) -> None:
    """Any database of the releases before schema versions (or a new, empty one) to version 1:
    the tables it lacks, and the columns added to them since their first release."""
    for statement in TABLES_BEFORE_VERSIONS:
        db.execute(statement)
    for table, column, declaration, fill in COLUMNS_ADDED_BEFORE_VERSIONS:
        if column not in _columns(db, table):
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            if fill is not None:
                db.execute(fill)


#: The migrations, in order: the n-th (from 1) brings a database of schema version n - 1 to
#: version n.  Each runs in one transaction with the version it makes, so a database is always
#: at one version or the next, never between.  Add a migration at the end; never change one
#: that was released.
def _deals(db: sqlite3.Connection) -> None:
    """Version 2: what fixed each game's seed with its players (``server.fair_deal.DealSecrets`` as
    JSON; NULL for the games before, and on a server that deals from fixed seeds)."""
    db.execute("ALTER TABLE games ADD COLUMN deal TEXT")


def _game_players(db: sqlite3.Connection) -> None:
    """Version 4: who played each game, one row per seat, so that a player's games are found by
    an index (``Store.games_of``): the session (its resume token's hash) and the account (None:
    a guest, or a game from before accounts).  Filled from the games' ``seats``."""
    db.execute("""CREATE TABLE game_players (
        game INTEGER NOT NULL REFERENCES games(id),
        seat TEXT NOT NULL,
        token_hash TEXT,
        account INTEGER,
        PRIMARY KEY (game, seat)
    )""")
    db.execute("CREATE INDEX game_players_by_session ON game_players (token_hash, game)")
    db.execute("CREATE INDEX game_players_by_account ON game_players (account, game)")
    db.execute("INSERT INTO game_players (game, seat, token_hash, account) "
               "SELECT games.id, seat.key, json_extract(seat.value, '$.token_hash'), "
               "json_extract(seat.value, '$.account') FROM games, json_each(games.seats) AS seat")


def _game_kinds(db: sqlite3.Connection) -> None:
    """Version 7: each game's kind ("aton" for every game before, the only one then hosted), and
    each seal's claim: what the game shows of it before it is opened (JSON; NULL: nothing, as for
    Aton's)."""
    db.execute("ALTER TABLE games ADD COLUMN game TEXT NOT NULL DEFAULT 'aton'")
    db.execute("ALTER TABLE seals ADD COLUMN claim TEXT")


def _move_versions(db: sqlite3.Connection) -> None:
    """Version 9: each move's row holds the game's version once it was played (NULL for the moves
    before), so that storing a move writes that row alone: ``games.version`` is written when the
    game ends, and a game's version is the later of the two (``Store._loaded``)."""
    db.execute("ALTER TABLE moves ADD COLUMN version INTEGER")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _unversioned_to_1,
    _deals,
    accounts_tables,  # version 3: accounts and their keys; the SSH gateway's remembered keys become accounts
    _game_players,  # version 4: who played each game, by session and account
    moderation_tables,  # version 5: bans, chat mutes, players' own mutes, reports, logins
    ratings_tables,  # version 6: each account's rating per clock, and each rated game's changes
    _game_kinds,  # version 7: each game's kind, each seal's claim
    bot_levels_respaced,  # version 8: the hosted bots of the re-spaced levels start their ratings again
    _move_versions,  # version 9: each move's row holds the game's version after it
)
#: The schema version this code reads and writes.
SCHEMA_VERSION = len(MIGRATIONS)


class NewerSchema(Exception):
    """The database was written by a newer release; this one refuses to open it."""


class StoreFailed(Exception):
    """The store refuses to write after a failed commit."""


@dataclass
class StoredGame:
    id: int
    seed: int
    rules: dict
    options: dict
    seats: dict  # seat name -> {name, kind, token_hash, level}
    status: str
    result: dict | None
    version: int  # the game's version when it was last stored: its row's or its last move's, the later
    moves: list[tuple[str, dict]]
    #: seat name -> {"digest": bytes | None, "move": dict | None, "nonce": bytes | None, "claim": JSON value},
    #: in sealing order
    seals: dict
    pause: Pause | None = None  # what the server kept of the game when it last stopped cleanly
    deal: str | None = None  # what fixed its seed with its players (JSON), if anything did
    created: float = 0.0  # when it started (seconds since the epoch)
    finished: float | None = None  # when it ended
    move_times: list[float] = field(default_factory=list)  # when each of ``moves`` was stored
    #: what the rated game did to each account's rating: account -> (before, after, RD after)
    rating_changes: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    game: str = m.DEFAULT_GAME  # its kind (``server.games``)


@dataclass(frozen=True)
class GameRow:
    """A stored game without its moves: what a list of someone's games shows."""

    id: int
    options: dict
    seats: dict  # seat name -> {name, kind, token_hash, level, ...}
    status: str
    result: dict | None
    created: float
    finished: float | None
    game: str = m.DEFAULT_GAME  # its kind


@dataclass
class Pause:
    """What a clean stop keeps of a game in progress beyond its moves, so that it resumes as it
    was: the game's version, the recent events each receiver saw (by seat name, "" for everyone
    else), and each seat's clock and presence: {"for": what its deadline was for, "remaining":
    seconds, "strikes": time-outs, "connected": whether its player was there}.  A crash keeps
    none of it: the game then resumes from its moves, with no log and fresh clocks."""

    version: int
    log: dict[str, list[dict]]
    seats: dict[str, dict]


#: The columns of ``games`` a ``StoredGame`` is made from (``Store._loaded``).
_GAME_COLUMNS = "id, seed, rules, options, seats, status, result, version, deal, created, finished, game"
#: The parameters of one row of a statement.
Row = tuple[object, ...]


class Store:
    """The database.  ``on_write`` is called when a write is queued and nothing was before it
    (the server uses it to make sure a commit follows in the same loop turn)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.on_write: Callable[[], None] | None = None
        self.failure: sqlite3.Error | None = None  # the error of a failed commit: no more writes
        self._queued: list[tuple[str, Row | list[Row]]] = []
        if str(path) != ":memory:":
            keep_private(self.path)
        with private_umask():  # the files SQLite creates now: the database, its -wal and -shm
            self.db = sqlite3.connect(self.path, isolation_level=None)
            try:
                self.schema_version = self._refuse_newer()
            except NewerSchema:
                self.db.close()
                raise
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def _refuse_newer(self) -> int:
        """The database's schema version; NewerSchema (before anything is written) if it is
        newer than this code's."""
        version: int = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise NewerSchema(
                f"{self.path} was written by a newer release of aton-server (schema version {version}; "
                f"this release knows versions up to {SCHEMA_VERSION}): run the newer release, "
                "or restore a backup made before it")
        return version

    def _migrate(self) -> None:
        """Bring the schema to ``SCHEMA_VERSION``, one migration per transaction.  A database
        that holds anything is first copied beside itself (``backup_before_migrating``)."""
        if self.schema_version == SCHEMA_VERSION:
            return
        if self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            self.backup_before_migrating()
        for version in range(self.schema_version + 1, SCHEMA_VERSION + 1):
            self.db.execute("BEGIN IMMEDIATE")
            try:
                MIGRATIONS[version - 1](self.db)
                self.db.execute(f"PRAGMA user_version = {version}")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            self.schema_version = version

    def backup_before_migrating(self) -> Path | None:
        """Copy the database, as it is, to ``<path>.schema-<version>.bak`` (0600), unless it
        lives in memory or that copy exists already (from an earlier start); return the copy."""
        if str(self.path) == ":memory:":
            return None
        copy = self.path.with_name(f"{self.path.name}.schema-{self.schema_version}.bak")
        if copy.exists():
            return copy
        with private_umask():
            target = sqlite3.connect(copy)
        try:
            self.db.backup(target)
        finally:
            target.close()
        return copy

    def close(self) -> None:
        if self.failure is None:
            self.commit()
        self.db.close()

    def _queue(self, sql: str, params: Row | list[Row] = ()) -> None:
        """Queue a statement for the next commit: ``params`` is a tuple for one row, a list of
        tuples for many (``executemany``)."""
        if not self._queued and self.on_write is not None:
            self.on_write()
        self._queued.append((sql, params))

    def write(self, sql: str, params: Row | list[Row] = ()) -> None:
        """Queue a write of another module's tables (``server.moderation``) for the next commit,
        with the turn's other writes."""
        self._queue(sql, params)

    def commit(self) -> None:
        """Run every queued statement in one transaction (none of them if one fails).

        After a failed commit the games in memory are ahead of the database, so nothing
        more is ever written: every later commit raises ``StoreFailed`` (the server stops,
        and a restart resumes every game from what the database holds).
        """
        if self.failure is not None:
            self._queued.clear()
            raise StoreFailed(f"an earlier write failed: {self.failure}")
        if not self._queued:
            return
        queued, self._queued = self._queued, []
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in queued:
                    if isinstance(params, list):
                        self.db.executemany(sql, params)
                    else:
                        self.db.execute(sql, params)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self.failure = exc
            raise

    def next_game_id(self) -> int:
        self.commit()
        row = self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()
        return row[0] + 1

    def create_game(self, game_id: int, seed: int, rules: dict, options: dict, seats: dict[Hashable, dict],
                    deal: str | None = None, game: str = m.DEFAULT_GAME) -> None:
        """A new game of the kind ``game``; ``seats`` gives each seat's player (stored by the
        seat's name); ``deal`` what fixed its seed with the players."""
        seats_by_name = {str(seat): info for seat, info in seats.items()}
        self._queue(
            "INSERT INTO games (id, seed, rules, options, seats, status, created, deal, game) "
            "VALUES (?, ?, ?, ?, ?, 'playing', ?, ?, ?)",
            (game_id, seed, json.dumps(rules), json.dumps(options), json.dumps(seats_by_name), time.time(), deal,
             game),
        )
        self._queue("INSERT INTO game_players (game, seat, token_hash, account) VALUES (?, ?, ?, ?)",
                    [(game_id, seat, info.get("token_hash"), info.get("account"))
                     for seat, info in seats_by_name.items()])

    def save_moves(self, game_id: int, first_seq: int, moves: list[tuple[Hashable, dict]], version: int,
                   clear_seals: bool = False, result: dict | None = None) -> None:
        """Store accepted moves (and the game's end), committed with the rest of the turn's writes.

        A seat is stored by its name, ``str(seat)``; a move as its map, with ``version``, the
        game's version once they are played: the game's own row is written only when it ends
        (a move writes one row: the game's would be rewritten at every move).
        """
        now = time.time()
        self._queue(
            "INSERT INTO moves (game, seq, seat, move, at, version) VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, first_seq + i, str(seat), _json(move), now, version) for i, (seat, move) in enumerate(moves)],
        )
        if clear_seals:
            self._queue("DELETE FROM seals WHERE game = ?", (game_id,))
        if result is not None:
            self._finish(game_id, version, result, now)

    def finish(self, game_id: int, version: int, result: dict) -> None:
        """Mark a game over without a move (forfeit on time or by abandoning)."""
        self._queue("DELETE FROM seals WHERE game = ?", (game_id,))
        self._finish(game_id, version, result, time.time())

    def _finish(self, game_id: int, version: int, result: dict, now: float) -> None:
        self._queue("UPDATE games SET version = ?, status = 'over', result = ?, finished = ? WHERE id = ?",
                    (version, json.dumps(result), now, game_id))

    def save_seal(self, game_id: int, seat: Hashable, digest: bytes | None, move: dict | None,
                  claim: object = None) -> None:
        """A sealed commitment: a digest from a client, or the move the server chose or a bot gave,
        with its ``claim`` (what everyone sees of it at once; None: nothing)."""
        self._queue(
            "INSERT OR REPLACE INTO seals (game, seat, digest, move, claim) VALUES (?, ?, ?, ?, ?)",
            (game_id, str(seat), digest, None if move is None else _json(move),
             None if claim is None else _json(claim)),
        )

    def save_opening(self, game_id: int, seat: Hashable, move: dict, nonce: bytes) -> None:
        """The opening of a client's sealed commitment: its move and nonce (its digest stays, and
        so does its order)."""
        self._queue("UPDATE seals SET move = ?, nonce = ? WHERE game = ? AND seat = ?",
                    (_json(move), nonce, game_id, str(seat)))

    def save_pause(self, game_id: int, pause: Pause) -> None:
        """Keep a game's log and clocks as the server stops (``load_games`` gives them back once)."""
        self._queue("INSERT OR REPLACE INTO pauses (game, version, log, seats) VALUES (?, ?, ?, ?)",
                    (game_id, pause.version, json.dumps(pause.log), json.dumps(pause.seats)))

    def forget_pause(self, game_id: int) -> None:
        """The game has resumed: its pause is spent (after a crash it would be out of date)."""
        self._queue("DELETE FROM pauses WHERE game = ?", (game_id,))

    def load_games(self, status: str | None = None) -> list[StoredGame]:
        self.commit()
        query = "SELECT " + _GAME_COLUMNS + " FROM games"
        rows = self.db.execute(query + (" WHERE status = ?" if status else "") + " ORDER BY id",
                               (status,) if status else ()).fetchall()
        return [self._loaded(row) for row in rows]

    def load_game(self, game_id: int) -> StoredGame | None:
        """One game with its moves, or None if there is none of that id."""
        self.commit()
        row = self.db.execute("SELECT " + _GAME_COLUMNS + " FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._loaded(row)

    def _loaded(self, row: tuple) -> StoredGame:
        gid, seed, rules, options, seats, st, result, version, deal, created, finished, game = row
        moves, move_times = [], []
        for seat, move, at, after in self.db.execute(
                "SELECT seat, move, at, version FROM moves WHERE game = ? ORDER BY seq", (gid,)):
            moves.append((seat, json.loads(move)))
            move_times.append(at)
            version = max(version, after or 0)  # NULL: a move stored before schema version 9
        seals = {seat: {"digest": digest, "move": None if move is None else json.loads(move), "nonce": nonce,
                        "claim": None if claim is None else json.loads(claim)}
                 for seat, digest, move, nonce, claim in self.db.execute(
                     "SELECT seat, digest, move, nonce, claim FROM seals WHERE game = ? ORDER BY rowid", (gid,))}
        paused = self.db.execute("SELECT version, log, seats FROM pauses WHERE game = ?", (gid,)).fetchone()
        pause = None if paused is None else Pause(paused[0], json.loads(paused[1]), json.loads(paused[2]))
        rated = {account: (before, after, rd_after) for account, before, after, rd_after in self.db.execute(
            "SELECT account, rating_before, rating_after, rd_after FROM rating_changes WHERE game = ?", (gid,))}
        return StoredGame(gid, seed, json.loads(rules), json.loads(options), json.loads(seats),
                          st, None if result is None else json.loads(result), version, moves, seals, pause,
                          deal, created, finished, move_times, rated, game)

    def games_of(self, session: str | None, account: int | None, limit: int, skip: int = 0,
                 seen_by: tuple[str | None, int | None] | None = None) -> list[GameRow]:
        """The games played by a session (a resume token's hash) or an account, newest first:
        at most ``limit`` of them, after the ``skip`` newest.  ``seen_by`` (a session and an
        account): only the finished games it may read, those that were not private and those
        it played too (``server.history``)."""
        self.commit()
        query = ("SELECT id, options, seats, status, result, created, finished, game FROM games WHERE id IN "
                 "(SELECT game FROM game_players WHERE token_hash = ? OR account = ?)")
        params: list[object] = [session, account]
        if seen_by is not None:
            query += (" AND status = 'over' AND (COALESCE(json_extract(options, '$.private'), 0) = 0 OR id IN "
                      "(SELECT game FROM game_players WHERE token_hash = ? OR account = ?))")
            params += seen_by
        rows = self.db.execute(query + " ORDER BY id DESC LIMIT ? OFFSET ?", (*params, limit, skip)).fetchall()
        return [GameRow(gid, json.loads(options), json.loads(seats), st, None if result is None else json.loads(result),
                        created, finished, game) for gid, options, seats, st, result, created, finished, game in rows]

    def totals_of(self, session: str | None, account: int | None) -> tuple[int, int, int, int]:
        """The finished games of a session or an account: played, won, lost, drawn."""
        self.commit()
        played, won, drawn = self.db.execute(
            "SELECT count(*), coalesce(sum(winner = seat), 0), coalesce(sum(winner = 'draw'), 0) FROM "
            "(SELECT json_extract(games.result, '$.winner') AS winner, game_players.seat AS seat "
            "FROM game_players JOIN games ON games.id = game_players.game "
            "WHERE (game_players.token_hash = ? OR game_players.account = ?) AND games.status = 'over')",
            (session, account)).fetchone()
        return played, won, played - won - drawn, drawn
