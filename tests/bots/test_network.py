"""Bots over the network: complete games through a real server, and a dropped connection."""

from __future__ import annotations

import asyncio
import socket

from bots.network import NetworkBot
from bots.strategy import make_strategy
from protocol import messages as m
from protocol.client import Client
from server.app import ArbiterServer
from server.config import ServerConfig


def bot(server, name: str, seed: int, results: list) -> NetworkBot:
    return NetworkBot(make_strategy("random", seed=seed), "127.0.0.1", server.port, name=name,
                      on_result=results.append, retry_seconds=0.05)


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
    for mine, theirs in zip(results_a, results_b):
        assert mine.game == theirs.game
        assert mine.winner == theirs.winner
        assert {mine.seat, theirs.seat} == {"red", "blue"}
        assert server.rooms[mine.game].game.is_over
    assert results_a[0].line().startswith(f"game {results_a[0].game}: ")
    assert len(lines) == 4


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
    assert results_a[0].winner == results_b[0].winner


async def test_a_bot_whose_game_ended_and_left_the_server_while_it_was_away_plays_on(tmp_path):
    """Its game ended (the opponent resigned) while its network was down, and the server
    restarted meanwhile: the game is no longer in the server's memory, so its ``sync`` is
    answered ``not_found``; the bot looks for its next game instead of waiting forever."""
    db = str(tmp_path / "aton.db")
    first = ArbiterServer(ServerConfig(port=0, db_path=db))
    await first.start()
    ada = NetworkBot(make_strategy("random", seed=5), "127.0.0.1", first.port, name="ada",
                     retry_seconds=0.05, max_retries=400)
    playing = asyncio.create_task(ada.play(1))
    bob = await Client.connect("127.0.0.1", first.port, name="bob", kind="bot", lobby=False)
    await bob.send(m.QuickMatch(clock="normal"))
    game = (await bob.expect(m.GameState)).game
    room = first.rooms[game]
    ada_seat = next(seat for seat in room.seats.values() if seat.name == "ada")
    await until(lambda: ada_seat.participant is not None)
    with socket.socket() as unused:  # a port nobody listens on: ada's network is down
        unused.bind(("127.0.0.1", 0))
        ada.port = unused.getsockname()[1]
    ada_seat.participant.abort()
    await bob.send(m.Resign(game=game))
    await until(lambda: room.game.is_over)
    await bob.close()
    await first.stop()

    second = ArbiterServer(ServerConfig(port=0, db_path=db))
    await second.start()
    try:
        ada.port = second.port  # back online, after the restart
        carol = NetworkBot(make_strategy("random", seed=6), "127.0.0.1", second.port, name="carol")
        [result], _ = await asyncio.wait_for(asyncio.gather(playing, carol.play(1)), 30)
        assert result.game != game and result.opponent == "carol"
    finally:
        await second.stop()
