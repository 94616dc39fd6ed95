"""Network bots playing Atlas & Zeus through a real server on loopback."""

from __future__ import annotations

import asyncio

import pytest

from atlas_zeus.players import BLUE, RED
from bots.atlas_zeus import strategy_named
from bots.cli import main
from bots.network import Backoff, NetworkBot
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client


def zeus_bot(server, name: str, strategy: str, seed: int) -> NetworkBot:
    return NetworkBot(strategy_named(strategy, seed), "127.0.0.1", server.port, proof=AccountKey.generate(),
                      name=name, backoff=Backoff(first=0.05))


async def test_two_network_bots_play_a_whole_atlas_zeus_game(server):
    """A greedy and a random bot take a quick match of Atlas & Zeus, seal their programmings,
    act on every card and finish the game; both report the same result, the server's too."""
    greedy, rand = zeus_bot(server, "athena", "greedy", 1), zeus_bot(server, "hermes", "random", 2)
    assert greedy.game_name == rand.game_name == "atlas-zeus"
    (mine,), (theirs,) = await asyncio.wait_for(asyncio.gather(greedy.play(1), rand.play(1)), 120)
    assert mine.game == theirs.game and mine.outcome == theirs.outcome
    assert {mine.seat, theirs.seat} == {RED, BLUE}
    assert mine.scores == theirs.scores and mine.rounds == theirs.rounds >= 1
    room = server.rooms[mine.game]
    assert room.game.is_over
    assert room.game.outcome().to_dict() == mine.outcome.to_dict()
    assert mine.line().startswith(f"game {mine.game}: {mine.verdict} as {mine.seat} against hermes, ")
    assert mine.opponent == "hermes" and theirs.opponent == "athena"


async def test_a_bot_seated_at_a_table_of_the_other_game_says_so(server):
    """An Atlas & Zeus bot sent to an Aton table cannot play there: it stops with the reason."""
    host = await Client.connect("127.0.0.1", server.port, name="ada", kind="human", lobby=False,
                                proof=AccountKey.generate())
    try:
        await host.send(m.CreateTable())
        table = await host.expect(m.TableCreated)
        zeus = NetworkBot(strategy_named("random", 1), "127.0.0.1", server.port, proof=AccountKey.generate(),
                          name="athena", table=table.table)
        with pytest.raises(ValueError, match=r"this bot plays atlas-zeus, and game \d+ is a game of aton"):
            await asyncio.wait_for(zeus.play(1), 30)
    finally:
        await host.close()


def test_the_cli_plays_atlas_zeus_with_its_strategies(capsys):
    """``aton-bot --server … --game atlas-zeus --strategy mcts`` is refused: not a strategy of it."""
    assert main(["--server", "127.0.0.1:9", "--game", "atlas-zeus", "--strategy", "mcts", "--guest"]) == 2
    assert "unknown Atlas & Zeus strategy" in capsys.readouterr().err
