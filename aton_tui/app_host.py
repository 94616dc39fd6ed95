"""An app host: many SSH sessions' game clients as Textual apps in one process.

    python -m aton_tui.app_host FD [--block-limit SECONDS] [--output-max BYTES] [--app MODULE:FUNCTION]

The SSH gateway's second way to run a session's client (``aton-server --ssh-sessions
inprocess``; the first forks a process per session, ``aton_tui/forkserver.py``).  The
gateway starts a few of these programs, each with one end of a ``SOCK_SEQPACKET``
socket pair as file descriptor FD, and hands each session to one of them
(``OpenSession``, with a stream socket for the session's bytes).  Here the session
becomes one more ``AtonApp`` — the very app of ``aton connect``, built by
``aton_tui.cli.build_app`` from the session's own arguments and environment — on this
process's one event loop, drawn through a ``ChannelDriver`` on that socket.  A session
costs an app (a megabyte or two) instead of a process (about 20 MB), and starts
without a fork.  Apps start one at a time, in the order their sessions came, each once
the one before has drawn its first frame, and connect to the game server once those
queued behind them are drawn too (``start_turns``): of a burst of logins, the first to
come is drawn first.

What keeps sessions apart though they share a process:

- Each app is an ordinary protocol client of the game server for its one player, as a
  forked client is: nothing of the game server's state is in this process, and a
  session's app holds nothing of another's (Textual keeps the running app in a
  context variable, one per session's task).
- Each session's environment (its player's resume token and gateway assertion, ``TERM`` and
  ``COLORTERM``) is handed to its app, never put in ``os.environ``; its colour depth is
  its console's, detected from that environment (``adapt_console``).  Size and input
  come from its own socket.
- Textual's process-wide habits are turned off (``isolate``): it would point
  ``sys.stdout`` at each running app in turn, and its key parser caches key events
  across apps (``channel_driver.SessionParser``).
- A session that raises ends alone (its app exits; the error goes to this process's
  log).  A session whose handler holds the event loop longer than ``--block-limit``
  is interrupted and ended by the watchdog (``loop_watchdog``); one that cannot be
  interrupted ends this process, with status ``APP_HOST_BLOCKED``, and the gateway
  starts another.  A session's app is dropped when it ends: no cache keeps it.

The messages are ``protocol.handoff``'s: ``OpenSession``, ``Resize``, ``CloseSession``
in, ``Ready`` and ``SessionEnded`` out.  This process dies with the gateway
(``PR_SET_PDEATHSIG``, and end of file on FD), ending its apps.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import importlib
import logging
import os
import signal
import socket
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from textual import constants
from textual.app import App

from protocol import handoff
from protocol.handoff import PR_SET_NAME, PR_SET_PDEATHSIG, prctl

from .app import AtonApp, lobby_redraw_delay
from .channel_driver import ChannelDriver
from .forkserver import warm_up
from .host_collector import HostCollector
from .loop_watchdog import LoopWatchdog
from .shared_styles import share_styles
from .start_turns import StartTurns

log = logging.getLogger(__name__)

#: The defaults of the gateway's settings (``server.config.SSHLimits``), which passes its own.
BLOCK_LIMIT = 2.0
OUTPUT_MAX = 1 << 20
CLOSE_GRACE = 1.0  # seconds an app has to end (and its last output to leave) before it is cut off
CUT_OFF_NAMED = 10  # sessions cut off together that the log names (the others are counted)

BLOCKED = "Your session stopped responding and was closed. Your games are kept: log in again to play on."
OVERFLOW = "Your connection did not keep up with the screen and was closed. Your games are kept."
CRASHED = "The game client stopped on an error. Your games are kept: log in again to play on."

AppFactory = Callable[[list[str], dict[str, str]], App]


def client_app(args: list[str], env: dict[str, str]) -> App:
    """The game client of ``aton_tui.cli ARGS`` with the session's environment ``env``."""
    from .cli import build_app, build_parser

    return build_app(build_parser().parse_args(args), env)


def adapt_console(app: App, env: dict[str, str]) -> None:
    """Give the app's console the session's environment: the colour depth is detected from its
    ``TERM`` and ``COLORTERM``, not from this process's (Textual builds it from ``os.environ``)."""
    console = app.console
    console._environ = dict(env)
    if constants.COLOR_SYSTEM == "auto":
        console._color_system = console._detect_color_system()


def isolate() -> None:
    """Turn off what would tie one session to another in a shared process.

    - While an app runs, Textual points ``sys.stdout`` and ``sys.stderr`` at it, and puts
      them back in an order that many apps ending in any order would get wrong, leaving one
      session's output pointed at another.  Here nothing of a session prints: both stay this
      process's own (its log).
    - A cancelled asyncio timer stays in the loop's queue until its time comes, with the
      context it was made in: an ended app's timers (a clock's tick, a retry a minute away)
      would keep the app alive through Textual's ``active_app`` until then.  A cancelled
      timer lets go of its context here."""
    import textual.app

    textual.app.redirect_stdout = contextlib.nullcontext  # type: ignore[misc, assignment]  # Textual's module global, set once here
    textual.app.redirect_stderr = contextlib.nullcontext  # type: ignore[misc, assignment]
    cancel = asyncio.TimerHandle.cancel

    def cancel_and_forget(handle: asyncio.TimerHandle) -> None:
        cancel(handle)
        handle._context = None  # type: ignore[attr-defined]  # asyncio's own slot: nothing runs it any more

    asyncio.TimerHandle.cancel = cancel_and_forget  # type: ignore[method-assign, assignment]


@dataclass(eq=False)
class HostedSession:
    """One session's app and the socket it is drawn on."""

    id: int
    fd: int
    args: list[str]
    env: dict[str, str]
    size: tuple[int, int]
    app: App | None = None
    task: asyncio.Task[None] | None = None
    why: str = ""  # what ended it, when not the player (said to them by the gateway)
    ending: bool = False
    force: asyncio.TimerHandle | None = field(default=None, repr=False)

    @property
    def driver(self) -> ChannelDriver | None:
        driver = self.app._driver if self.app is not None else None
        return driver if isinstance(driver, ChannelDriver) else None


class AppHost:
    """Answers the gateway's messages on ``sock``: runs, resizes and ends sessions' apps."""

    def __init__(self, sock: socket.socket, make_app: AppFactory = client_app, output_max: int = OUTPUT_MAX,
                 close_grace: float = CLOSE_GRACE) -> None:
        self.sock = sock
        self.make_app = make_app
        self.output_max = output_max
        self.close_grace = close_grace
        self.loop = asyncio.get_running_loop()
        self.sessions: dict[int, HostedSession] = {}
        self.outbox: deque[bytes] = deque()  # messages the gateway's full socket has not taken yet
        self.done = self.loop.create_future()
        self.collector = HostCollector(self.loop, lambda: len(self.sessions))
        self._cut_off_now: list[int] = []  # sessions cancelled in this loop turn (``_cut_off``), for one log line
        self.start_turns = StartTurns()

    # ------------------------------------------------------------------ the gateway's messages

    def start(self) -> None:
        self.sock.setblocking(False)
        self.loop.add_reader(self.sock, self._receive)
        self.collector.start()
        self.send(handoff.Ready(os.getpid()))

    def _receive(self) -> None:
        while not self.done.done() and (packet := handoff.receive(self.sock)) is not None:
            data, fds = packet
            if not data:
                self._close_fds(fds)
                self.stop()
                return
            try:
                message = handoff.decode(data)
            except handoff.BadMessage as exc:
                log.error("app host: unreadable message %r (%s)", data[:200], exc)
                self._close_fds(fds)
                continue
            self.dispatch(message, fds)

    def dispatch(self, message: handoff.HandoffMessage, fds: list[int]) -> None:
        """Act on one message; ``fds`` came with it (a session's socket with ``OpenSession``)."""
        if isinstance(message, handoff.OpenSession) and len(fds) == 1 and message.id not in self.sessions:
            self.open(message, fds[0])
            return
        self._close_fds(fds)
        match message:
            case handoff.OpenSession(session_id):
                log.error("app host: session %d opened without one socket, or twice", session_id)
                self.send(handoff.SessionEnded(session_id, 1))
            case handoff.Resize(session_id, columns, rows):
                session = self.sessions.get(session_id)
                if session is not None:
                    session.size = (columns, rows)
                    if session.driver is not None:
                        session.driver.resize(columns, rows)
            case handoff.CloseSession(session_id):
                session = self.sessions.get(session_id)
                if session is not None:
                    self.end(session)
            case _:
                log.error("app host: unexpected message %r", message)

    def send(self, message: handoff.HandoffMessage) -> None:
        """Send a message; while the socket is full (the gateway busy), messages wait in order."""
        if not self.outbox:
            try:
                self.sock.send(message.encode())
                return
            except BlockingIOError:
                self.loop.add_writer(self.sock, self._flush)
            except OSError as exc:  # the gateway is gone: everything ends on end of file anyway
                log.debug("app host: cannot send %r: %s", message, exc)
                return
        self.outbox.append(message.encode())

    def _flush(self) -> None:
        while self.outbox:
            try:
                self.sock.send(self.outbox[0])
            except BlockingIOError:
                return
            except OSError:
                self.outbox.clear()
                break
            self.outbox.popleft()
        self.loop.remove_writer(self.sock)

    # ------------------------------------------------------------------ sessions

    def open(self, request: handoff.OpenSession, fd: int) -> None:
        os.set_blocking(fd, False)
        session = HostedSession(request.id, fd, request.args, request.env, (request.columns, request.rows))
        self.sessions[session.id] = session
        # a task of its own, in a copy of this (app-less) context: the app's context stays its own
        session.task = self.loop.create_task(self._serve(session), name=f"session {session.id}")
        self.collector.started()

    async def _serve(self, session: HostedSession) -> None:
        status = 1
        try:
            await self.start_turns.take(session)
            if session.ending:  # the player left while waiting for the turn: no app to build
                status = 0
                return
            app = session.app = self.make_app(session.args, session.env)
            self._pace_lobbies()
            if isinstance(app, AtonApp):
                app.connect_after = self.start_turns.through
            adapt_console(app, session.env)
            app.driver_class = functools.partial(  # type: ignore[assignment]  # a Driver class with this session's socket bound
                ChannelDriver, fd=session.fd, pending_output_max=self.output_max,
                terminal_size=lambda: session.size, on_overflow=lambda: self.end(session, OVERFLOW),
                on_first_frame=lambda: self.start_turns.done(session))
            if not session.ending:
                await app.run_async()
            status = app.return_code or 0
            if status and not session.why and not session.ending:
                session.why = CRASHED
        except asyncio.CancelledError:
            status = 1
        except SystemExit as exc:  # argparse said what is wrong with the arguments
            status = exc.code if isinstance(exc.code, int) else 2
        except Exception:
            log.exception("app host: session %d failed", session.id)
            session.why = session.why or CRASHED
        finally:
            await self._finish(session, status)

    async def _finish(self, session: HostedSession, status: int) -> None:
        """Let the app's last output (its terminal restored) leave, then let go of everything."""
        self.start_turns.done(session)
        driver = session.driver
        waited = 0.0
        while driver is not None and not driver.flushed and waited < self.close_grace:
            await asyncio.sleep(0.02)
            waited += 0.02
        if driver is not None:
            driver.close()
        if session.force is not None:
            session.force.cancel()
        os.close(session.fd)
        del self.sessions[session.id]
        self._pace_lobbies()
        self.collector.session_ended()
        session.app = None
        session.task = None
        self.send(handoff.SessionEnded(session.id, status, session.why))

    def _pace_lobbies(self) -> None:
        """Space each app's lobby redraws by the number of apps here (``lobby_redraw_delay``)."""
        delay = lobby_redraw_delay(len(self.sessions))
        for session in self.sessions.values():
            if isinstance(session.app, AtonApp):
                session.app.lobby_redraw_delay = delay

    def end(self, session: HostedSession, why: str = "") -> None:
        """End a session's app (the gateway asked, or ``why`` says what went wrong); one that does
        not end within ``close_grace`` is cancelled."""
        if session.ending:
            return
        session.ending = True
        session.why = session.why or why
        if session.app is not None:
            session.app.exit(return_code=1 if why else 0)
        session.force = self.loop.call_later(self.close_grace, self._cut_off, session)

    def _cut_off(self, session: HostedSession) -> None:
        session.force = None
        if session.task is not None and not session.task.done():
            if not self._cut_off_now:  # one line for all those cut off together (hundreds, when all close at once)
                self.loop.call_soon(self._log_cut_off)
            self._cut_off_now.append(session.id)
            session.task.cancel()

    def _log_cut_off(self) -> None:
        cut, self._cut_off_now = self._cut_off_now, []
        named = ", ".join(map(str, cut[:CUT_OFF_NAMED])) + (", …" if len(cut) > CUT_OFF_NAMED else "")
        which = f"session {cut[0]}" if len(cut) == 1 else f"{len(cut)} sessions ({named})"
        log.warning("app host: %s did not end in %g s: cancelled", which, self.close_grace)

    def blocked(self, app: App | None) -> None:
        """The watchdog interrupted ``app``'s handler, which held the event loop: end its session."""
        for session in self.sessions.values():
            if session.app is app and app is not None:
                log.error("app host: session %d held the event loop: ended", session.id)
                self.loop.call_soon(self.end, session, BLOCKED)
                return
        log.error("app host: the event loop was held outside any session")

    # ------------------------------------------------------------------ the end

    def stop(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    async def run(self) -> None:
        """Serve until the gateway goes away (or SIGTERM); then end every session."""
        self.start()
        await self.done
        self.collector.stop()
        self.loop.remove_reader(self.sock)
        for session in list(self.sessions.values()):
            self.end(session)
        tasks = [s.task for s in self.sessions.values() if s.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=2 * self.close_grace)
        self.sock.close()

    @staticmethod
    def _close_fds(fds: list[int]) -> None:
        for fd in fds:
            os.close(fd)


def load_factory(spec: str) -> AppFactory:
    """``MODULE:FUNCTION`` → that function (a test's own apps)."""
    module, _, name = spec.partition(":")
    factory: AppFactory = getattr(importlib.import_module(module), name)
    return factory


async def serve(fd: int, block_limit: float, output_max: int, make_app: AppFactory) -> None:
    sock = socket.socket(fileno=fd)
    host = AppHost(sock, make_app, output_max)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, host.stop)
    loop.add_signal_handler(signal.SIGHUP, host.stop)
    watchdog = LoopWatchdog(block_limit, host.blocked)
    watchdog.start()
    try:
        await host.run()
    finally:
        watchdog.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aton_tui.app_host",
                                     description="many SSH sessions' clients in one process (started by the gateway)")
    parser.add_argument("fd", type=int)
    parser.add_argument("--block-limit", type=float, default=BLOCK_LIMIT, metavar="SECONDS",
                        help="how long one session's handler may hold the event loop")
    parser.add_argument("--output-max", type=int, default=OUTPUT_MAX, metavar="BYTES",
                        help="output a session's player has not taken yet, at most")
    parser.add_argument("--app", default=None, metavar="MODULE:FUNCTION", help="what builds a session's app")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # and, should that fail, end of file on the socket
    prctl(PR_SET_NAME, handoff.APP_HOST_NAME)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s app host %(process)d: %(message)s")
    isolate()
    share_styles()
    make_app = load_factory(args.app) if args.app else client_app
    warm_up()  # the fork server's imports: a session's first import would hold the loop for everyone
    gc.collect()
    gc.freeze()  # what was imported lives as long as the process: no collection need walk it again
    asyncio.run(serve(args.fd, args.block_limit, args.output_max, make_app))
    return 0


if __name__ == "__main__":
    sys.exit(main())
