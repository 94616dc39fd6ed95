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
environment as clean as a session's (``server.hosted_client.base_environment``), restarts it
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
import sys

from protocol import handoff

from .supervised import SupervisedProcess, close_fds, spawn, supported

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0  # seconds for an answer (a fork server still importing answers once ready)

__all__ = ["ForkServerSupervisor", "ForkServerUnavailable", "Orphaned", "spawn", "supported"]


class ForkServerUnavailable(Exception):
    """The fork server could not start this client: spawn it another way."""


class Orphaned(Exception):
    """The fork server ended before this child: wait for the child yourself."""


#: What a fork request is answered with: (pid, pidfd, future of the child's exit code).
ForkAnswer = tuple[int, int, "asyncio.Future[int]"]


class ForkServerSupervisor(SupervisedProcess):
    """The gateway's side of the fork server: one ``aton_tui.forkserver`` process at a time,
    restarted when it dies, asked for one client per session."""

    kind = "fork server"

    def __init__(self, env: dict[str, str], command: list[str] | None = None) -> None:
        super().__init__(env, command or [sys.executable, "-m", handoff.FORKSERVER_MODULE])
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[ForkAnswer]] = {}  # request id → its answer
        self.statuses: dict[int, asyncio.Future[int]] = {}  # child pid → its exit code

    async def fork(self, args: list[str], env: dict[str, str], terminal: int,
                   timeout: float = REQUEST_TIMEOUT) -> ForkAnswer:
        """A child running ``aton_tui.cli.main(args)`` with environment ``env`` on the PTY slave
        ``terminal``: (pid, pidfd, future of its exit code).  The pidfd is the caller's to close."""
        if self.sock is None or self.stopping:
            raise ForkServerUnavailable("the fork server is not running")
        request_id = next(self.ids)
        answer: asyncio.Future[ForkAnswer] = self.loop.create_future()
        try:
            self.send(handoff.ForkRequest(request_id, args, env), [terminal])
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

    def _dispatch(self, message: handoff.HandoffMessage, fds: list[int]) -> None:
        """Act on one message; ``fds`` came with it (a pidfd with ``Forked``, else none)."""
        if not isinstance(message, handoff.Forked):
            close_fds(fds)
        match message:
            case handoff.Exited(pid, code):
                status = self.statuses.pop(pid, None)
                if status is not None and not status.done():
                    status.set_result(code)
            case handoff.Forked(request_id, pid):
                answer = self.pending.pop(request_id, None)
                pidfd = fds[0] if fds else -1
                close_fds(fds[1:])
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

    def _lost_answers(self, why: str) -> None:
        """Fail the requests waiting for an answer; the children's exit statuses will come from
        no one: their sessions wait for them themselves (``Orphaned``)."""
        pending, statuses = list(self.pending.values()), list(self.statuses.values())
        self.pending.clear()
        self.statuses.clear()
        for answer in pending:
            if not answer.done():
                answer.set_exception(ForkServerUnavailable(f"the fork server is gone ({why})"))
        for status in statuses:
            if not status.done():
                status.set_exception(Orphaned())


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


