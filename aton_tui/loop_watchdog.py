"""A watchdog for an event loop shared by many sessions (``aton_tui.app_host``).

Every callback of an asyncio event loop — a task's step, a timer, a reader — runs in
``asyncio.Handle._run``.  The watchdog times each one (``install`` wraps that method:
the app host's process is entirely ours), and a thread of its own looks at the clock
``limit / 4`` times a limit.  A callback that has run longer than ``limit`` is
interrupted: the thread sends ``SIGUSR1`` to the main thread, whose handler runs in
the middle of the blocked code, in its context: it names the app whose code it is
(Textual's ``active_app``) to ``on_blocked`` and raises ``SessionBlocked`` there
(a blocking system call, ``time.sleep`` say, is interrupted too).  Textual ends an app
whose handler raised; ``on_blocked`` ends the session in any case.

Code that swallows the exception and blocks on: after twice the limit the thread ends
the process with ``APP_HOST_BLOCKED``.  Code that cannot be interrupted at all (a long
computation inside C that holds the interpreter's lock, so that no thread of Python
runs meanwhile): ``faulthandler``'s own thread, which needs no interpreter, ends the
process (status 1, every thread's traceback in the log) when the loop has not come
round for ``STALL_FACTOR`` limits; the loop re-arms it twice a limit.  Either way the
host's sessions end, the gateway's other hosts go on, and the gateway starts a new one.
"""

from __future__ import annotations

import asyncio
import asyncio.events
import faulthandler
import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from textual._context import active_app

from protocol.handoff import APP_HOST_BLOCKED

INTERRUPT = signal.SIGUSR1
#: Limits the event loop may go without coming round before the process is ended from C
#: (a generous multiple: a busy loop with many sessions to serve comes round slowly, but comes)
STALL_FACTOR = 10


class SessionBlocked(Exception):
    """Raised in code that held the event loop past the watchdog's limit."""


class LoopWatchdog:
    """Interrupts the loop's callback that runs longer than ``limit`` seconds (see the module)."""

    def __init__(self, limit: float, on_blocked: Callable[[Any], None]) -> None:
        self.limit = limit
        self.on_blocked = on_blocked
        self.step_started = 0.0  # when the running callback started (0: none is running)
        self.interrupted = 0.0  # the start of the callback last interrupted
        self.main = threading.get_ident()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="loop watchdog", daemon=True)
        self.original_run: Callable[[asyncio.events.Handle], None] | None = None
        self.rearm: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Watch the running event loop."""
        self.install()
        signal.signal(INTERRUPT, self._interrupt)
        self.thread.start()
        self._rearm()

    def _rearm(self) -> None:
        if not self.stopping.is_set():
            faulthandler.dump_traceback_later(STALL_FACTOR * self.limit, exit=True)
            self.rearm = asyncio.get_running_loop().call_later(self.limit / 2, self._rearm)

    def stop(self) -> None:
        self.stopping.set()
        faulthandler.cancel_dump_traceback_later()
        if self.rearm is not None:
            self.rearm.cancel()
        if self.original_run is not None:
            asyncio.events.Handle._run = self.original_run  # type: ignore[method-assign, assignment]
            self.original_run = None

    def install(self) -> None:
        """Time every callback of every event loop of this process."""
        original = self.original_run = asyncio.events.Handle._run
        watchdog = self

        def timed_run(handle: asyncio.events.Handle) -> None:
            watchdog.step_started = time.monotonic()
            try:
                original(handle)
            finally:
                watchdog.step_started = 0.0

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign, assignment]

    def _watch(self) -> None:
        while not self.stopping.wait(self.limit / 4):
            started = self.step_started
            if not started:
                continue
            held = time.monotonic() - started
            if held > 2 * self.limit and self.interrupted == started:
                os.write(2, f"app host {os.getpid()}: a callback held the event loop for {held:.1f} s and "
                            "could not be interrupted: ending the process\n".encode())
                os._exit(APP_HOST_BLOCKED)
            if held > self.limit and self.interrupted != started:
                self.interrupted = started
                signal.pthread_kill(self.main, INTERRUPT)

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        """In the main thread, inside the blocked code (unless it has just ended)."""
        if not self.step_started or self.step_started != self.interrupted:
            return
        self.on_blocked(active_app.get(None))
        raise SessionBlocked(f"held the event loop for more than {self.limit:g} s")
