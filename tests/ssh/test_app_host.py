"""Sessions as apps in an app host (``--ssh-sessions inprocess``): kept apart though they share a process.

The first tests drive the gateway's ``AppHosts`` and ``HostedClient`` directly, with a
real app host running the probe apps of ``app_host_probe.py``; the last ones run the
real client in a real gateway over SSH.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable

import asyncssh
import pytest
from textual.app import App

from aton_tui.app import LOBBY_REDRAW_DELAY, AtonApp, lobby_redraw_delay
from aton_tui.app_host import BLOCKED, CRASHED, AppHost, client_app
from protocol import handoff
from protocol.handoff import APP_HOST_MODULE
from server.app import ArbiterServer
from server.config import INPROCESS_SESSIONS, ServerConfig
from server.ssh.app_hosts import HOST_LOST, AppHosts, HostedClient
from server.ssh.session import forkserver_environment

from .app_host_probe import probe_app
from .terminal import LOBBY, connect, open_terminal, plain

BLOCK_LIMIT = 0.5
PROBE = [sys.executable, "-m", APP_HOST_MODULE, "--app", "tests.ssh.app_host_probe:probe_app"]


class Session:
    """A session's client in the host, and what it drew."""

    def __init__(self, hosts: AppHosts, name: str, env: dict[str, str] | None = None,
                 size: tuple[int, int] = (80, 24)) -> None:
        self.output = bytearray()
        self.client = HostedClient((*size, 0, 0), self.output.extend, lambda blocked: None)
        self.client.open(hosts, [name], env or {"TERM": "xterm-256color"})

    def text(self, since: int = 0) -> str:
        return plain(bytes(self.output[since:]))

    async def wait_for(self, text: str, since: int = 0, timeout: float = 10.0) -> str:
        end = time.monotonic() + timeout
        while text not in self.text(since):
            assert time.monotonic() < end, f"never drew {text!r}: {self.text(since)[-500:]!r}"
            await asyncio.sleep(0.02)
        return self.text(since)

    async def facts(self) -> dict:
        screen = await self.wait_for("FACTS ")
        return json.loads(screen.split("FACTS ", 1)[1].split("}", 1)[0] + "}")

    async def press(self, key: bytes, answer: str) -> str:
        mark = len(self.output)
        self.client.write(key)
        return await self.wait_for(answer, since=mark)

    async def census(self) -> tuple[int, int]:
        """(apps alive in the host, objects it holds frozen), after a collection."""
        said = (await self.press(b"c", " frozen ")).rsplit("census ", 1)[1].split()
        return int(said[0]), int(said[2])

    async def census_until(self, ready: Callable[[int, int], bool], tries: int = 100) -> tuple[int, int]:
        """Take the census every 0.1 s until ``ready(alive, frozen)`` (the host collects on its own time)."""
        for _ in range(tries):
            if ready(*(found := await self.census())):
                return found
            await asyncio.sleep(0.1)
        raise AssertionError(f"the census stayed at {found}")

    async def ended(self, timeout: float = 10.0) -> int:
        status = await asyncio.wait_for(asyncio.shield(self.client.exited), timeout)
        self.client.close()
        return status


@pytest.fixture
async def hosts():
    hosts = AppHosts(1, forkserver_environment(), BLOCK_LIMIT, 1 << 20, command=PROBE)
    hosts.start()
    assert await hosts.wait_ready(60)
    yield hosts
    await hosts.stop()


@pytest.mark.parametrize("key", [b"b", b"s"], ids=["sleeps", "spins"])
async def test_a_handler_that_holds_the_loop_ends_its_session_alone(hosts, key):
    stuck, other = Session(hosts, "stuck"), Session(hosts, "other")
    await stuck.facts()
    await other.facts()
    host = hosts.pids[0]
    stuck.client.write(key)
    assert await stuck.ended() == 1
    assert stuck.client.why == BLOCKED
    await other.press(b"k", "other key 1")  # the other session goes on, in the same process
    assert hosts.pids == [host] and hosts.hosts[0].starts == 1
    other.client.write(b"\x11")  # ctrl+q
    assert await other.ended() == 0


async def test_a_handler_that_raises_ends_its_session_alone(hosts):
    failing, other = Session(hosts, "failing"), Session(hosts, "other")
    await failing.facts()
    await other.facts()
    failing.client.write(b"x")
    assert await failing.ended() == 1
    assert failing.client.why == CRASHED
    await other.press(b"k", "other key 1")
    await other.client.terminate()
    assert other.client.exited.done()


async def test_a_host_that_cannot_interrupt_a_handler_ends_and_is_started_again(hosts):
    stuck, other = Session(hosts, "stuck"), Session(hosts, "other")
    await stuck.facts()
    await other.facts()
    first = hosts.pids[0]
    stuck.client.write(b"r")  # inside C: no signal handler runs until it returns
    assert await stuck.ended() == 255 and await other.ended() == 255
    assert stuck.client.why == other.client.why == HOST_LOST
    assert await hosts.wait_ready(60) and hosts.pids != [first]
    later = Session(hosts, "later")
    await later.facts()
    await later.press(b"k", "later key 1")


async def test_a_burst_of_sessions_waits_for_a_busy_host_and_none_is_lost(hosts):
    """More sessions than the host's socket holds, sent while the host does not read (stopped):
    they wait in order in the gateway, and each one starts once it reads again."""
    host = hosts.hosts[0]
    os.kill(host.pid, signal.SIGSTOP)
    try:
        padding = {"TERM": "xterm-256color", "PAD": "x" * 16_000}  # 30 of these pass any socket buffer
        sessions = [Session(hosts, f"b{n}", padding) for n in range(30)]
        assert host.outbox, "the burst never filled the socket"
    finally:
        os.kill(host.pid, signal.SIGCONT)
    for session in sessions:
        await session.facts()
    assert not host.outbox
    for session in sessions:
        await session.client.terminate()
    assert host.clients == {}


async def test_each_session_sees_its_own_environment_colours_and_size(hosts):
    plain_term = Session(hosts, "ann", {"TERM": "xterm-256color", "SECRET": "ann's"}, size=(90, 20))
    truecolor = Session(hosts, "bob", {"TERM": "xterm-256color", "COLORTERM": "truecolor", "SECRET": "bob's"})
    dumb = Session(hosts, "cy", {"TERM": "vt100", "SECRET": "cy's"})
    assert await plain_term.facts() == {"name": "ann", "env": "ann's", "host": None, "colours": "256"}
    assert await truecolor.facts() == {"name": "bob", "env": "bob's", "host": None, "colours": "truecolor"}
    assert await dumb.facts() == {"name": "cy", "env": "cy's", "host": None, "colours": "standard"}
    assert b"38;2;" in truecolor.output and b"38;2;" not in plain_term.output
    for session in (plain_term, truecolor, dumb):
        await session.client.terminate()


async def test_a_dead_session_s_app_is_freed(hosts):
    """No cache keeps an app that has ended: after many sessions, each with keys that Textual's
    own parser would cache (kitty keyboard sequences), only the census itself is alive."""
    for n in range(12):
        session = Session(hosts, f"s{n}")
        await session.facts()
        await session.press(b"\x1b[107u", f"s{n} key 1")  # k, as the kitty keyboard protocol sends it
        session.client.resize(100, 30)
        await session.client.terminate()
    census = Session(hosts, "census")
    await census.facts()
    alive, _ = await census.census_until(lambda alive, frozen: alive == 1)
    assert alive == 1  # only the census itself


async def test_a_session_frozen_while_it_ran_is_freed_once_it_has_ended(hosts):
    """The host freezes its running apps a moment after they start (``aton_tui.host_collector``),
    out of the collector's sight; one that ends is still returned, by the full collection that
    follows its end."""
    first = Session(hosts, "first")
    await first.facts()
    _, frozen = await first.census()
    _, now_frozen = await first.census_until(lambda alive, now_frozen: now_frozen > frozen)
    assert now_frozen > frozen  # its app frozen by the host
    await first.client.terminate()
    census = Session(hosts, "census")
    await census.facts()
    alive, _ = await census.census_until(lambda alive, frozen: alive == 1)
    assert alive == 1  # only the census itself
    await census.client.terminate()


@pytest.mark.parametrize("ssh_sessions", [INPROCESS_SESSIONS])
async def test_real_clients_over_ssh_are_freed_when_their_sessions_end(stack_factory):
    stack = await stack_factory()
    gateway = stack.gateway
    assert gateway.app_hosts is not None
    await gateway.app_hosts.stop()
    gateway.app_hosts = hosts = AppHosts(1, forkserver_environment(), gateway.limits.handler_block_limit,
                                         gateway.limits.output_backlog, command=PROBE)
    hosts.start()
    assert await hosts.wait_ready(60)
    for n in range(3):  # the real client (the probe's factory builds it, and counts it)
        conn = await connect(stack.port, f"p{n}", asyncssh.generate_private_key("ssh-ed25519"))
        chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=15)
        await term.wait_for(f"p{n}")
        chan.write(b"\x1b[98;5u")  # ctrl+b, as the kitty keyboard protocol sends it
        conn.close()
        await conn.wait_closed()
    await stack.settled()
    census = Session(hosts, "census")
    await census.facts()
    alive, _ = await census.census_until(lambda alive, frozen: alive == 1)
    assert alive == 1  # only the census itself
    await census.client.terminate()


class HostUnderTest:
    """An ``AppHost`` in this process, its sessions drawn on socket pairs whose output is read and dropped."""

    def __init__(self, make_app, close_grace: float, keep_output: bool = False) -> None:
        """``keep_output``: what the apps draw stays in their sockets, for ``output`` (else it is read
        and dropped)."""
        self.loop = asyncio.get_running_loop()
        self.gateway_end, host_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.host = AppHost(host_end, make_app, close_grace=close_grace)
        self.serving = self.loop.create_task(self.host.run())
        self.keep_output = keep_output
        self.screens: list[socket.socket] = []

    def open(self, session: int, args: list[str]) -> None:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        if not self.keep_output:
            self.loop.add_reader(ours, ours.recv, 1 << 16)
        self.screens.append(ours)
        self.host.dispatch(handoff.OpenSession(session, args, {"TERM": "xterm-256color"}, 80, 24),
                           [os.dup(theirs.fileno())])
        theirs.close()

    def output(self, index: int) -> bytes:
        """What the ``index``-th app opened has drawn so far (``keep_output``)."""
        try:
            return self.screens[index].recv(1 << 20, socket.MSG_PEEK)
        except BlockingIOError:
            return b""

    async def close(self) -> None:
        self.host.stop()
        await self.serving
        for ours in self.screens:
            if not self.keep_output:
                self.loop.remove_reader(ours)
            ours.close()
        self.gateway_end.close()


async def test_a_host_spaces_its_apps_lobby_redraws_by_how_many_it_draws():
    """Each app waits ``lobby_redraw_delay(apps)`` at most before drawing its lobby's players and
    games: longer while more apps share the host, shorter again as they leave."""
    hosted = HostUnderTest(client_app, close_grace=2.0)
    host = hosted.host
    for n in range(1, 7):
        hosted.open(n, ["connect", "127.0.0.1:9", f"--name=p{n}"])

    def delays() -> list[float]:
        return [s.app.lobby_redraw_delay for s in host.sessions.values() if isinstance(s.app, AtonApp)]

    async def settle(count: int) -> None:
        for _ in range(500):
            if len(delays()) == count:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{len(delays())} apps, not {count}")

    await settle(6)
    assert delays() == [lobby_redraw_delay(6)] * 6
    assert lobby_redraw_delay(6) > lobby_redraw_delay(1) == LOBBY_REDRAW_DELAY  # (a lone app: no longer)
    host.end(host.sessions[1])
    host.end(host.sessions[2])
    await settle(4)
    assert delays() == [lobby_redraw_delay(4)] * 4 and lobby_redraw_delay(4) < lobby_redraw_delay(6)
    await hosted.close()


async def test_a_host_starts_its_apps_one_at_a_time_in_the_order_they_came():
    """Each app is made once the one before has drawn its first frame (``aton_tui.start_turns``):
    of a burst of logins, the first to come is drawn first, not all of them near the end."""
    count = 5
    drawn_when_made: dict[int, list[bool]] = {}

    def make(args: list[str], env: dict[str, str]) -> App:
        drawn_when_made[int(args[0])] = [b"FACTS" in hosted.output(i) for i in range(count)]
        return probe_app(args, env)

    hosted = HostUnderTest(make, close_grace=2.0, keep_output=True)
    for n in range(count):
        hosted.open(n, [str(n)])
    for _ in range(500):
        if all(b"FACTS" in hosted.output(i) for i in range(count)):
            break
        await asyncio.sleep(0.02)
    assert drawn_when_made == {n: [i < n for i in range(count)] for n in range(count)}
    await hosted.close()


async def test_a_host_s_clients_connect_once_every_start_queued_is_drawn(tmp_path):
    """Connecting and filling the lobby wait until the apps queued behind are drawn too
    (``AtonApp.connect_after``): done in the middle of a burst, that work came before the later
    players' first frames."""
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")))
    await server.start()
    count = 3
    connected_when_made: list[int] = []

    def make(args: list[str], env: dict[str, str]) -> App:
        connected_when_made.append(len(server.connections))
        return client_app(args, env)

    hosted = HostUnderTest(make, close_grace=2.0)
    try:
        for n in range(count):
            hosted.open(n, ["connect", f"127.0.0.1:{server.port}", f"--name=p{n}"])
        for _ in range(500):
            if len([c for c in server.connections if c.greeted]) == count:
                break
            await asyncio.sleep(0.02)
        assert connected_when_made == [0] * count  # none connected while the others started
        assert len([c for c in server.connections if c.greeted]) == count  # then every one did
    finally:
        await hosted.close()
        await server.stop()


class Stubborn(App):
    """An app that does not end when its session ends (its ``exit`` is ignored): it is cut off."""

    def exit(self, *args, **kwargs) -> None:
        pass


async def test_sessions_cut_off_together_are_logged_in_one_line(caplog):
    # 500 sessions closed at once used to log 500 lines, one for each app cut off
    hosted = HostUnderTest(lambda args, env: Stubborn(), close_grace=0.2)
    host = hosted.host
    for n in range(1, 4):
        hosted.open(n, [])
    for _ in range(500):
        if all(s.app is not None and s.app.is_running for s in host.sessions.values()) and len(host.sessions) == 3:
            break
        await asyncio.sleep(0.02)
    with caplog.at_level("WARNING", logger="aton_tui.app_host"):
        for session in list(host.sessions.values()):
            host.end(session)
        for _ in range(500):
            if not host.sessions:
                break
            await asyncio.sleep(0.02)
    assert not host.sessions
    assert [r.getMessage() for r in caplog.records if "did not end" in r.getMessage()] == [
        "app host: 3 sessions (1, 2, 3) did not end in 0.2 s: cancelled"]
    await hosted.close()
