"""Bots over the network: complete games through a real server, and a dropped connection."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import socket
from collections.abc import Awaitable, Callable

import pytest

from aton import BLUE, RED, Outcome, Termination
from bots import network
from bots.network import Backoff, GameResult, NetworkBot
from bots.strategy import make_strategy
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.clocks import LONGEST_GRACE, TIME_CONTROLS
from protocol.framing import HEADER, FrameBuffer, decode_payload
from server.app import ArbiterServer
from server.config import ServerConfig
from server.connection import Connection

#: Each bot proves an account key of its own.
new_key = AccountKey.generate


def bot(server, name: str, seed: int, results: list) -> NetworkBot:
    return NetworkBot(make_strategy("random", seed=seed), "127.0.0.1", server.port, proof=new_key(), name=name,
                      on_result=results.append, backoff=Backoff(first=0.05))


class CountedWaits:
    """A bot's injected sleep: it records each wait instead of waiting (the event loop still
    turns), and may act after each one (``then``), so that no test waits on the wall clock."""

    def __init__(self, then: Callable[[CountedWaits], Awaitable[None]] | None = None) -> None:
        self.waits: list[float] = []
        self.then = then

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.then is not None:
            await self.then(self)
        await asyncio.sleep(0)

    @property
    def waited(self) -> float:
        return sum(self.waits)


def unused_port() -> int:
    """A loopback port nothing listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def until(condition) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def test_two_network_bots_play_complete_games(server):
    lines: list = []
    a, b = bot(server, "ada", 1, lines), bot(server, "bob", 2, lines)
    results_a, results_b = await asyncio.wait_for(asyncio.gather(a.play(2), b.play(2)), 60)
    assert len(results_a) == len(results_b) == 2
    for mine, theirs in zip(results_a, results_b, strict=True):
        assert mine.game == theirs.game
        assert mine.outcome == theirs.outcome
        assert {mine.seat, theirs.seat} == {RED, BLUE}
        assert server.rooms[mine.game].game.is_over
    first = results_a[0]
    assert first.line().startswith(f"game {first.game}: {first.verdict} as {first.seat} against bob, ")
    assert f"({first.outcome.termination.value})" in first.line()
    assert len(lines) == 4


def test_a_result_line_counts_one_round_in_the_singular():
    result = GameResult(game=3, seat=RED, outcome=Outcome(Termination.RESIGN, BLUE), scores=(0, 0), rounds=1,
                        opponent="bob")
    assert result.line() == "game 3: lost as red against bob, 0–0 (resign), 1 round"
    assert dataclasses.replace(result, rounds=2).line().endswith(", 2 rounds")


async def test_a_bot_whose_connection_drops_mid_game_comes_back_and_finishes(server):
    a, b = bot(server, "ada", 3, []), bot(server, "bob", 4, [])
    games = asyncio.gather(a.play(1), b.play(1))

    async def drop_ada_mid_game() -> bool:
        """Drop ada's connection; True once a new connection of hers holds her seat again."""
        while not server.rooms or next(iter(server.rooms.values())).version < 30:
            await asyncio.sleep(0.01)
        room = next(iter(server.rooms.values()))
        seat = next(s for s in room.seats.values() if s.name == "ada")
        dropped = seat.participant
        dropped.abort()  # the server drops the connection
        while seat.participant in (None, dropped):
            if room.game.is_over:
                return False
            await asyncio.sleep(0.01)
        return True

    dropper = asyncio.create_task(drop_ada_mid_game())
    results_a, results_b = await asyncio.wait_for(games, 60)
    assert await dropper, "ada came back to her seat before the game ended"
    room = server.rooms[results_a[0].game]
    assert room.game.is_over
    assert not room.game.outcome().termination.is_forfeit
    assert results_a[0].outcome == results_b[0].outcome


@pytest.mark.parametrize("new_database", [False, True], ids=["same database", "new database"])
async def test_a_bot_whose_game_ended_and_left_the_server_while_it_was_away_plays_on(tmp_path, new_database):
    """Its game ended (the opponent resigned) while its network was down, and the server
    restarted meanwhile: the game is no longer in the server's memory, so its ``sync`` is
    answered ``not_found``; the bot looks for its next game instead of waiting forever.
    With a new database the server does not know the bot's resume token either
    (``unknown_session``): the bot starts a new session and plays on the same way."""
    db = str(tmp_path / "aton.db")
    first = ArbiterServer(ServerConfig(port=0, db_path=db))
    await first.start()
    ada = NetworkBot(make_strategy("random", seed=5), "127.0.0.1", first.port, proof=new_key(), name="ada",
                     backoff=Backoff(first=0.05, cap=0.05))
    playing = asyncio.create_task(ada.play(1))
    bob = await Client.connect("127.0.0.1", first.port, name="bob", kind="bot", lobby=False)
    await bob.send(m.QuickMatch(clock="normal"))
    game = (await bob.expect(m.GameState)).game
    room = first.rooms[game]
    ada_seat = next(seat for seat in room.seats.values() if seat.name == "ada")
    await until(lambda: ada_seat.participant is not None)
    ada.port = unused_port()  # ada's network is down
    assert isinstance(ada_seat.participant, Connection)
    ada_seat.participant.abort()
    await bob.send(m.Resign(game=game))
    await until(lambda: room.game.is_over)
    await bob.close()
    await first.stop()

    elsewhere = tmp_path / "new"  # a new data directory: a new database and a new resume secret
    elsewhere.mkdir()
    second = ArbiterServer(ServerConfig(port=0, db_path=str(elsewhere / "aton.db") if new_database else db))
    await second.start()
    try:
        ada.port = second.port  # back online, after the restart
        carol = NetworkBot(make_strategy("random", seed=6), "127.0.0.1", second.port, proof=new_key(), name="carol")
        [result], _ = await asyncio.wait_for(asyncio.gather(playing, carol.play(1)), 30)
        assert result.opponent == "carol"  # a new game (a new database numbers its games from 1 again)
        assert new_database or result.game != game
    finally:
        await second.stop()


async def test_the_first_connection_is_tried_again_until_the_server_is_up(tmp_path):
    port = unused_port()
    servers: list[ArbiterServer] = []

    async def start_the_server_at_the_third_wait(waits: CountedWaits) -> None:
        if len(waits.waits) == 3:
            servers.append(ArbiterServer(ServerConfig(port=port, db_path=str(tmp_path / "aton.db"))))
            await servers[0].start()

    waits = CountedWaits(start_the_server_at_the_third_wait)
    early = NetworkBot(make_strategy("random", seed=5), "127.0.0.1", port, proof=new_key(), name="early", sleep=waits)
    late = NetworkBot(make_strategy("random", seed=6), "127.0.0.1", port, proof=new_key(), name="late",
                      sleep=CountedWaits())
    try:
        results, _ = await asyncio.wait_for(asyncio.gather(early.play(1), late.play(1)), 60)
    finally:
        for server in servers:
            await server.stop()
    assert waits.waits == [1.0, 2.0, 4.0]  # refused three times, waiting longer each time
    assert len(results) == 1


async def test_a_bot_keeps_trying_for_the_longest_grace_period_then_gives_up():
    attempts = 0

    def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal attempts
        attempts += 1
        writer.close()  # a server that is there but never says welcome

    listener = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    waits = CountedWaits()
    lonely = NetworkBot(make_strategy("random", seed=7), "127.0.0.1", port, proof=new_key(), name="lonely", sleep=waits)
    try:
        with pytest.raises(ConnectionError, match="could not reach the server for 300 s"):
            await lonely.play(1)
    finally:
        listener.close()
        await listener.wait_closed()
    assert LONGEST_GRACE == max(control.grace for control in TIME_CONTROLS.values()) == 300
    assert waits.waited >= LONGEST_GRACE
    assert waits.waits == sorted(waits.waits) and max(waits.waits) == Backoff().cap
    assert attempts == len(waits.waits) + 1  # one attempt at once, one after each wait


async def test_bots_come_back_after_an_outage_longer_than_the_grace_of_a_normal_clock(tmp_path):
    db = str(tmp_path / "aton.db")
    first = ArbiterServer(ServerConfig(port=0, db_path=db))
    await first.start()
    port = first.port
    servers: list[ArbiterServer] = []

    async def restart_after_100_seconds(waits: CountedWaits) -> None:
        if waits.waited >= 100 and not servers:
            servers.append(ArbiterServer(ServerConfig(port=port, db_path=db)))
            await servers[0].start()

    waits = {name: CountedWaits(restart_after_100_seconds) for name in ("ada", "bob")}
    a, b = (NetworkBot(make_strategy("random", seed=seed), "127.0.0.1", port, proof=new_key(), name=name,
                       sleep=waits[name])
            for seed, name in ((8, "ada"), (9, "bob")))
    games = asyncio.gather(a.play(1), b.play(1))
    try:
        while not first.rooms or next(iter(first.rooms.values())).version < 20:
            await asyncio.sleep(0.01)
        await first.stop()  # the outage begins
        results_a, results_b = await asyncio.wait_for(games, 60)
    finally:
        for server in servers:
            await server.stop()
    assert max(w.waited for w in waits.values()) >= 100 > TIME_CONTROLS["normal"].grace
    assert results_a[0].game == results_b[0].game
    assert results_a[0].outcome == results_b[0].outcome
    assert results_a[0].outcome.termination not in (Termination.ABANDONED, Termination.TIME)


class CuttingProxy:
    """A loopback TCP proxy in front of a server that fails once, at a chosen frame: the first
    frame from the server that ``cut`` accepts is not passed on, and the client's connection is
    closed instead (the network failed just then); later connections pass everything."""

    def __init__(self, server_port: int, cut: Callable[[dict], bool]) -> None:
        self.server_port = server_port
        self.cut = cut
        self.armed = True
        self._listener: asyncio.Server | None = None
        self._pipes: set[asyncio.Task] = set()

    async def start(self) -> int:
        self._listener = await asyncio.start_server(self._connected, "127.0.0.1", 0)
        return self._listener.sockets[0].getsockname()[1]

    async def _connected(self, client_reader, client_writer) -> None:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.server_port)
        pipes = [asyncio.create_task(self._upstream(client_reader, server_writer)),
                 asyncio.create_task(self._downstream(server_reader, client_writer))]
        self._pipes.update(pipes)
        await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        for pipe in pipes:
            pipe.cancel()
        for writer in (client_writer, server_writer):
            writer.close()

    async def _upstream(self, reader, writer) -> None:
        while data := await reader.read(65536):
            writer.write(data)

    async def _downstream(self, reader, writer) -> None:
        frames = FrameBuffer()
        while data := await reader.read(65536):
            for payload in frames.feed(data):
                if self.armed and self.cut(decode_payload(payload)):
                    self.armed = False
                    return
                writer.write(HEADER.pack(len(payload)) + payload)

    async def stop(self) -> None:
        assert self._listener is not None, "the proxy has not started"
        self._listener.close()
        for pipe in self._pipes:
            pipe.cancel()


async def test_a_bot_whose_connection_fails_as_its_game_starts_takes_that_game_and_seeks_no_other(server):
    """The game's first frame is lost with the connection: back with its token, the bot is
    told in ``welcome`` that it holds a seat, and plays that game instead of queueing for
    another (which would have seated it in two games at once)."""
    proxy = CuttingProxy(server.port, cut=lambda frame: frame["type"] == "game_state")
    ada = NetworkBot(make_strategy("random", seed=10), "127.0.0.1", await proxy.start(), proof=new_key(), name="ada",
                     backoff=Backoff(first=0.05, cap=0.05))
    bob = bot(server, "bob", 11, [])
    games = asyncio.gather(ada.play(1), bob.play(1))
    try:
        await until(lambda: not proxy.armed and server.rooms)
        room = next(iter(server.rooms.values()))
        ada_seat = next(seat for seat in room.seats.values() if seat.name == "ada")
        await until(lambda: ada_seat.participant is not None)
        back_at = room.move_count
        await until(lambda: room.move_count >= back_at + 4 or room.game.is_over)  # ada plays on
        queued = dict(server.lobby.queue)
        (result_a,), (result_b,) = await asyncio.wait_for(games, 60)
    finally:
        await proxy.stop()
    assert not queued, "ada queued for another game while she held a seat"
    assert result_a.game == result_b.game == room.game_id


class SeededBot(NetworkBot):
    """A network bot whose contributions to deals come from a seeded generator."""

    def __init__(self, *args, entropy_seed: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entropy = random.Random(entropy_seed).randbytes

    async def _hello(self, resume: str | None) -> Client:
        return await Client.connect(self.host, self.port, name=self.name, kind="bot", resume=resume, lobby=False,
                                    proof=self.proof, entropy=self.entropy)


async def test_network_bots_check_the_decks_of_every_game_on_a_fair_server(tmp_path):
    """Issue 15, point 6: the bot SDK contributes to each deal and checks it when it is revealed,
    the last game's too (the bot waits for its reveal before it stops)."""
    fair = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db")), rng=random.Random(8))
    await fair.start()
    try:
        a, b = (SeededBot(make_strategy("random", seed=seed), "127.0.0.1", fair.port, name=name, entropy_seed=seed)
                for name, seed in (("ada", 1), ("bob", 2)))
        results_a, _ = await asyncio.wait_for(asyncio.gather(a.play(2), b.play(2)), 60)
        games = [result.game for result in results_a]
        for each in (a, b):
            assert sorted(each.verdicts) == games
            assert all(v.verified is True and v.text.startswith("Decks verified") for v in each.verdicts.values())
    finally:
        await fair.stop()


async def test_a_bot_asked_for_no_number_of_games_plays_game_after_game_until_stopped(server):
    """``play(None)`` (``aton-bot --games 0``): after each game the next quick match, for as long
    as the bot runs."""
    ada, bob = bot(server, "ada", 7, []), bot(server, "bob", 8, [])
    endless = asyncio.create_task(ada.play(None))
    bobs = await asyncio.wait_for(bob.play(3), 60)
    await until(lambda: len(ada.results) == 3)
    assert [r.game for r in ada.results] == [r.game for r in bobs]
    await until(lambda: len(server.lobby.queue) == 1)  # waiting for a fourth opponent
    assert not endless.done()
    endless.cancel()
    await asyncio.gather(endless, return_exceptions=True)


async def test_a_bot_that_plays_until_stopped_keeps_only_its_latest_games(tmp_path, monkeypatch):
    """A resident bot (``aton-bot --games 0``) may play for months: it keeps the results, verdicts
    and seats of its latest ``RECENT_RESULTS`` games, not every game it ever played."""
    monkeypatch.setattr(network, "RECENT_RESULTS", 2)
    fair = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db")), rng=random.Random(8))
    await fair.start()
    try:
        ada, bob = (SeededBot(make_strategy("random", seed=seed), "127.0.0.1", fair.port, name=name, entropy_seed=seed)
                    for name, seed in (("ada", 1), ("bob", 2)))
        endless = asyncio.create_task(ada.play(None))
        bobs = await asyncio.wait_for(bob.play(4), 90)
        latest = [r.game for r in bobs[-2:]]
        await until(lambda: sorted(ada.verdicts) == latest)  # the last game's deal revealed too
        assert [r.game for r in ada.results] == latest
        assert ada.client is not None
        assert sorted(ada.client.verdicts) == sorted(ada.client.seats) == latest
        endless.cancel()
        await asyncio.gather(endless, return_exceptions=True)
    finally:
        await fair.stop()
