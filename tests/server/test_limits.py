"""The game server's limits, each met by real clients on loopback addresses (127.0.0.x).

docs/hosting.md ("Game server limits") lists them; every test here reproduces an abuse
that worked before its limit existed.
"""

from __future__ import annotations

import asyncio
import logging
import random
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from protocol.framing import encode_frame
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from .players import RawPeer, matched_pair


@asynccontextmanager
async def running(tmp_path, **limits) -> AsyncIterator[ArbiterServer]:
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "limits.db"), limits=Limits(**limits),
                                        game_seed=7))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def request(peer: RawPeer, data: dict) -> dict:
    """Send a request and return the server's answer to it: the frame that replies to it, or
    the ``game_state`` of the game it started (that one has no ``reply_to``), or a ``bye``."""
    peer.send({**data, "id": 1})
    while True:
        frame = await peer.read()
        if frame.get("reply_to") == 1 or frame["type"] in ("game_state", "bye"):
            return frame


OPEN: list[RawPeer] = []  # the connections a test holds open (until its server stops)


async def refused_within(port: int, source: str, most: int) -> tuple[int, dict]:
    """Open connections from ``source`` and keep them until one is refused (at most ``most``):
    how many were welcomed, and the refusal."""
    for opened in range(most):
        peer = await RawPeer.open(port, hello=False, source=source)
        OPEN.append(peer)
        peer.send({"type": "hello", "version": "1.2", "name": "filler", "kind": "human", "lobby": False})
        answer = await peer.read()
        if answer["type"] != "welcome":
            return opened, answer
    raise AssertionError(f"{most} connections from {source} were all welcomed")


# ----------------------------------------------------------------------------- connections


async def test_two_addresses_cannot_fill_the_server(server):
    """With the default limits an address gets a fortieth of the connections, and a third
    address is welcome after two have taken all they may."""
    share = server.limits.max_connections_per_address
    assert share * 40 <= server.limits.max_connections
    for source in ("127.0.0.2", "127.0.0.3"):
        opened, refusal = await refused_within(server.port, source, most=100)
        assert opened == share
        assert (refusal["code"], refusal["message"]) == (
            "server_full", "too many connections from your address; close one first")
    third = await RawPeer.open(server.port, source="127.0.0.4")
    assert third.welcome["type"] == "welcome"


async def test_exempt_addresses_count_only_toward_the_total(tmp_path):
    async with running(tmp_path, max_connections=6, max_connections_per_address=2,
                       exempt_addresses=("127.0.0.5",)) as server:
        assert (await refused_within(server.port, "127.0.0.2", most=6))[0] == 2
        opened, refusal = await refused_within(server.port, "127.0.0.5", most=6)
        assert opened == 4  # the 6 in all, two of them 127.0.0.2's
        assert refusal["message"] == "the server is full; try again later"


async def test_a_session_that_only_pings_is_closed_and_one_that_waits_or_watches_is_kept(tmp_path):
    async with running(tmp_path, lobby_idle_seconds=0.3) as server:
        red, blue = await matched_pair(server.port)
        idler = await RawPeer.open(server.port, source="127.0.0.2")
        host = await RawPeer.open(server.port, source="127.0.0.3")
        assert (await request(host, {"type": "create_table"}))["type"] == "table_created"
        fan = await RawPeer.open(server.port, source="127.0.0.4", kind="spectator")
        assert (await request(fan, {"type": "watch", "game": red.game}))["type"] == "game_state"
        pings = 0
        while True:  # 20 pings a second: never idle 0.3 s by the frame-silence rule
            await asyncio.sleep(0.05)
            pings += 1
            assert pings < 400, "the pinging session was never closed"
            answer = await request(idler, {"type": "ping"})
            if answer["type"] == "bye":
                break
            for peer in (host, fan):
                assert (await request(peer, {"type": "ping"}))["type"] == "pong"
        assert answer == {"type": "bye", "code": "timeout",
                          "reason": "nothing but pings for too long, with no game, table or queue"}
        for _ in range(2 * pings):  # twice as long again: the others hold a table and a game to watch
            await asyncio.sleep(0.05)
            for peer in (host, fan):
                assert (await request(peer, {"type": "ping"}))["type"] == "pong"
        for player in (red, blue):
            assert not player.errors()


# ----------------------------------------------------------------------------- games at once


async def test_games_at_once_are_limited_per_session_and_per_address(tmp_path):
    async with running(tmp_path, max_games_per_session=3, max_games_per_address=5) as server:
        def bot_game(peer: RawPeer):
            return request(peer, {"type": "play_bot", "level": "random", "clock": "relaxed"})

        alice = await RawPeer.open(server.port, source="127.0.0.2", name="alice")
        games = [(await bot_game(alice))["game"] for _ in range(3)]
        refusal = await bot_game(alice)
        assert (refusal["type"], refusal["code"]) == ("error", "too_many_games")
        assert refusal["message"].startswith("your session has 3 games going or waiting")
        assert (await request(alice, {"type": "create_table"}))["code"] == "too_many_games"
        # a new connection of the same session is the same session
        alice.close()
        back = await RawPeer.open(server.port, source="127.0.0.2", resume=alice.welcome["resume"])
        resumed = [frame["game"] for frame in [await back.read() for _ in range(2 * len(games))]
                   if frame["type"] == "game_state"]  # each game's state, and an update (reconnected)
        assert sorted(resumed) == games
        assert (await bot_game(back))["code"] == "too_many_games"
        # one game over: one more may start
        assert (await request(back, {"type": "resign", "game": games[0]}))["type"] == "ack"
        assert (await bot_game(back))["type"] == "game_state"
        # the address: 3 of alice's, then 2 of another session's, then no more from 127.0.0.2
        bob = await RawPeer.open(server.port, source="127.0.0.2", name="bob")
        assert (await request(bob, {"type": "create_table"}))["type"] == "table_created"  # a table counts
        assert (await bot_game(bob))["type"] == "game_state"
        refusal = await bot_game(bob)
        assert (refusal["code"], refusal["message"]) == (
            "too_many_games", "5 games are going or waiting from your address, the most this server allows "
                              "at once: finish one first")
        elsewhere = await RawPeer.open(server.port, source="127.0.0.3")
        assert (await bot_game(elsewhere))["type"] == "game_state"


# ----------------------------------------------------------------------------- failed joins


async def test_guessing_invite_codes_is_cut_off_even_between_pings(tmp_path):
    """Each guess followed by a ping (which used to reset the refused-messages count)."""
    async with running(tmp_path, failed_joins_per_session=5, failed_joins_per_address=8,
                       failed_join_refill_seconds=3600, message_burst=1000) as server:
        host = await RawPeer.open(server.port, source="127.0.0.2", name="host")
        invite = (await request(host, {"type": "create_table", "private": True}))["invite"]
        wrong = [code for code in ("AAAAAA", "BBBBBB", "CCCCCC") if code != invite]
        guesser = await RawPeer.open(server.port, source="127.0.0.3", name="guesser")
        answers = []
        for i in range(50):
            answers.append((await request(guesser, {"type": "join_invite", "code": wrong[i % 2]}))["code"])
            assert (await request(guesser, {"type": "ping"}))["type"] == "pong"
        assert answers == ["not_found"] * 5 + ["too_many_failed_joins"] * 45
        # from now on not even the right code is tried
        refusal = await request(guesser, {"type": "join_invite", "code": invite})
        assert (refusal["code"], refusal["message"]) == (
            "too_many_failed_joins", "too many joins failed lately; the next one is tried in up to 3600 s")
        # a fresh session from the same address has what is left of the address's 8
        second = await RawPeer.open(server.port, source="127.0.0.3", name="guesser")
        answers = [(await request(second, {"type": "join_table", "table": 99_999}))["code"] for _ in range(5)]
        assert answers == ["not_found"] * 3 + ["too_many_failed_joins"] * 2
        # another address joins with the right code
        friend = await RawPeer.open(server.port, source="127.0.0.4", name="friend")
        assert (await request(friend, {"type": "join_invite", "code": invite.lower()}))["type"] == "game_state"


# ----------------------------------------------------------------------------- memory


#: What the kernel may hold for each non-reader on the server's side.  Fixed, as the kernel would
#: otherwise size it by itself (up to 4 MB, more for one connection than another under load), and
#: the test is about what the server holds once the kernel holds no more.
KERNEL_SEND_BUFFER = 64 * 1024


async def non_reader(port: int, game: int) -> asyncio.StreamWriter:
    """A spectator of ``game`` that never reads what the server sends."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    _, writer = await asyncio.open_connection(sock=sock)
    writer.write(encode_frame({"type": "hello", "version": "1.2", "name": "slow", "kind": "spectator",
                               "lobby": False}))
    writer.write(encode_frame({"type": "watch", "game": game}))
    return writer


async def fix_kernel_buffers(server: ArbiterServer, count: int, known: set) -> None:
    """Wait until the server holds ``count`` connections besides ``known``; fix their kernel send buffers."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while len(server.connections - known) < count:
        assert loop.time() < deadline, "the server never accepted the connections"
        await asyncio.sleep(0.01)
    for conn in server.connections - known:
        assert conn.transport is not None
        conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BUFFER)


def held(server: ArbiterServer) -> int:
    """Bytes the server's transports hold for their peers right now."""
    return sum(c.transport.get_write_buffer_size() for c in server.connections
               if c.transport is not None and not c.transport.is_closing())


async def test_the_memory_held_for_clients_that_do_not_read_is_bounded_in_sum(tmp_path, caplog):
    each, total = 2 * 1024 * 1024, 3 * 1024 * 1024
    async with running(tmp_path, messages_per_second=1e6, message_burst=10**6, outbox_bytes=each,
                       outbox_bytes_total=total) as server:
        red, blue = await matched_pair(server.port)
        await asyncio.gather(red.play(random.Random(1), stop=lambda r: r.view["round"] >= 4),
                             blue.play(random.Random(2), stop=lambda r: r.view["round"] >= 4))
        known = set(server.connections)
        readers = {await non_reader(server.port, red.game) for _ in range(3)}
        await fix_kernel_buffers(server, 3, known)
        sync = encode_frame({"type": "sync", "game": red.game}) * 50  # each answered by a ~5 KB game_state
        with caplog.at_level(logging.WARNING, logger="server.connection"):
            for _ in range(1000):  # the kernel buffers take a few hundred KB before the server holds any
                for writer in list(readers):
                    try:
                        writer.write(sync)
                        await writer.drain()
                    except ConnectionError:
                        readers.discard(writer)
                await asyncio.sleep(0.01)
                assert held(server) <= total
                if not readers:
                    break
        assert not readers, "a client that reads nothing was never disconnected"
        over_the_sum = [r for r in caplog.records if "wait for all clients" in r.getMessage()]
        over_its_own = [r for r in caplog.records if r.getMessage().endswith("does not read its frames: disconnected")]
        # the sum cuts the largest first; whether the second goes for the sum or for its own limit
        # depends on how the three filled up (the scheduler's), the third is alone and meets its own
        assert 1 <= len(over_the_sum) <= 2 and len(over_the_sum) + len(over_its_own) == 3
        await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
        assert red.view["winner"] == blue.view["winner"] is not None
        assert not red.errors() and not blue.errors()


@pytest.mark.parametrize("setting", ["max_connections_per_address", "lobby_idle_seconds", "outbox_bytes_total",
                                     "max_games_per_session", "max_games_per_address", "failed_joins_per_session",
                                     "failed_joins_per_address", "failed_join_refill_seconds", "lobby_page_entries"])
def test_every_limit_is_documented_with_its_default(setting):
    hosting = (Path(__file__).parents[2] / "docs" / "hosting.md").read_text()
    section = hosting.split("### Game server limits", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in section.splitlines() if line.startswith("| `") and f"`{setting}`" in line)
    default = getattr(Limits(), setting)
    assert f"{default:,}" in row or f"{default:g}" in row or "MiB" in row
