"""The time a room's clocks run on: now, and timers.

A room asks a ``Clock`` for the time and schedules its time-outs with it, so tests
can drive a game's clocks by hand (``tests/manual_clock.py``) instead of
waiting on real timers; the SSH gateway times idle sessions out on one too.  The
server's clock is the event loop's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A scheduled call that has not happened yet."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""

    def call_later(self, delay: float, callback: Callable[..., object], *args: object) -> Timer:
        """Call ``callback(*args)`` on the event loop ``delay`` seconds from now."""


class LoopClock:
    """The running event loop's monotonic time and timers."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[..., object], *args: object) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(delay, callback, *args)
