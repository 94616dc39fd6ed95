"""Players' games from the database: the records of finished games for those who may read them,
and the list of someone's games, at a bounded rate.

Who may read a finished game's record: whoever played it (the session that held a seat, or
the account, which sees its games across sessions) and, for a game that was not private,
anyone, as anyone could watch it (``ArbiterServer._room``: a private game, an invitation's or
a bot's, is only its players').  Nothing is served before a game is over: a private game's
existence is never confirmed to a stranger, and a game still playing has no record yet.
``server.app`` answers ``get_record`` and ``get_profile`` with it, and the SSH gateway its
``record`` and ``games`` commands (``server.ssh.commands``): one rule, one rate limit, for both.
A list of someone else's games holds only the finished games the asker may read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from protocol.errors import ErrorCode, ProtocolError
from protocol.game_lines import GameLine
from protocol.messages import PROFILE_GAMES

from .accounts import Accounts
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


def line_of(row: GameRow, seat: str, names: Mapping[int, str]) -> GameLine:
    """The stored game ``row`` from the side of the player in ``seat``; ``names``: the accounts'
    names now (by id), which name an opponent who had an account (``GameLine``)."""
    other: dict = next((info for name, info in row.seats.items() if name != seat), {"name": "?"})
    account: int | None = other.get("account")
    then: str = other["name"]
    now = then if account is None else names.get(account, then)
    line = GameLine(game=row.id, started=iso_utc(row.created), clock=row.options.get("clock", "?"), seat=seat,
                    opponent=now, opponent_then=then if then != now else None,
                    opponent_guest=account is None and other.get("kind") != "hosted", result="playing",
                    kind=row.game)
    if row.status != "over" or row.result is None:
        return line
    winner = row.result.get("winner")
    return replace(line, result="drawn" if winner == "draw" else "won" if winner == seat else "lost",
                   reason=row.result.get("reason"), rounds=row.result.get("round"),
                   seconds=None if row.finished is None else round(row.finished - row.created))


@dataclass(frozen=True)
class Totals:
    """A player's finished games: how many, and how many they won, lost and drew."""

    played: int
    won: int
    lost: int
    drawn: int


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

    def games(self, subject: Reader, page: int = 0, viewer: Reader | None = None) -> tuple[list[GameLine], bool]:
        """``subject``'s games, newest first: page ``page`` (from 0) of ``Limits.history_page_entries``,
        and whether there is a next page.  Asked by someone else (``viewer``), only the finished
        games the viewer may read the record of: the public ones, and those the viewer played too."""
        self.admit(viewer or subject)
        size = min(self.limits.history_page_entries, PROFILE_GAMES)
        seen_by = None if viewer is None or viewer == subject else (viewer.session, viewer.account)
        rows = self.store.games_of(subject.session, subject.account, size + 1, skip=page * size, seen_by=seen_by)
        shown = [(row, seat) for row in rows[:size] if (seat := subject.seat_in(row.seats)) is not None]
        names = Accounts(self.store).names({info["account"] for row, _ in shown for info in row.seats.values()
                                            if info.get("account") is not None})
        return [line_of(row, seat, names) for row, seat in shown], len(rows) > size

    def totals(self, subject: Reader) -> Totals:
        """``subject``'s finished games, counted (with ``games``: not a request of its own)."""
        return Totals(*self.store.totals_of(subject.session, subject.account))
