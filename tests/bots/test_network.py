"""Bots over the network: complete games through a real server, and a dropped connection."""

from __future__ import annotations

import asyncio

from bots.network import NetworkBot
from bots.strategy import make_strategy


def bot(server, name: str, seed: int, results: list) -> NetworkBot:
    return NetworkBot(make_strategy("random", seed=seed), "127.0.0.1", server.port, name=name,
                      on_result=results.append, retry_seconds=0.05)


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
