"""What one session and one address may hold or try: games going at once, failed joins over time.

A session is counted by its resume token's hash, so coming back on a new connection
changes nothing.  The server asks before it starts a game or tries a join
(``check_new_game``, ``check_join``) and tells what happened (``game_started``,
``game_over``, ``join_failed``); a refusal is a ProtocolError with a code of its own
(``too_many_games``, ``too_many_failed_joins``).  Addresses in
``Limits.exempt_addresses`` are limited per session only.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable

from protocol.errors import ErrorCode, ProtocolError

from .config import Limits
from .rates import BucketsByKey


class Quotas:
    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._games_of_session: Counter[str] = Counter()
        self._games_of_address: Counter[str] = Counter()
        self._counted: dict[int, tuple[frozenset[str], frozenset[str]]] = {}  # game -> its sessions, addresses
        refill = 1 / limits.failed_join_refill_seconds
        self._failed_joins_of_session = BucketsByKey(refill, limits.failed_joins_per_session, clock)
        self._failed_joins_of_address = BucketsByKey(refill, limits.failed_joins_per_address, clock)

    def limits_address(self, address: str) -> bool:
        return address not in self.limits.exempt_addresses

    # ------------------------------------------------------------------ games going at once

    def game_started(self, game_id: int, sessions: Iterable[str], addresses: Iterable[str]) -> None:
        """A game is going, for these sessions (token hashes) and from these addresses."""
        counted = frozenset(sessions), frozenset(a for a in addresses if self.limits_address(a))
        self._counted[game_id] = counted
        self._games_of_session.update(counted[0])
        self._games_of_address.update(counted[1])

    def game_over(self, game_id: int) -> None:
        sessions, addresses = self._counted.pop(game_id, ((), ()))
        self._games_of_session.subtract(sessions)
        self._games_of_address.subtract(addresses)
        for counter, keys in ((self._games_of_session, sessions), (self._games_of_address, addresses)):
            for key in keys:
                if counter[key] <= 0:
                    del counter[key]

    def check_new_game(self, session: str, address: str, waiting_of_session: int, waiting_of_address: int,
                       whose: str = "your") -> None:
        """Refuse one more game (or open table, or queue place) beyond a limit.

        ``waiting_of_*``: the open tables and queue places that stay besides the new one
        (they become games without asking, so they count).
        """
        going = self._games_of_session[session] + waiting_of_session
        if going >= self.limits.max_games_per_session:
            raise ProtocolError(ErrorCode.TOO_MANY_GAMES,
                                f"{whose} session has {going} games going or waiting, the most this server allows "
                                f"at once: finish one first")
        if not self.limits_address(address):
            return
        going = self._games_of_address[address] + waiting_of_address
        if going >= self.limits.max_games_per_address:
            raise ProtocolError(ErrorCode.TOO_MANY_GAMES,
                                f"{going} games are going or waiting from {whose} address, the most this server "
                                f"allows at once: finish one first")

    # ------------------------------------------------------------------ failed joins

    def check_join(self, session: str, address: str) -> None:
        """Refuse to even try a join while the session or the address has failed too often lately."""
        if self._failed_joins_of_session.empty(session) or \
                (self.limits_address(address) and self._failed_joins_of_address.empty(address)):
            raise ProtocolError(ErrorCode.TOO_MANY_FAILED_JOINS,
                                f"too many joins failed lately; the next one is tried in up to "
                                f"{self.limits.failed_join_refill_seconds:g} s")

    def join_failed(self, session: str, address: str) -> None:
        self._failed_joins_of_session.take(session)
        if self.limits_address(address):
            self._failed_joins_of_address.take(address)
