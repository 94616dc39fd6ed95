"""A helper process the gateway runs, restarts and talks to: the fork server or an app host.

The gateway runs its helpers (``aton_tui/forkserver.py``, ``aton_tui/app_host.py``) as
programs of the client package, which it never imports, each on one end of a
``SOCK_SEQPACKET`` socket pair (``protocol.handoff``'s messages), with an environment as
clean as a session's.  ``SupervisedProcess`` starts one, says when it is ready (its
``Ready`` message: its imports are done), restarts it when it dies (at once, then with
a growing delay if it keeps dying young), and hands every other message to its
subclass (``_dispatch``), which also fails whatever waits for an answer when the
process is lost (``_lost_answers``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import time
from collections import deque

from protocol import handoff

log = logging.getLogger(__name__)

STOP_TIMEOUT = 5.0
YOUNG = 30.0  # a helper that dies younger than this is restarted after a growing delay
MAX_RESTART_DELAY = 60.0
#: Signals whose disposition a child must not inherit (a server started with nohup
#: or ``&`` ignores SIGHUP/SIGINT, and ignored signals survive exec).
RESET_SIGNALS = frozenset(getattr(signal, name) for name in (
    "SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGPIPE", "SIGCHLD", "SIGTSTP", "SIGTTIN", "SIGTTOU",
    "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXFSZ", "SIGXCPU", "SIGCONT", "SIGURG",
) if hasattr(signal, name))


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


class SupervisedProcess:
    """One helper process at a time (``command FD``), restarted when it dies; subclasses act on
    its messages."""

    #: What the log calls it
    kind = "helper"

    def __init__(self, env: dict[str, str], command: list[str]) -> None:
        self.env = env
        self.command = command
        self.loop = asyncio.get_running_loop()
        self.sock: socket.socket | None = None
        self.pid = 0
        self.pidfd = -1
        self.ready = False
        self.started_at = 0.0
        self.starts = 0
        self.failures = 0  # deaths in a row of a young helper
        self.stopping = False
        self.restart_timer: asyncio.TimerHandle | None = None
        self.exited: asyncio.Future[None] | None = None
        self.outbox: deque[tuple[bytes, list[int]]] = deque()  # messages its full socket has not taken yet
        handoff.become_subreaper()

    # ------------------------------------------------------------------ life cycle

    def start(self) -> None:
        """Start the process (it answers once it has done its imports), or, if it cannot be
        started now, try again later."""
        try:
            self._spawn()
        except OSError:
            self.failures += 1
            delay = min(MAX_RESTART_DELAY, 2.0 ** self.failures)
            log.exception("cannot start the %s; trying again in %g s", self.kind, delay)
            self.restart_timer = self.loop.call_later(delay, self._restart)

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            os.set_inheritable(theirs.fileno(), True)
            argv = [*self.command, str(theirs.fileno()), *self.options()]
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
        log.info("%s started (pid %d)", self.kind, self.pid)

    def options(self) -> list[str]:
        """The program's arguments after its socket's descriptor."""
        return []

    @property
    def available(self) -> bool:
        return self.sock is not None and not self.stopping

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        """Wait until it has done its imports and answers at once (for tests and benchmarks)."""
        end = self.loop.time() + timeout
        while not (self.ready and self.available):
            if self.loop.time() > end:
                return False
            await asyncio.sleep(0.02)
        return True

    async def stop(self) -> None:
        """Close its socket and SIGTERM it (it ends what it runs and exits), reap it; SIGKILL it
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

    # ------------------------------------------------------------------ messages

    def send(self, message: handoff.HandoffMessage, fds: list[int] | None = None) -> None:
        """Send a message (and descriptors, which stay the caller's); ``OSError`` if the process
        is not there.  While its socket is full (a burst of logins, the process busy) messages
        wait here in order, each with copies of its descriptors, until it takes them."""
        if self.sock is None:
            raise OSError(f"the {self.kind} is not running")
        data = message.encode()
        if not self.outbox:
            try:
                socket.send_fds(self.sock, [data], fds or [])
                return
            except BlockingIOError:
                self.loop.add_writer(self.sock, self._flush)
        self.outbox.append((data, [os.dup(fd) for fd in fds or []]))

    def _flush(self) -> None:
        while self.outbox and self.sock is not None:
            data, fds = self.outbox[0]
            try:
                socket.send_fds(self.sock, [data], fds)
            except BlockingIOError:
                return
            except OSError:
                self._lost("its socket failed")
                return
            self.outbox.popleft()
            close_fds(fds)
        if self.sock is not None:
            self.loop.remove_writer(self.sock)

    def _readable(self) -> None:
        while self.sock is not None and (packet := handoff.receive(self.sock)) is not None:
            data, fds = packet
            if not data:
                self._lost("its socket closed")
                return
            try:
                message = handoff.decode(data)
            except handoff.BadMessage as exc:
                log.error("%s: unreadable message %r (%s)", self.kind, data[:200], exc)
                close_fds(fds)
                continue
            if isinstance(message, handoff.Ready):
                close_fds(fds)
                self.ready = True
                log.info("%s ready (pid %d)", self.kind, self.pid)
            else:
                self._dispatch(message, fds)

    def _dispatch(self, message: handoff.HandoffMessage, fds: list[int]) -> None:
        """Act on one message but ``Ready``; ``fds`` came with it."""
        raise NotImplementedError

    # ------------------------------------------------------------------ its end

    def _lost(self, why: str) -> None:
        """No more answers will come: fail what waits for one, and let it die."""
        if self.sock is None:
            return
        self.loop.remove_reader(self.sock)
        if self.outbox:
            self.loop.remove_writer(self.sock)
        for _, fds in self.outbox:
            close_fds(fds)
        self.outbox.clear()
        self.sock.close()
        self.sock = None
        self._lost_answers(why)
        if not self.stopping:
            log.warning("%s (pid %d) lost: %s", self.kind, self.pid, why)

    def _lost_answers(self, why: str) -> None:
        """Fail whatever waits for an answer from the process, which is gone (``why``)."""

    def _died(self) -> None:
        self._readable()  # what it said before it died still counts
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
        log.warning("%s (pid %d) ended with status %s; restarting in %g s", self.kind, self.pid, code, delay)
        self.restart_timer = self.loop.call_later(delay, self._restart)

    def _restart(self) -> None:
        self.restart_timer = None
        if not self.stopping:
            self.start()


def close_fds(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)
