"""SSH connection floods and slowloris against the real gateway, loopback only: a player still gets in.

The game server and its SSH gateway run in this process (``tests/ssh/terminal.Stack``)
with the limits of a public server; the attackers come from 127.0.0.2–127.0.0.9, as eight
computers would, and the player from 127.0.0.100.

- **Connection flood** (``test_a_connection_flood``): four workers on each attacking
  address open connection after connection, ``$ATON_ABUSE_SSH_CONNECTIONS`` in all (600 by
  default), each one of (seeded): say nothing, hang up at once, send an HTTP request, or
  log in as a guest and leave.  Once half of them are tried, and the flood holds the 15
  login slots that addresses already holding some may take, a player logs in with a key
  and starts a game against a bot; the flood goes on until the player is seated.
- **Slowloris** (``test_slowloris``): six connections on each attacking address trickle
  bytes — a version line that never ends, or a proper version line and then a packet that
  never ends — and open again when they are closed, for ``$ATON_ABUSE_SSH_SECONDS`` (3 by
  default).  The gateway's banner and login time-outs are shortened (0.5 and 2 s) so that
  they come round several times in that while.  Meanwhile the player logs in and plays.

Checked: the player gets in at the first try (eight addresses cannot hold every login
slot: see ``EIGHT_ADDRESSES``) and plays; its wait is printed, not asserted.  The gateway
logs no error, closes every trickling connection by itself, and afterwards holds nothing:
no connection, no login slot.  Before logins in progress were shared out per address,
the player met 27 refusals in the flood and 15 in the slowloris.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import struct
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import overload

import asyncssh

from server.config import FORKED_SESSIONS, SSHConfig, SSHLimits
from tests.ssh.terminal import LOBBY, Stack, connect, open_terminal, sit_down_against_a_bot

from .conftest import PATIENCE, until

ATTACKERS = tuple(f"127.0.0.{i}" for i in range(2, 10))
PLAYER = "127.0.0.100"
SEED = 2026
#: What the gateway says when it closes a connection, most specific first → how it is counted.
CLOSINGS = (
    (b"too many logins in progress from your address", "refused: logins in progress from the address"),
    (b"too many logins in progress", "refused: logins in progress in all"),
    (b"too many connections from your address", "refused: connections from the address"),
    (b"the server is full", "refused: the server is full"),
    (b"no SSH version line", "closed: no version line in time"),
)
#: Why the player is never refused: the last ``reserved_logins`` (5) of the 20 login slots go
#: one each to addresses that hold none, the other 15 need at least 4 addresses (4 each at
#: most), so eight addresses hold 19 at most and a ninth always finds one.
EIGHT_ADDRESSES = "eight attacking addresses filled every login slot"
HTTP_REQUEST = b"GET / HTTP/1.1\r\nHost: aton\r\n\r\n"
TRICKLE_SECONDS = 0.1  # between two bytes of a slowloris connection
SLOW_LIMITS = dict(banner_timeout=0.5, login_timeout=2.0)


def scale(variable: str, default: int) -> int:
    """The size of a run: the environment variable, else the default that fits CI."""
    return int(os.environ.get(variable, default))


def closing(received: bytes, otherwise: str) -> str:
    """How a connection the gateway closed is counted, from what it said first."""
    return next((name for said, name in CLOSINGS if said in received), otherwise)


def errors_logged(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


async def start_stack(tmp_path: Path, **limits) -> Stack:
    # (the floods are the gateway's to bear before any client runs: the forked way, whose helper is one)
    stack = await Stack(tmp_path, SSHConfig(sessions=FORKED_SESSIONS, limits=SSHLimits(**limits))).start()
    await stack.forkserver_ready()  # the player's wait is the flood's doing, not a cold start's
    return stack


async def a_player_gets_in(port: int) -> tuple[float, int]:
    """A player with a key logs in from ``PLAYER`` and starts a game against a bot, trying
    again (as a person would) when refused: (seconds until the lobby, refusals met)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    loop = asyncio.get_running_loop()
    started = loop.time()
    refusals = 0
    while True:
        try:
            conn = await connect(port, "player", key, local_addr=(PLAYER, 0))
            break
        except (asyncssh.DisconnectError, ConnectionError):
            refusals += 1
            assert loop.time() - started < PATIENCE, f"the player was refused {refusals} times"
            await asyncio.sleep(0.1)
    try:
        chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=PATIENCE)
        waited = loop.time() - started
        await sit_down_against_a_bot(chan, term, timeout=PATIENCE)
    finally:
        conn.close()
        await conn.wait_closed()
    return waited, refusals


@overload
async def read_until_closed(reader: asyncio.StreamReader) -> bytes: ...
@overload
async def read_until_closed(reader: asyncio.StreamReader, stop: asyncio.Event) -> bytes | None: ...
async def read_until_closed(reader: asyncio.StreamReader, stop: asyncio.Event | None = None) -> bytes | None:
    """Everything the gateway sent until it closed the connection (a reset or a broken pipe,
    when it closed with bytes of ours unread, counts as closed); None if ``stop`` came first."""
    received = bytearray()
    while True:
        reading = asyncio.ensure_future(reader.read(4096))
        waits = {reading} if stop is None else {reading, asyncio.ensure_future(stop.wait())}
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if reading not in done:
            return None
        try:
            data = reading.result()
        except ConnectionError:
            data = b""
        if not data:
            return bytes(received)
        received += data


async def nothing_held(stack: Stack) -> None:
    """The gateway holds no connection, no session and no login slot any more."""
    await stack.settled()
    assert not stack.gateway.unauthenticated and not stack.gateway.per_address


class Attackers:
    """Connections from the attacking addresses, counted by how each one ended."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tried = 0
        self.outcomes: Counter[str] = Counter()

    def report(self, figures, tried: str) -> None:
        figures.add(tried, self.tried)
        for outcome, count in sorted(self.outcomes.items()):
            figures.add(f"  {outcome}", count)


class Flood(Attackers):
    """Connection after connection, each of a seeded kind."""

    KINDS = ("silent", "hang_up", "http", "guest")
    WEIGHTS = (5, 2, 2, 1)

    def __init__(self, port: int, budget: int) -> None:
        super().__init__(port)
        self.budget = budget  # connections to try at least
        self.player_in = asyncio.Event()  # the player has played: the flood may end
        self.over = asyncio.Event()  # the budget is spent and the player in: those still held are let go

    async def run(self, workers_per_address: int = 4) -> None:
        rng = random.Random(SEED)
        await asyncio.gather(*(self.worker(address, random.Random(rng.random()))
                               for address in ATTACKERS for _ in range(workers_per_address)))

    async def worker(self, address: str, rng: random.Random) -> None:
        while not self.over.is_set():
            self.tried += 1
            if self.tried >= self.budget and self.player_in.is_set():
                self.over.set()
            kind = rng.choices(self.KINDS, self.WEIGHTS)[0]
            try:
                self.outcomes[await getattr(self, kind)(address)] += 1
            except (ConnectionError, asyncssh.Error, OSError) as exc:
                self.outcomes[f"failed: {type(exc).__name__}"] += 1

    async def silent(self, address: str) -> str:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0))
        try:
            received = await read_until_closed(reader, self.over)
        finally:
            writer.close()
        return "held to the end of the flood" if received is None else closing(received, "closed")

    async def hang_up(self, address: str) -> str:
        _, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0))
        writer.close()
        return "hung up at once"

    async def http(self, address: str) -> str:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0))
        try:
            writer.write(HTTP_REQUEST)
            received = await read_until_closed(reader)
        finally:
            writer.close()
        return closing(received, "closed: not SSH")

    async def guest(self, address: str) -> str:
        try:
            conn = await connect(self.port, "flood", local_addr=(address, 0))
        except asyncssh.DisconnectError as exc:
            return closing(exc.reason.encode(), "closed")
        conn.close()
        await conn.wait_closed()
        return "logged in as a guest and left"


async def test_a_connection_flood(tmp_path, caplog, figures):
    caplog.set_level(logging.WARNING)
    budget = scale("ATON_ABUSE_SSH_CONNECTIONS", 600)
    stack = await start_stack(tmp_path)
    limits, gateway = stack.gateway.limits, stack.gateway
    try:
        alone, _ = await a_player_gets_in(stack.port)  # the same login without a flood, to compare
        started = time.perf_counter()
        flood = Flood(stack.port, budget)
        flooding = asyncio.ensure_future(flood.run())
        held = limits.max_unauthenticated - limits.reserved_logins  # all that addresses with logins may hold
        await until(lambda: flood.tried >= budget // 2 and gateway.unauthenticated.total() >= held,
                    "half the flood, holding the login slots")
        holding = gateway.unauthenticated.total()
        waited, refusals = await a_player_gets_in(stack.port)
        flood.player_in.set()
        await flooding
        seconds = time.perf_counter() - started
        await nothing_held(stack)
    finally:
        await stack.stop()
    errors = errors_logged(caplog)

    flood.report(figures, "connections tried")
    figures.add("login slots the flood held when the player came", f"{holding} of {limits.max_unauthenticated}")
    figures.add("the player: seconds until the lobby, refusals met", f"{waited:.2f}, {refusals} "
                f"(alone before the flood: {alone:.2f})")
    figures.add("seconds of flood", f"{seconds:.1f}")
    figures.add("errors logged by the gateway", len(errors))
    assert refusals == 0, EIGHT_ADDRESSES
    assert errors == []


class Slowloris(Attackers):
    """Connections that trickle bytes and never finish what they send; each opens again when closed."""

    def __init__(self, port: int) -> None:
        super().__init__(port)
        self.longest = 0.0  # seconds the longest-lived one lasted
        self.stop = asyncio.Event()  # no more new connections (those open trickle on until closed)

    async def run(self, per_address: int = 6) -> None:
        await asyncio.gather(*(self.slot(address, (self.unfinished_version, self.unfinished_packet)[n % 2])
                               for address in ATTACKERS for n in range(per_address)))

    async def slot(self, address: str, send: Callable[[asyncio.StreamWriter], Awaitable[None]]) -> None:
        while not self.stop.is_set():
            self.tried += 1
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0))
            opened = time.perf_counter()
            trickling = asyncio.ensure_future(send(writer))
            try:
                received = await read_until_closed(reader)  # only the gateway ends it
            finally:
                trickling.cancel()
                writer.close()
            self.longest = max(self.longest, time.perf_counter() - opened)
            self.outcomes[closing(received, "closed: login time-out")] += 1

    @staticmethod
    async def unfinished_version(writer: asyncio.StreamWriter) -> None:
        await trickle(writer, b"", b"SSH-2.0-" + b"s" * 240)  # no end of line, ever

    @staticmethod
    async def unfinished_packet(writer: asyncio.StreamWriter) -> None:
        # a proper version line, then a packet of 1 KiB announced and never finished
        await trickle(writer, b"SSH-2.0-slowloris\r\n" + struct.pack(">IB", 1020, 4), bytes(1015))


async def trickle(writer: asyncio.StreamWriter, at_once: bytes, slowly: bytes) -> None:
    """Send ``at_once``, then ``slowly`` a byte at a time, until the gateway closes the connection."""
    try:
        writer.write(at_once)
        for byte in slowly:
            writer.write(bytes([byte]))
            await asyncio.sleep(TRICKLE_SECONDS)
    except ConnectionError:
        pass  # closed by the gateway: the reader sees it


async def test_slowloris(tmp_path, caplog, figures):
    caplog.set_level(logging.WARNING)
    seconds = scale("ATON_ABUSE_SSH_SECONDS", 3)
    stack = await start_stack(tmp_path, **SLOW_LIMITS)
    limits, gateway = stack.gateway.limits, stack.gateway
    started = time.perf_counter()
    try:
        slowloris = Slowloris(stack.port)
        trickling = asyncio.ensure_future(slowloris.run())
        held = limits.max_unauthenticated - limits.reserved_logins
        await until(lambda: gateway.unauthenticated.total() >= held, "the slowloris to hold the login slots")
        holding = gateway.unauthenticated.total()
        waited, refusals = await a_player_gets_in(stack.port)
        await asyncio.sleep(max(0.0, started + seconds - time.perf_counter()))  # the load lasts its time
        slowloris.stop.set()
        await asyncio.wait_for(trickling, PATIENCE)  # every connection closed by the gateway
        await nothing_held(stack)
    finally:
        await stack.stop()
    errors = errors_logged(caplog)

    slowloris.report(figures, "connections tried (6 at once on each of 8 addresses)")
    figures.add("the longest one lasted (s)", f"{slowloris.longest:.2f} (banner time-out "
                f"{limits.banner_timeout:g} s, login time-out {limits.login_timeout:g} s)")
    figures.add("login slots the slowloris held when the player came", f"{holding} of {limits.max_unauthenticated}")
    figures.add("the player: seconds until the lobby, refusals met", f"{waited:.2f}, {refusals}")
    figures.add("errors logged by the gateway", len(errors))
    assert refusals == 0, EIGHT_ADDRESSES
    assert slowloris.outcomes["closed: no version line in time"] > 0
    assert slowloris.outcomes["closed: login time-out"] > 0
    assert errors == []
