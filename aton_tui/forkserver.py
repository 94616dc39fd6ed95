"""A warm launcher for the SSH gateway's game clients: import once, fork per session.

    python -m aton_tui.forkserver FD

The SSH gateway starts this program once, with one end of a ``SOCK_SEQPACKET``
socket pair as file descriptor FD, and asks it for a client per SSH session.  It
imports Textual and the client application once (what makes a fresh interpreter
take a second of CPU to show its first frame), then forks a child per request that
runs ``aton_tui.cli.main`` — the very code path of ``aton connect`` — on the
session's pseudo-terminal.

What it holds: imported modules, and nothing else.  It opens no connection, reads
no file of a player and holds no game state; each child, once forked, connects to
the game server as an ordinary protocol client for its one player, so a session's
client never holds more than that player's view (issue 6, "Separation").  The
gateway (``server/ssh/forkserver.py``, ``ForkServerSupervisor``) never imports this
module: it runs it.  ``ClientLauncher`` is this side's loop.

The messages (``protocol/handoff.py`` declares them, and the process names and
``prctl`` calls, once for both sides):

- gateway → here: ``ForkRequest`` (an id, ``aton_tui.cli``'s arguments and the
  child's whole environment) with the PTY slave passed along (``SCM_RIGHTS``).
- here → gateway: ``Ready`` once the imports are done; ``Forked`` with a pidfd of
  the child passed along, or ``Refused``; and ``Exited`` when a child has ended.
  The gateway cannot wait for its grandchildren: this process reaps them and reports.

The child: a new session (``setsid``) with the slave as its controlling terminal
(``TIOCSCTTY``) and as fd 0, 1 and 2, every other descriptor closed, signal
dispositions and mask as a fresh interpreter has them, ``os.environ`` exactly the
given environment, fresh ``sys.std*`` objects on the terminal, and the few caches
that remember the environment (``tempfile``, Rich's global console) cleared.
Textual reads the terminal's size and ``TERM``/``COLORTERM`` when the app starts,
in the child.  (``/proc/PID/environ`` of a child still shows this program's own
start environment: the kernel shows the memory ``exec`` left, which a fork keeps.)

This process is a child subreaper (orphans below it become its children and are
reaped), dies with its parent (``PR_SET_PDEATHSIG``, and end of file on FD), and
then ends its children's process groups (SIGTERM, SIGKILL after a second).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import gc
import importlib
import os
import select
import signal
import socket
import sys
import tempfile
import termios
import traceback
from collections.abc import Callable, Sequence

from protocol import handoff
from protocol.handoff import PR_SET_NAME, PR_SET_PDEATHSIG, prctl

KILL_GRACE = 1.0

Entry = Callable[[list[str]], int]


def client_main(args: list[str]) -> int:
    from aton_tui.cli import main

    return main(args)


def warm_up() -> None:
    """Import what every client needs (and nothing that connects or holds state)."""
    # what a client imports later, on its way to the first frame (measured): shared if imported here
    import rich._emoji_codes  # noqa: F401
    import textual.drivers.headless_driver
    import textual.drivers.linux_driver
    import textual.layouts.factory
    import textual.layouts.horizontal
    import textual.layouts.stream
    import textual.pilot
    import textual.scrollbar  # noqa: F401
    from rich._unicode_data._versions import VERSIONS

    # the client itself: Textual, Rich, the protocol, every screen
    import aton_tui.app
    import aton_tui.cli
    import aton_tui.local_server
    import aton_tui.settings  # noqa: F401

    # the newest table, which a client loads unless UNICODE_VERSION says otherwise (imported,
    # not loaded: rich.cells caches its choice, made from the environment, in the child)
    importlib.import_module(f"rich._unicode_data.unicode{VERSIONS[-1].replace('.', '-')}")


class ClientLauncher:
    """The fork server's own side: answers the gateway's requests with forked clients, reaps
    them and reports their ends."""

    def __init__(self, sock: socket.socket, entry: Entry) -> None:
        self.sock = sock
        self.entry = entry
        self.children: set[int] = set()
        self.stopping = False
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP)}
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # only to write to the wake-up pipe
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGHUP, self._stop)

    def _stop(self, *_) -> None:
        self.stopping = True

    # ------------------------------------------------------------------ the loop

    def run(self) -> None:
        self.send(handoff.Ready(os.getpid()))
        poller = select.poll()
        poller.register(self.sock, select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        while not self.stopping:
            try:
                events = dict(poller.poll())
            except InterruptedError:
                continue
            if self.wake_r in events:
                self._drain_wakeups()
                self.reap()
            if self.sock.fileno() in events and not self.stopping and not self.receive():
                break  # the gateway is gone (or closed us): end of file
        self.shutdown()

    def receive(self) -> bool:
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, handoff.MAX_PACKET, handoff.MAX_FDS)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        if not data:
            for fd in fds:
                os.close(fd)
            return False
        try:
            self.handle(data, fds)
        finally:
            for fd in fds:
                os.close(fd)
        return True

    def handle(self, data: bytes, fds: list[int]) -> None:
        try:
            request = handoff.decode(data)
            if not isinstance(request, handoff.ForkRequest) or len(fds) != 1:
                raise handoff.BadMessage("a request is args, env and one terminal")
            pid = self.fork()
        except Exception as exc:
            self.send(handoff.Refused(handoff.request_id(data), f"{type(exc).__name__}: {exc}"))
            return
        if pid == 0:
            self.become_client(fds[0], request.args, request.env)  # never returns
        self.children.add(pid)
        try:
            pidfd = os.pidfd_open(pid)  # before any reaping: it names this very child
        except OSError:
            self.send(handoff.Forked(request.id, pid))
        else:
            try:
                self.send(handoff.Forked(request.id, pid), [pidfd])
            finally:
                os.close(pidfd)

    def fork(self) -> int:
        """``os.fork`` with every signal held back until the child has reset its dispositions
        (a SIGTERM that comes at once must end the child, not run this server's handler)."""
        sys.stdout.flush()
        sys.stderr.flush()
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        if pid:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return pid

    def send(self, message: handoff.HandoffMessage, fds: Sequence[int] = ()) -> None:
        try:
            socket.send_fds(self.sock, [message.encode()], list(fds))
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                raise

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass

    def reap(self) -> None:
        """Report every child that has ended; its process group's leftovers are killed first
        (the group id cannot be reused while its exited leader is not yet reaped)."""
        for pid in list(self.children):
            try:
                ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                ended = None
                self.children.discard(pid)
            if ended is None:
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            self._reaped(*os.waitpid(pid, 0))
        while True:  # orphans of our children's children (we are their subreaper)
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self._reaped(pid, status)

    def _reaped(self, pid: int, status: int) -> None:
        if pid in self.children:
            self.children.discard(pid)
            self.send(handoff.Exited(pid, os.waitstatus_to_exitcode(status)))

    def shutdown(self) -> None:
        """The gateway is gone or stopping: end every child's process group and reap it."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.children:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, sig)
            poller = select.poll()
            poller.register(self.wake_r, select.POLLIN)
            deadline = KILL_GRACE if sig == signal.SIGTERM else 5.0
            while self.children and deadline > 0:
                poller.poll(100)
                deadline -= 0.1
                self._drain_wakeups()
                self.reap()
            if not self.children:
                break
        self.sock.close()

    # ------------------------------------------------------------------ the child

    def become_client(self, slave: int, args: list[str], env: dict[str, str]) -> None:
        """In the forked child: become a fresh client on the terminal ``slave``; never returns."""
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            for sig, handler in self.handlers.items():
                signal.signal(sig, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            self.sock.detach()  # the descriptor is closed below; a later GC must not close a reused number
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            prctl(PR_SET_NAME, handoff.CLIENT_NAME)
            os.environ.clear()
            os.environ.update(env)
            fresh_process_state(args)
            code = self.entry(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            with contextlib.suppress(BaseException):
                traceback.print_exc()
            code = 1
        finally:
            try:
                atexit._run_exitfuncs()
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
            finally:
                os._exit(code & 0xFF if isinstance(code, int) else 1)


def fresh_process_state(args: list[str]) -> None:
    """What a new interpreter would have that a fork inherits stale: the standard streams
    (made for the fork server's /dev/null), argv, and caches of the environment."""
    old = sys.__stdout__
    encoding, errors = (old.encoding, old.errors) if old is not None else ("utf-8", "strict")
    # The process's standard streams, open as long as it lives (no context manager), and its
    # __std*__ ones too, which typeshed calls final: a forked client is what must replace them.
    sys.stdin = sys.__stdin__ = open(  # type: ignore[misc]  # noqa: SIM115
        0, encoding=encoding, errors=errors, closefd=False)
    sys.stdout = sys.__stdout__ = open(  # type: ignore[misc]  # noqa: SIM115
        1, "w", buffering=1, encoding=encoding, errors=errors, closefd=False)
    sys.stderr = sys.__stderr__ = open(  # type: ignore[misc]  # noqa: SIM115
        2, "w", buffering=1, encoding=encoding, errors="backslashreplace", closefd=False)
    sys.argv = ["aton", *args]
    tempfile.tempdir = None
    if "rich" in sys.modules:
        import rich

        rich._console = None  # its global console, made for the fork server's streams


def serve(fd: int, entry: Entry = client_main, warm: Callable[[], None] = warm_up) -> None:
    """Run the fork server on the socket ``fd`` until the gateway goes away."""
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # and, should that fail, end of file on the socket
    handoff.become_subreaper()
    prctl(PR_SET_NAME, handoff.FORKSERVER_NAME)
    sock = socket.socket(fileno=fd)
    sock.setblocking(True)
    warm()
    server = ClientLauncher(sock, entry)
    # the imported modules' objects are never freed: move them out of the collector's
    # reach, so that collections in the children do not write to (and unshare) their pages
    gc.collect()
    gc.freeze()
    server.run()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m aton_tui.forkserver FD   (started by the SSH gateway)", file=sys.stderr)
        return 2
    serve(int(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
