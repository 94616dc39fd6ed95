"""A watchdog for an event loop shared by many sessions (``aton_tui.app_host``).

Every callback of an asyncio event loop — a task's step, a timer, a reader — runs in
``asyncio.Handle._run``, and every message of a Textual app is handled in
``MessagePump._dispatch_message`` (one task step of an app's message loop handles every
message already queued: a burst of lobby updates is many messages in one step).  The
watchdog times each callback and each message (``install`` wraps both: the app host's
process is entirely ours), and a thread of its own looks at it four times a limit.  A
callback (or message) *holds* the loop when it has used more than ``limit`` seconds of CPU
(it computes), or has run for more than ``limit`` seconds while the main thread sleeps in
a call (it waits: ``time.sleep``, a blocking read) at two looks in a row.  One that is
merely slow because the machine is busy — runnable, waiting for a CPU — holds nothing:
under a burst of logins on a small machine that is every callback.

The garbage collector's time is not the callback's: a full collection walks every app of
the process, and runs in whichever callback happens to allocate (``gc.callbacks`` time
it); nor is the callback interrupted while a collection runs.

A callback that holds the loop is interrupted: the thread sends ``SIGUSR1`` to the main
thread, whose handler runs in the middle of the blocked code, in its context: it names
the app whose code it is (Textual's ``active_app``) to ``on_blocked`` and raises
``SessionBlocked`` there (a blocking system call is interrupted too).  Textual ends an
app whose handler raised; ``on_blocked`` ends the session in any case.

Code that swallows the exception and holds on, past twice the limit: the thread ends
the process with ``APP_HOST_BLOCKED``.  Code that cannot be interrupted at all (a long
computation inside C that holds the interpreter's lock, so that no thread of Python
runs meanwhile): ``faulthandler``'s own thread, which needs no interpreter, ends the
process (status 1, every thread's traceback in the log) when no callback has started
nor any message been handled for ``STALL_FACTOR`` limits.  Either way the host's sessions end, the gateway's other
hosts go on, and the gateway starts a new one.
"""

from __future__ import annotations

import asyncio.events
import faulthandler
import gc
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from textual._context import active_app
from textual.message import Message
from textual.message_pump import MessagePump

from protocol.handoff import APP_HOST_BLOCKED

INTERRUPT = signal.SIGUSR1
#: Limits of wall time one callback may take before the process is ended from C (a generous
#: multiple: a starved machine makes callbacks slow, not stuck)
STALL_FACTOR = 10
WAITING = frozenset("SD")  # /proc states of a thread asleep in a call (interruptible or not)


class SessionBlocked(Exception):
    """Raised in code that held the event loop past the watchdog's limit."""


class LoopWatchdog:
    """Interrupts the loop's callback that holds it past ``limit`` seconds (see the module)."""

    def __init__(self, limit: float, on_blocked: Callable[[Any], None]) -> None:
        self.limit = limit
        self.on_blocked = on_blocked
        self.step_started = 0.0  # when the running callback started, wall clock (0: none is running)
        self.step_cpu = 0.0  # the main thread's CPU time then
        self.step_gc = 0.0  # CPU time the garbage collector took in the running callback
        self.gc_started = 0.0  # the main thread's CPU time when the running collection started (0: none)
        self.rearmed = 0.0  # when faulthandler's timer was last set
        self.interrupted = 0.0  # the start of the callback last interrupted
        self.main = threading.get_ident()
        self.main_cpu = time.pthread_getcpuclockid(self.main)
        self.main_state = Path(f"/proc/self/task/{threading.get_native_id()}/stat")
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="loop watchdog", daemon=True)
        self.original_run: Callable[[asyncio.events.Handle], None] | None = None
        self.original_dispatch = MessagePump._dispatch_message

    def start(self) -> None:
        """Watch every event loop of this process's main thread (call it from there)."""
        self.install()
        signal.signal(INTERRUPT, self._interrupt)
        gc.callbacks.append(self._collecting)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        faulthandler.cancel_dump_traceback_later()
        if self._collecting in gc.callbacks:
            gc.callbacks.remove(self._collecting)
        if self.original_run is not None:
            asyncio.events.Handle._run = self.original_run  # type: ignore[method-assign, assignment]
            MessagePump._dispatch_message = self.original_dispatch  # type: ignore[method-assign]
            self.original_run = None

    def install(self) -> None:
        """Time every callback and every message; keep faulthandler's timer ahead of the latest start."""
        original = self.original_run = asyncio.events.Handle._run
        watchdog = self
        dispatch = self.original_dispatch = MessagePump._dispatch_message

        def timed_run(handle: asyncio.events.Handle) -> None:
            watchdog.restart()
            try:
                original(handle)
            finally:
                watchdog.step_started = 0.0

        async def timed_dispatch(pump: MessagePump, message: Message) -> None:
            watchdog.restart()
            await dispatch(pump, message)

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign, assignment]
        MessagePump._dispatch_message = timed_dispatch  # type: ignore[method-assign, assignment]

    def restart(self) -> None:
        """A callback or a message begins: its clock starts."""
        now = time.monotonic()
        if now - self.rearmed > self.limit / 2:  # (it costs tens of microseconds: not every time)
            self.rearmed = now
            faulthandler.dump_traceback_later(STALL_FACTOR * self.limit, exit=True)
        self.step_cpu = time.thread_time()
        self.step_gc = 0.0
        self.step_started = now

    def _collecting(self, phase: str, info: dict[str, int]) -> None:
        """``gc.callbacks``: the collector's time in the main thread, which is not the callback's."""
        if threading.get_ident() != self.main:
            return
        if phase == "start":
            self.gc_started = time.thread_time()
        elif self.gc_started:
            self.step_gc += time.thread_time() - self.gc_started
            self.gc_started = 0.0

    # ------------------------------------------------------------------ the watching thread

    def _watch(self) -> None:
        waiting_since = 0.0  # the start of the callback seen waiting at the last look
        while not self.stopping.wait(self.limit / 4):
            started, cpu_then = self.step_started, self.step_cpu
            if not started:
                continue
            held = self._held(started, cpu_then, waiting_since)
            waiting_since = started if self._waiting() else 0.0
            if held > 2 * self.limit and self.interrupted == started:
                os.write(2, f"app host {os.getpid()}: a callback held the event loop for {held:.1f} s and "
                            "could not be interrupted: ending the process\n".encode())
                os._exit(APP_HOST_BLOCKED)
            if held > self.limit and self.interrupted != started:
                self.interrupted = started
                signal.pthread_kill(self.main, INTERRUPT)

    def _held(self, started: float, cpu_then: float, waiting_since: float) -> float:
        """How long the running callback has held the loop: its CPU time, or its wall time if it
        was asleep in a call at the last look and is now."""
        now_cpu = time.clock_gettime(self.main_cpu)
        collecting = now_cpu - self.gc_started if self.gc_started else 0.0
        cpu = now_cpu - cpu_then - self.step_gc - collecting
        if waiting_since == started and self._waiting():
            return max(cpu, time.monotonic() - started)
        return cpu

    def _waiting(self) -> bool:
        try:
            state = self.main_state.read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state in WAITING

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        """In the main thread, inside the blocked code (unless it has just ended)."""
        if not self.step_started or self.step_started != self.interrupted:
            return
        if self.gc_started:  # not inside the collector: the next look tries again
            self.interrupted = 0.0
            return
        self.on_blocked(active_app.get(None))
        raise SessionBlocked(f"held the event loop for more than {self.limit:g} s")
