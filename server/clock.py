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
    """The event loop's monotonic time and timers: those of the loop that runs when the clock is
    first used, found once (``asyncio.get_running_loop`` makes a system call, ``getpid``, every
    time, and the arbiter reads its clock several times a move)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.get_running_loop()
        return self._loop

    def now(self) -> float:
        return self._running_loop().time()

    def call_later(self, delay: float, callback: Callable[..., object], *args: object) -> asyncio.TimerHandle:
        return self._running_loop().call_later(delay, callback, *args)
