"""First frames first: an app host starts its sessions' apps one at a time, in the order they came.

An app's start (compose, mount, style, the first frame) is a burst of small steps on the
host's one event loop.  Fifty sessions started at once interleave their steps, and every
player waits until nearly all of them are drawn.  Taken in turns, the first to come is drawn
first, the next about one app's start later, and so on: the same work, but each player waits
only for those who came before.

Two rules keep the turns from costing more than they save:

- a turn ends when its app has drawn its first frame (``done``), when its session ends, or
  after ``TURN_LIMIT`` seconds whatever happens (an app that draws nothing must not hold the
  others back);
- what an app does once drawn (connecting to the game server, filling the lobby's lists and
  redrawing them for every later arrival) waits until the starts queued behind it are through
  (``through``), at most ``THROUGH_LIMIT`` seconds: done in the middle of the burst it would
  come before the later players' first frames instead of after them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

#: Seconds a start may hold its turn (an app's start takes a few tens of milliseconds).
TURN_LIMIT = 0.5
#: Seconds an app drawn already waits, at most, for the starts queued behind it.
THROUGH_LIMIT = 2.0


class StartTurns:
    """Whose turn it is to start, and who waits for one (one per app host)."""

    def __init__(self, turn_limit: float = TURN_LIMIT, through_limit: float = THROUGH_LIMIT) -> None:
        self.turn_limit = turn_limit
        self.through_limit = through_limit
        self._holder: object | None = None
        self._waiting: deque[tuple[object, asyncio.Future[None]]] = deque()
        self._limit: asyncio.TimerHandle | None = None
        self._through = asyncio.Event()
        self._through.set()

    @property
    def queued(self) -> int:
        """Starts not through yet: the one under way and those waiting for their turn."""
        return len(self._waiting) + (self._holder is not None)

    async def take(self, owner: object) -> None:
        """Wait for ``owner``'s turn (at once when nobody starts)."""
        self._through.clear()
        if self._holder is None:
            self._begin(owner)
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append((owner, turn))
        try:
            await turn
        except asyncio.CancelledError:
            self.done(owner)  # the session ended while it waited, or just as its turn came
            raise

    def done(self, owner: object) -> None:
        """``owner`` has drawn its first frame, or ended: the next in line starts."""
        if self._holder is not owner:
            self._waiting = deque((waiting, turn) for waiting, turn in self._waiting if waiting is not owner)
            self._check_through()
            return
        if self._limit is not None:
            self._limit.cancel()
            self._limit = None
        self._holder = None
        while self._waiting:
            owner, turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                self._begin(owner)
                return
        self._check_through()

    async def through(self) -> None:
        """Wait until no start is queued, or ``through_limit`` seconds."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._through.wait(), self.through_limit)

    def _begin(self, owner: object) -> None:
        self._holder = owner
        self._limit = asyncio.get_running_loop().call_later(self.turn_limit, self.done, owner)

    def _check_through(self) -> None:
        if self._holder is None and not self._waiting:
            self._through.set()
