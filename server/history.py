"""Players' games from the database: the records of finished games for those who may read them,
and the list of someone's games, at a bounded rate.

Who may read a finished game's record: whoever played it (the session that held a seat, or
the account, which sees its games across sessions) and, for a game that was not private,
anyone, as anyone could watch it (``ArbiterServer._room``: a private game, an invitation's or
a bot's, is only its players').  Nothing is served before a game is over: a private game's
existence is never confirmed to a stranger, and a game still playing has no record yet.
``server.app`` answers ``get_record`` with it, and the SSH gateway its ``record`` and ``games``
commands (``server.ssh.commands``): one rule, one rate limit, for both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from protocol.errors import ErrorCode, ProtocolError

from .config import Limits
from .export import iso_utc, record_of
from .rates import BucketsByKey
from .store import GameRow, Store


@dataclass(frozen=True)
class Reader:
    """Who asks: a session (its resume token's hash) and its account (None: a guest)."""

    session: str | None
    account: int | None = None

    def seat_in(self, seats: dict) -> str | None:
        """The seat (by name) this reader held among a game's stored ``seats``, if any."""
        for seat, info in seats.items():
            if (self.session is not None and info.get("token_hash") == self.session) or \
                    (self.account is not None and info.get("account") == self.account):
                return seat
        return None


@dataclass(frozen=True)
class GameLine:
    """One game in a list of a player's games, from that player's side: nothing of it that was
    hidden while it was played (the result, the rounds and the length only once it is over)."""

    game: int
    started: str  # ISO 8601, UTC
    clock: str
    opponent: str
    result: str  # "won", "lost", "drawn", or "playing"
    reason: str | None = None  # how it ended (docs/records.md, ``meta.result.reason``)
    rounds: int | None = None
    seconds: int | None = None  # from its start to its end

    @classmethod
    def of(cls, row: GameRow, seat: str) -> GameLine:
        opponent = next((info["name"] for name, info in row.seats.items() if name != seat), "?")
        base = cls(game=row.id, started=iso_utc(row.created), clock=row.options.get("clock", "?"),
                   opponent=opponent, result="playing")
        if row.status != "over" or row.result is None:
            return base
        winner = row.result.get("winner")
        return cls(game=base.game, started=base.started, clock=base.clock, opponent=opponent,
                   result="drawn" if winner == "draw" else "won" if winner == seat else "lost",
                   reason=row.result.get("reason"), rounds=row.result.get("round"),
                   seconds=None if row.finished is None else round(row.finished - row.created))

    def to_wire(self) -> dict:
        return {"game": self.game, "started": self.started, "clock": self.clock, "opponent": self.opponent,
                "result": self.result, "reason": self.reason, "rounds": self.rounds, "seconds": self.seconds}


class GameHistory:
    """The stored games as their readers may see them.  Every request spends one of its
    session's (``Limits.history_requests_per_second``, ``history_burst``): each reads the database."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.limits = limits
        self.requests = BucketsByKey(limits.history_requests_per_second, limits.history_burst, clock)

    def admit(self, reader: Reader) -> None:
        """Count one request of ``reader``'s; ProtocolError(RATE_LIMITED) when it has none left."""
        key = reader.session if reader.session is not None else ("account", reader.account)
        if self.requests.empty(key):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many requests for games and records: wait a few seconds")
        self.requests.take(key)

    def record(self, reader: Reader, game_id: int) -> dict:
        """The ``aton-record/1`` of a finished game ``reader`` may read (see the module's rule)."""
        self.admit(reader)
        stored = self.store.load_game(game_id)
        if stored is None or (stored.options.get("private") and reader.seat_in(stored.seats) is None):
            raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no game {game_id}", field="game")
        if stored.status != "over":
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"the record of game {game_id} is available once the game is over", field="game")
        return record_of(stored)

    def games(self, reader: Reader, page: int = 0) -> list[GameLine]:
        """``reader``'s games, newest first: page ``page`` (from 0) of ``Limits.history_page_entries``."""
        self.admit(reader)
        size = self.limits.history_page_entries
        rows = self.store.games_of(reader.session, reader.account, size, skip=page * size)
        return [GameLine.of(row, seat) for row in rows if (seat := reader.seat_in(row.seats)) is not None]
