"""The limits: connections in total and per address, logins in progress (in all, per address,
and those kept for addresses with none), banner, login and idle timeouts, input rate; a
misbehaving client is dropped and nobody else notices.

Connections from "other computers" come from other loopback addresses (all of 127.0.0.0/8
is loopback on Linux): the client's socket is bound to 127.0.0.2, 127.0.0.3 and so on."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable

import asyncssh
import pytest

from server.ssh.session import GameSession

from ..manual_clock import ManualClock
from .terminal import IN_LOBBY, LOBBY, Stack, client_children, connect, open_terminal, sit_down_against_a_bot

REFUSED = (asyncssh.DisconnectError, ConnectionError)


def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def session_of(stack: Stack, username: str) -> GameSession:
    """The gateway's game session of the player who logged in as ``username``."""
    (session,) = (s for s in stack.gateway.games if s.link.username == username)
    return session


async def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait (a few loop turns at a time) until ``condition()``; ``timeout`` only bounds the wait."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.01)


async def close(*conns: asyncssh.SSHClientConnection) -> None:
    for conn in conns:
        conn.close()
        await conn.wait_closed()


async def test_connections_per_address_and_in_total_are_capped(stack_factory):
    stack = await stack_factory(max_per_address=2, max_sessions=3)
    a, b = await connect(stack.port, "a", key()), await connect(stack.port, "b", key())
    with pytest.raises(REFUSED, match="too many connections from your address"):
        await connect(stack.port, "c", key())
    await close(a)
    c = await connect(stack.port, "c", key())  # a slot is free again
    await close(b, c)
    stack = await stack_factory(max_sessions=1)
    a = await connect(stack.port, "a", key())
    with pytest.raises(REFUSED, match="the server is full"):
        await connect(stack.port, "b", key())
    await close(a)


async def test_logins_in_progress_are_capped_and_timed_out(stack_factory):
    # the version line may take longer than the test: only the login time-out can close the silent one
    stack = await stack_factory(max_unauthenticated=1, login_timeout=1.0, banner_timeout=3600)
    reader, writer = await asyncio.open_connection("127.0.0.1", stack.port)  # says nothing at all
    assert (await reader.readline()).startswith(b"SSH-2.0-AtonGateway")
    with pytest.raises(REFUSED, match="too many logins in progress"):
        await connect(stack.port, "b", key())
    assert await asyncio.wait_for(reader.read(), 30) == b""  # closed by the login time-out
    writer.close()
    # a connection that logs in but never opens a session is closed after the login time too
    idle = await connect(stack.port, "b", key())
    await asyncio.wait_for(idle.wait_closed(), 5)


class IdleConnections:
    """Raw TCP connections that never say a word, each from a chosen loopback address."""

    def __init__(self) -> None:
        self.writers: dict[asyncio.StreamWriter, str] = {}
        self.refused: list[str] = []  # the source address of each one the gateway closed
        self.readers: list[asyncio.Task] = []

    async def open(self, port: int, address: str, count: int) -> None:
        for _ in range(count):
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
            self.writers[writer] = address
            self.readers.append(asyncio.ensure_future(self._until_closed(reader, address)))

    async def _until_closed(self, reader: asyncio.StreamReader, address: str) -> None:
        while await reader.read(4096):
            pass
        self.refused.append(address)

    async def settled(self, gateway) -> Counter[str]:
        """Wait until the gateway has admitted or closed every one; how many it holds per address."""
        for _ in range(200):
            if len(self.refused) + len(gateway.links) == len(self.writers):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"{len(self.writers)} opened, {len(self.refused)} closed, {len(gateway.links)} held")
        return Counter(link.address for link in gateway.links)

    def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for task in self.readers:
            task.cancel()


async def play_a_bot_game(port: int, address: str) -> None:
    """A player logs in from ``address``, reaches the lobby and makes a move against a bot."""
    conn = await connect(port, "player", key(), local_addr=(address, 0))
    chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=20)
    await sit_down_against_a_bot(chan, term)
    await close(conn)


async def test_idle_connections_from_three_addresses_leave_room_to_log_in(stack_factory):
    # the case: 8 idle connections from each of 3 addresses filled all 20 login slots
    stack = await stack_factory(banner_timeout=120)  # here they hold their slots for the whole test
    limits = stack.gateway.limits
    idle = IdleConnections()
    try:
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            await idle.open(stack.port, address, limits.max_per_address)
        held = await idle.settled(stack.gateway)
        await play_a_bot_game(stack.port, "127.0.0.5")
        assert held == {a: limits.max_unauthenticated_per_address for a in ("127.0.0.2", "127.0.0.3", "127.0.0.4")}
    finally:
        idle.close()


async def test_logins_are_kept_for_addresses_that_hold_none(stack_factory):
    # 2 a share, 6 in all, 2 kept: two addresses take 4, a third only one of the two kept
    stack = await stack_factory(banner_timeout=120, max_unauthenticated=6, max_unauthenticated_per_address=2,
                                reserved_logins=2)
    idle = IdleConnections()
    try:
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            await idle.open(stack.port, address, 3)
        held = await idle.settled(stack.gateway)
        await play_a_bot_game(stack.port, "127.0.0.5")  # the last slot kept for a newcomer
        assert held == {"127.0.0.2": 2, "127.0.0.3": 2, "127.0.0.4": 1}
    finally:
        idle.close()


async def test_a_connection_that_sends_no_version_line_is_closed_soon(stack_factory):
    clock = ManualClock()  # the gateway's
    stack = await stack_factory(clock=clock, banner_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", stack.port)
    assert (await reader.readline()).startswith(b"SSH-2.0-AtonGateway")
    writer.write(b"SSH-2.0-slow")  # not the whole line: no end of line in time
    clock.advance(0.5)
    with contextlib.suppress(ConnectionResetError):  # (a reset if our bytes were still unread)
        await asyncio.wait_for(reader.read(), 10)  # the gateway closes it (the login timeout is 30 s)
    writer.close()
    await stack.settled()
    # a client that says its version at once keeps its connection past the banner time-out
    conn = await connect(stack.port, "alice", key())
    clock.advance(1.0)
    answer = await conn.run("hello", timeout=10)
    assert isinstance(answer.stderr, str) and "connect without a command to play" in answer.stderr  # answered:
    # still connected (``hello`` is not one of the commands the gateway runs: refused in one line)
    assert not conn.is_closed()
    await close(conn)


async def test_an_idle_session_is_closed_and_typing_keeps_one_open(stack_factory):
    clock = ManualClock()  # the gateway's: idleness is counted on it alone
    stack = await stack_factory(clock=clock, idle_timeout=3.0)
    typist, sleeper = await connect(stack.port, "typist", key()), await connect(stack.port, "sleeper", key())
    (tchan, tterm), (_schan, sterm) = await asyncio.gather(open_terminal(typist), open_terminal(sleeper))
    await asyncio.gather(tterm.wait_for(LOBBY, timeout=20), sterm.wait_for(LOBBY, timeout=20))
    typing, sleeping = (session_of(stack, name) for name in ("typist", "sleeper"))
    for _ in range(3):  # a key every 2 s of the gateway's clock
        clock.advance(2.0)
        assert not typing.ending
        assert sleeping.ending == (clock.now() > 3.0)  # closed once 3 s passed without a key, not before
        tchan.write(b"z")  # no binding: nothing happens but the key press
        await until(lambda: typing.last_input == clock.now(), "the gateway to get the key press")
    await asyncio.wait_for(sterm.closed.wait(), 10)
    assert "Closed after 3 seconds without a key press" in sterm.text() and sterm.exit_status == 1
    assert b"\x1b[?1049l" in sterm.output  # the terminal put back before the message
    assert not tterm.closed.is_set()
    assert len(stack.gateway.child_pids()) == 1
    await close(typist, sleeper)
    await stack.settled()
    assert client_children() == set()


async def test_an_input_flood_drops_that_client_only(stack_factory):
    stack = await stack_factory(input_rate=200, input_burst=1000)
    flooder, player = await connect(stack.port, "flood", key()), await connect(stack.port, "calm", key())
    (fchan, fterm), (pchan, pterm) = await asyncio.gather(open_terminal(flooder), open_terminal(player))
    await asyncio.gather(fterm.wait_for(IN_LOBBY, timeout=20), pterm.wait_for(IN_LOBBY, timeout=20))
    fchan.write(b"z" * 5000)
    await asyncio.wait_for(flooder.wait_closed(), 5)
    mark = len(pterm.output)
    pchan.write(b"b")
    await pterm.wait_for("Strength", since=mark)
    await close(player)
    await stack.settled()
    assert client_children() == set()


async def test_one_game_client_per_connection(stack):
    conn = await connect(stack.port, "alice", key())
    _chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=15)
    _chan2, term2 = await open_terminal(conn)
    await asyncio.wait_for(term2.closed.wait(), 5)
    assert term2.exit_status == 1 and "One game client per connection" in term2.text()
    assert not term.closed.is_set()
    await close(conn)
