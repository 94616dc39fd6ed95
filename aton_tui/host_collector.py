"""How an app host keeps CPython's cyclic garbage collector from pausing every session it draws.

An app host's heap is its apps: some 20,000 tracked objects each (widgets, styles, their
caches), most of them living as long as their session.  With CPython's rule a full collection
walks the whole heap each time the long-lived objects have grown by a quarter: while 100 apps
log in, a host ran a dozen, the last ones over two million objects and more than a second each
(``bench/ssh_sessions.py --sessions 200``), every session's keys and frames waiting behind them,
and they were a third of the CPU of a burst of logins.

The objects that grow the heap are the new apps', and they are garbage only once their session
ends.  So:

- CPython's own full collections are turned off (``start``); young and middle collections run
  by its thresholds, as before;
- a moment after sessions start (``SETTLE_AFTER``), then often while their apps are being
  built (``SETTLE_EVERY_BUSY``), and every ``SETTLE_EVERY`` seconds anyway, the host collects
  what the collector can see — the objects made since the last time, not the frozen ones, so
  the cost follows the new objects, not the heap — and freezes what is left (``gc.freeze()``):
  the apps running then leave the collector's sight;
- when sessions have ended (as many as a quarter of those still running), when a burst of
  logins is over (what the apps dropped once built was frozen while they were built), and
  ``FULL_EVERY`` seconds after the last time if sessions came or went since (a trickle of
  logins never ends a burst), the host unfreezes everything and collects it all, once: what
  the ended sessions left in reference cycles is returned (a dead session's memory must be),
  and so is any frozen object of a running app that was dropped in a cycle since.  That one
  walks the heap, but it comes with the sessions' ends and bursts, not with every quarter of
  growth.

Reference counting frees everything else at once, as always.  Measured with
``bench/ssh_sessions.py --ways inprocess`` against CPython's rule, runs alternated
(docs/hosting.md): 200 sessions, first frame p50 6.5 → 4.2 s and 0.38 → 0.25 CPU-s a login;
50 logins at once, a key's p99 29–41 ms against up to 372 ms (a full collection under the
keys); memory 3.6 → 3.9–4.1 MiB a session at 50, 3.4 at 500 either way (the garbage made while
apps are built waits up to ``SETTLE_EVERY_BUSY``, and what it grew stays the process's).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

#: seconds from a session's start or end to the collection it asks for (its app's first frame
#: drawn; the sessions that start or end meanwhile are collected with it)
SETTLE_AFTER = 0.3
#: seconds between two collections of what is not frozen, whatever happens (the garbage the
#: running apps make in reference cycles waits no longer) ...
SETTLE_EVERY = 5.0
#: ... and while apps are being built (``BUSY_FOR`` seconds from a session's start): the garbage
#: of their start waits no longer, so that it does not pile up while a burst of logins lasts
SETTLE_EVERY_BUSY = 0.5
BUSY_FOR = 5.0
#: CPython's threshold for the oldest generation: its own full collections never come
NO_FULL_COLLECTIONS = 1 << 30
#: seconds after which a full collection comes anyway, if sessions started or ended since the last
FULL_EVERY = 600.0
#: a full collection once the sessions ended since the last one are this share of those running
ENDED_SHARE = 0.25


class HostCollector:
    """The collector's policy of one app host: told when sessions start and end."""

    def __init__(self, loop: asyncio.AbstractEventLoop, running: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``running()``: how many sessions the host runs now."""
        self.loop = loop
        self.running = running
        self.clock = clock
        self.ended = 0  # sessions ended since the last full collection
        self.last_full = clock()
        self.busy_until = clock()  # apps are being built until then
        self.was_busy = False  # at the last periodic collection
        self.came_or_went = False  # sessions started or ended since the last full collection
        self.full_wanted = False
        self._timer: asyncio.TimerHandle | None = None
        self._periodic: asyncio.TimerHandle | None = None
        self._thresholds: tuple[int, int, int] | None = None  # CPython's, while the policy runs

    def start(self) -> None:
        """Take over the oldest generation's collections (the host's process is the host's alone)."""
        self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, NO_FULL_COLLECTIONS)
        self._every()

    def _every(self) -> None:
        if self._timer is not None:  # (what it waits for is done now)
            self._timer.cancel()
        busy = self.clock() < self.busy_until
        if self.was_busy and not busy:
            self.full_wanted = True  # what the apps dropped once built was frozen while they were built
        if self.came_or_went and self.clock() - self.last_full >= FULL_EVERY:
            self.full_wanted = True
        self.was_busy = busy
        self._collect()
        self._periodic = self.loop.call_later(SETTLE_EVERY_BUSY if busy else SETTLE_EVERY, self._every)

    def started(self) -> None:
        """A session started: freeze its app once it has drawn, and what it makes meanwhile."""
        self.came_or_went = True
        self._soon()
        self.busy_until = self.clock() + BUSY_FOR
        if self._periodic is not None and self._periodic.when() > self.loop.time() + SETTLE_EVERY_BUSY:
            self._periodic.cancel()
            self._periodic = self.loop.call_later(SETTLE_EVERY_BUSY, self._every)

    def session_ended(self) -> None:
        """A session ended: collect everything once enough have (``ENDED_SHARE``)."""
        self.came_or_went = True
        self.ended += 1
        if self.ended >= ENDED_SHARE * self.running():
            self.full_wanted = True
            self._soon()

    def _soon(self) -> None:
        """Collect in ``SETTLE_AFTER`` seconds: once for all the sessions that start or end meanwhile."""
        if self._timer is None:
            self._timer = self.loop.call_later(SETTLE_AFTER, self._collect)

    def _collect(self) -> None:
        self._timer = None
        if self.full_wanted:
            self.collect_all()
        else:
            self.settle()

    def settle(self) -> None:
        """Collect the objects the collector can see, and freeze what is left of them."""
        gc.collect()
        gc.freeze()

    def collect_all(self) -> None:
        """Unfreeze everything, collect it, and freeze what lives on."""
        started = self.clock()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        log.info("app host: full collection after %d ended session(s): %d objects freed, %d kept, %.0f ms",
                 self.ended, found, gc.get_freeze_count(), 1000 * (self.clock() - started))
        self.ended = 0
        self.last_full = self.clock()
        self.full_wanted = False
        self.came_or_went = False

    def stop(self) -> None:
        for timer in (self._timer, self._periodic):
            if timer is not None:
                timer.cancel()
        self._timer = self._periodic = None
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
