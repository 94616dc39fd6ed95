"""The gateway's side of the fork server: start it, restart it, ask it for clients.

The fork server is a program of the client package (``python -m
aton_tui.forkserver FD``; the gateway runs it and never imports it) that has
imported Textual and the client once and forks one child per SSH session: a
session starts in a fraction of the CPU time of a new interpreter, and the
children share the pages of everything imported.  It holds no connection and no
game state; each child connects to the game server as an ordinary client for its
one player.  Its messages, process names and ``prctl`` calls are declared once in
``protocol/handoff.py``, which both sides import.

``ForkServerSupervisor`` (the gateway's side; the fork server's own loop is
``aton_tui.forkserver.ClientLauncher``) runs it on one end of a ``SOCK_SEQPACKET`` socket pair, with an
environment as clean as a session's (``session.base_environment``), restarts it
when it dies (at once, then with a growing delay if it keeps dying young), and
turns each ``fork`` request into (pid, pidfd, exit-status future).  The gateway
cannot wait for a grandchild, so the exit status comes from the fork server; if
the fork server dies first, the future fails with ``Orphaned`` and the session
waits for its child itself: the gateway process is made a child subreaper, so the
orphans of a dead fork server become its own children.

Whenever the fork server is not there (not started yet, dead, not answering), a
request fails with ``ForkServerUnavailable`` and the session falls back to
``posix_spawn`` of a new interpreter: a login never fails because of it.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
import socket
import sys
import time

from protocol import handoff

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0  # seconds for an answer (a fork server still importing answers once ready)
STOP_TIMEOUT = 5.0
YOUNG = 30.0  # a fork server that dies younger than this is restarted after a growing delay
MAX_RESTART_DELAY = 60.0
#: Signals whose disposition a child must not inherit (a server started with nohup
#: or ``&`` ignores SIGHUP/SIGINT, and ignored signals survive exec).
RESET_SIGNALS = frozenset(getattr(signal, name) for name in (
    "SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGPIPE", "SIGCHLD", "SIGTSTP", "SIGTTIN", "SIGTTOU",
    "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXFSZ", "SIGXCPU", "SIGCONT", "SIGURG",
) if hasattr(signal, name))


class ForkServerUnavailable(Exception):
    """The fork server could not start this client: spawn it another way."""


class Orphaned(Exception):
    """The fork server ended before this child: wait for the child yourself."""


def spawn(argv: list[str], env: dict[str, str], file_actions: list[tuple], keep: tuple[int, ...] = ()) -> int:
    """``posix_spawn`` a program in a new session, with the signal dispositions and mask of a
    fresh process, and no descriptor of this process but 0-2 (set by ``file_actions``) and
    ``keep`` (inheritable descriptors this process got from its own parent would pass)."""
    closes = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd > 2 and fd not in keep]
    return os.posix_spawn(argv[0], argv, env, file_actions=[*file_actions, *closes], setsid=True,
                          setsigmask=(), setsigdef=RESET_SIGNALS)


def _inheritable_fds() -> list[int]:
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.get_inheritable(int(name)):
                found.append(int(name))
        except OSError:  # listdir's own descriptor, closed by now
            pass
    return found


def supported() -> bool:
    return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(signal, "pidfd_send_signal")


#: What a fork request is answered with: (pid, pidfd, future of the child's exit code).
ForkAnswer = tuple[int, int, "asyncio.Future[int]"]


class ForkServerSupervisor:
    """The gateway's side of the fork server: one ``aton_tui.forkserver`` process at a time,
    restarted when it dies, asked for one client per session."""

    def __init__(self, env: dict[str, str], command: list[str] | None = None) -> None:
        self.env = env
        self.command = command or [sys.executable, "-m", handoff.FORKSERVER_MODULE]
        self.loop = asyncio.get_running_loop()
        self.sock: socket.socket | None = None
        self.pid = 0
        self.pidfd = -1
        self.ready = False
        self.started_at = 0.0
        self.starts = 0
        self.failures = 0  # deaths in a row of a young fork server
        self.stopping = False
        self.restart_timer: asyncio.TimerHandle | None = None
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[ForkAnswer]] = {}  # request id → its answer
        self.statuses: dict[int, asyncio.Future[int]] = {}  # child pid → its exit code
        self.exited: asyncio.Future[None] | None = None
        handoff.become_subreaper()

    # ------------------------------------------------------------------ life cycle

    def start(self) -> None:
        """Start the process (it answers once it has imported the client), or, if it cannot
        be started now, try again later."""
        try:
            self._spawn()
        except OSError:
            self.failures += 1
            delay = min(MAX_RESTART_DELAY, 2.0 ** self.failures)
            log.exception("cannot start the fork server; trying again in %g s", delay)
            self.restart_timer = self.loop.call_later(delay, self._restart)

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            os.set_inheritable(theirs.fileno(), True)
            argv = [*self.command, str(theirs.fileno())]
            self.pid = spawn(argv, self.env, [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                              (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)],
                             keep=(theirs.fileno(),))
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.pidfd = os.pidfd_open(self.pid)
        self.exited = self.loop.create_future()
        self.loop.add_reader(self.pidfd, self._died)
        ours.setblocking(False)
        self.sock = ours
        self.loop.add_reader(ours, self._readable)
        self.ready = False
        self.started_at = time.monotonic()
        self.starts += 1
        log.info("fork server started (pid %d)", self.pid)

    @property
    def available(self) -> bool:
        return self.sock is not None and not self.stopping

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        """Wait until it has imported the client and answers at once (for tests and benchmarks)."""
        end = self.loop.time() + timeout
        while not (self.ready and self.available):
            if self.loop.time() > end:
                return False
            await asyncio.sleep(0.02)
        return True

    async def stop(self) -> None:
        """Close its socket and SIGTERM it (it ends its children and exits), reap it; SIGKILL it
        if it lingers."""
        self.stopping = True
        if self.restart_timer is not None:
            self.restart_timer.cancel()
        self._lost("stopped")
        if self.exited is not None and not self.exited.done():
            signal.pidfd_send_signal(self.pidfd, signal.SIGTERM)  # in case it is still importing
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), STOP_TIMEOUT)
            except TimeoutError:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                await self.exited

    # ------------------------------------------------------------------ requests

    async def fork(self, args: list[str], env: dict[str, str], terminal: int,
                   timeout: float = REQUEST_TIMEOUT) -> ForkAnswer:
        """A child running ``aton_tui.cli.main(args)`` with environment ``env`` on the PTY slave
        ``terminal``: (pid, pidfd, future of its exit code).  The pidfd is the caller's to close."""
        if self.sock is None or self.stopping:
            raise ForkServerUnavailable("the fork server is not running")
        request_id = next(self.ids)
        data = handoff.ForkRequest(request_id, args, env).encode()
        answer: asyncio.Future[ForkAnswer] = self.loop.create_future()
        try:
            socket.send_fds(self.sock, [data], [terminal])
        except OSError as exc:
            raise ForkServerUnavailable(f"cannot reach the fork server: {exc}") from exc
        self.pending[request_id] = answer
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            answer.add_done_callback(_kill_unwanted)  # should it answer after all
            raise ForkServerUnavailable(f"no answer from the fork server in {timeout:g} s") from None
        except asyncio.CancelledError:
            answer.add_done_callback(_kill_unwanted)
            raise

    def _readable(self) -> None:
        while self.sock is not None:
            try:
                data, fds, _flags, _addr = socket.recv_fds(self.sock, handoff.MAX_PACKET, handoff.MAX_FDS)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            if not data:
                self._lost("its socket closed")
                return
            try:
                message = handoff.decode(data)
            except handoff.BadMessage as exc:
                log.error("fork server: unreadable message %r (%s)", data[:200], exc)
                _close(fds)
                continue
            self._dispatch(message, fds)

    def _dispatch(self, message: handoff.HandoffMessage, fds: list[int]) -> None:
        """Act on one message; ``fds`` came with it (a pidfd with ``Forked``, else none)."""
        if not isinstance(message, handoff.Forked):
            _close(fds)
        match message:
            case handoff.Ready():
                self.ready = True
                log.info("fork server ready (pid %d)", self.pid)
            case handoff.Exited(pid, code):
                status = self.statuses.pop(pid, None)
                if status is not None and not status.done():
                    status.set_result(code)
            case handoff.Forked(request_id, pid):
                answer = self.pending.pop(request_id, None)
                pidfd = fds[0] if fds else -1
                _close(fds[1:])
                status = self.statuses[pid] = self.loop.create_future()
                if answer is not None and not answer.done():
                    answer.set_result((pid, pidfd, status))
                else:  # nobody waits for it any more
                    _kill_unwanted_child(pid, pidfd)
            case handoff.Refused(int(request_id), error):
                answer = self.pending.pop(request_id, None)
                if answer is not None and not answer.done():
                    answer.set_exception(ForkServerUnavailable(error))
            case handoff.Refused(None, error):
                log.error("fork server: it could not read a request: %s", error)
            case _:
                log.error("fork server: unexpected message %r", message)

    # ------------------------------------------------------------------ its end

    def _lost(self, why: str) -> None:
        """No more answers will come: fail what waits for one, and let it die."""
        if self.sock is None:
            return
        self.loop.remove_reader(self.sock)
        self.sock.close()
        self.sock = None
        pending, statuses = list(self.pending.values()), list(self.statuses.values())
        self.pending.clear()
        self.statuses.clear()
        for answer in pending:
            if not answer.done():
                answer.set_exception(ForkServerUnavailable(f"the fork server is gone ({why})"))
        for status in statuses:
            if not status.done():
                status.set_exception(Orphaned())
        if not self.stopping:
            log.warning("fork server (pid %d) lost: %s", self.pid, why)

    def _died(self) -> None:
        self._readable()  # what it said before it died (exit statuses) still counts
        self._lost("it ended")
        self.loop.remove_reader(self.pidfd)
        try:
            _, status = os.waitpid(self.pid, 0)
            code = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code = None
        os.close(self.pidfd)
        self.pidfd = -1
        if self.exited is not None and not self.exited.done():
            self.exited.set_result(None)
        if self.stopping:
            return
        young = time.monotonic() - self.started_at < YOUNG
        self.failures = self.failures + 1 if young else 0
        delay = 0.0 if self.failures <= 1 else min(MAX_RESTART_DELAY, 2.0 ** (self.failures - 1))
        log.warning("fork server (pid %d) ended with status %s; restarting in %g s (sessions start "
                    "without it meanwhile)", self.pid, code, delay)
        self.restart_timer = self.loop.call_later(delay, self._restart)

    def _restart(self) -> None:
        self.restart_timer = None
        if not self.stopping:
            self.start()


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _kill_unwanted(answer: asyncio.Future[ForkAnswer]) -> None:
    if not answer.cancelled() and answer.exception() is None:
        pid, pidfd, _status = answer.result()
        _kill_unwanted_child(pid, pidfd)


def _kill_unwanted_child(pid: int, pidfd: int) -> None:
    """A child that came too late for its session: SIGKILL (the fork server reaps it)."""
    log.warning("fork server: child %d came too late, killed", pid)
    try:
        if pidfd >= 0:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        if pidfd >= 0:
            os.close(pidfd)


