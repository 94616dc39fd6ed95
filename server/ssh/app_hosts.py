"""The gateway's side of the app hosts: sessions' clients as apps in a few shared processes.

The second way to run a session's client (``SSHConfig.sessions == "inprocess"``; the
first, a process per session, is ``session.PtyChild``).  The gateway keeps
``SSHConfig.app_hosts`` app hosts running (``python -m aton_tui.app_host``, a program
of the client package that the gateway runs and never imports; see that module for
how sessions are kept apart in it), restarted when one dies, and gives each session to
the one with the fewest (``AppHosts.least_busy``).

``HostedClient`` is a session's end of it: a stream socket pair, one end passed to the
host with ``OpenSession`` (the client's arguments and whole environment, the
terminal's size), the other read and written here as a PTY's master is.  Resizes and
the end are messages (``Resize``, ``CloseSession``); the host's ``SessionEnded`` is the
client's exit status, with what ended it when it was not the player.  When a host
dies, its sessions end (their players log in again, to another) and it is restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import sys
from collections.abc import Callable

from protocol import handoff

from .client_end import KILL_GRACE, ClientEnd
from .supervised import SupervisedProcess, close_fds

log = logging.getLogger(__name__)

HOST_LOST = "The game client's host stopped. Your games are kept: log in again to play on."


class AppHostUnavailable(Exception):
    """No app host can take a session now."""


class AppHost(SupervisedProcess):
    """One app host process and the sessions it runs."""

    kind = "app host"

    def __init__(self, env: dict[str, str], block_limit: float, output_max: int,
                 command: list[str] | None = None) -> None:
        super().__init__(env, command or [sys.executable, "-m", handoff.APP_HOST_MODULE])
        self.block_limit = block_limit
        self.output_max = output_max
        self.clients: dict[int, HostedClient] = {}

    def options(self) -> list[str]:
        return ["--block-limit", f"{self.block_limit:g}", "--output-max", str(self.output_max)]

    def open(self, client: HostedClient, fd: int, args: list[str], env: dict[str, str]) -> None:
        """Run ``client``'s app on the socket ``fd`` (``OSError``: the host cannot be reached)."""
        columns, rows = client.columns_rows
        self.send(handoff.OpenSession(client.id, args, env, columns, rows), [fd])
        self.clients[client.id] = client

    def _dispatch(self, message: handoff.HandoffMessage, fds: list[int]) -> None:
        close_fds(fds)
        match message:
            case handoff.SessionEnded(session_id, status, why):
                client = self.clients.pop(session_id, None)
                if client is not None:
                    client.ended(status, why)
            case _:
                log.error("app host: unexpected message %r", message)

    def _lost_answers(self, why: str) -> None:
        """Its sessions are over: each ends with the host."""
        clients = list(self.clients.values())
        self.clients.clear()
        for client in clients:
            client.ended(255, HOST_LOST)


class AppHosts:
    """The gateway's app hosts, ``count`` of them, each restarted when it dies."""

    def __init__(self, count: int, env: dict[str, str], block_limit: float, output_max: int,
                 command: list[str] | None = None) -> None:
        self.hosts = [AppHost(env, block_limit, output_max, command) for _ in range(count)]
        self.ids = itertools.count(1)

    def start(self) -> None:
        for host in self.hosts:
            host.start()

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        return all(await asyncio.gather(*(host.wait_ready(timeout) for host in self.hosts)))

    async def stop(self) -> None:
        await asyncio.gather(*(host.stop() for host in self.hosts))

    @property
    def pids(self) -> list[int]:
        return [host.pid for host in self.hosts if host.available]

    def least_busy(self) -> AppHost:
        """The running host with the fewest sessions (ready ones first: a host still importing
        takes a session only when none is ready)."""
        running = [host for host in self.hosts if host.available]
        if not running:
            raise AppHostUnavailable("no app host is running")
        return min(running, key=lambda host: (not host.ready, len(host.clients)))


class HostedClient(ClientEnd):
    """A session's client as an app in an app host; the descriptor is a stream socket to it."""

    def __init__(self, size: tuple[int, int, int, int], on_output: Callable[[bytes], None],
                 on_input_blocked: Callable[[bool], None]) -> None:
        super().__init__(on_output, on_input_blocked)
        self.size = size
        self.id = 0
        self.host: AppHost | None = None
        self.why = ""  # what ended it, when not the player: said to them
        ours, self.theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.setblocking(False)
        self._attach(ours.detach())
        self.resume_output()

    @property
    def columns_rows(self) -> tuple[int, int]:
        return max(self.size[0], 1), max(self.size[1], 1)

    def open(self, hosts: AppHosts, args: list[str], env: dict[str, str]) -> None:
        """Start the client in the least busy host; ``AppHostUnavailable`` if none can take it."""
        host = hosts.least_busy()
        self.id = next(hosts.ids)
        try:
            host.open(self, self.theirs.fileno(), args, env)
        except OSError as exc:
            raise AppHostUnavailable(f"cannot reach the app host: {exc}") from exc
        finally:
            self.theirs.close()
        self.host, self.pid = host, host.pid
        self.started.set_result(None)

    def resize(self, columns: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.size = (columns, rows, xpixels, ypixels)
        if self.host is not None and not self.exited.done():
            with contextlib.suppress(OSError):  # the host is gone: the session ends with it
                self.host.send(handoff.Resize(self.id, *self.columns_rows))

    def ended(self, status: int, why: str) -> None:
        """The host says the app has ended (or the host itself has)."""
        self.why = why
        if not self.exited.done():
            self.exited.set_result(status)

    async def terminate(self, grace: float = KILL_GRACE) -> int:
        """Ask the host to end the app; after ``grace`` (and as long again for the host to cut it
        off), the session is given up here; the exit code."""
        if not self.exited.done() and self.host is not None:
            try:
                self.host.send(handoff.CloseSession(self.id))
            except OSError:
                self.ended(255, HOST_LOST)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), 2 * grace)
            except TimeoutError:
                log.warning("app host %d: session %d did not end: given up", self.host.pid, self.id)
                self.host.clients.pop(self.id, None)
                self.ended(255, "")
        if not self.exited.done():  # never started
            self.abandon()
        return await self.exited

    def close(self) -> None:
        super().close()
        if self.theirs.fileno() >= 0:
            self.theirs.close()
