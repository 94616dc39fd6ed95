"""A clock for the server that moves only when a test says so (``server.clock.Clock``)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class ManualTimer:
    when: float
    callback: Callable[..., object]
    args: tuple
    cancelled: bool = field(default=False)

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """Time stands still until ``advance``, which runs the timers that fall due, in order,
    each at its own time."""

    def __init__(self) -> None:
        self.time = 0.0
        self._timers: list[tuple[float, int, ManualTimer]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    def call_later(self, delay: float, callback: Callable[..., object], *args: object) -> ManualTimer:
        timer = ManualTimer(self.time + delay, callback, args)
        heapq.heappush(self._timers, (timer.when, next(self._order), timer))
        return timer

    def advance(self, seconds: float) -> None:
        until = self.time + seconds
        while self._timers and self._timers[0][0] <= until:
            when, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.time = when
                timer.callback(*timer.args)
        self.time = until

    def pending(self) -> list[float]:
        """When each timer still to come falls due, soonest first."""
        return sorted(when for when, _, timer in self._timers if not timer.cancelled)
