"""A bot that keeps its session in a directory (``NetworkBot(state=...)``): started again, it takes
back its unfinished game and still checks that game's decks; one bot at a time keeps a directory;
a bot whose session another connection took stops."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import stat

import pytest

from bots.network import Backoff, NetworkBot, SessionTaken
from bots.strategy import make_strategy
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.saved_sessions import SavedSessions
from server.app import ArbiterServer
from server.config import ServerConfig

from .test_network import SeededBot, until


@pytest.fixture
async def server(tmp_path):
    """A server that deals fair decks (the players contribute to each deal), from a fixed seed."""
    fair = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")),
                         rng=random.Random(8))
    await fair.start()
    yield fair
    await fair.stop()


def network_bot(server, name: str, seed: int, key: AccountKey, state=None) -> NetworkBot:
    """A bot playing at random, its contributions to deals seeded too."""
    return SeededBot(make_strategy("random", seed=seed), "127.0.0.1", server.port, proof=key, name=name,
                     backoff=Backoff(first=0.05), state=state, entropy_seed=seed)


def seat_of(server, name: str):
    """The room of the one game on the server, and the seat ``name`` plays in it."""
    room = next(iter(server.rooms.values()))
    return room, next(seat for seat in room.seats.values() if seat.name == name)


async def test_a_bot_started_again_takes_back_its_game_and_checks_its_decks(server, tmp_path):
    state, ada_key = tmp_path / "ada", AccountKey.generate()
    first_run = network_bot(server, "ada", 1, ada_key, state)
    bob = network_bot(server, "bob", 2, AccountKey.generate())
    ada_playing, bob_playing = asyncio.create_task(first_run.play(1)), asyncio.create_task(bob.play(1))
    await until(lambda: server.rooms and next(iter(server.rooms.values())).version >= 30)
    room, seat = seat_of(server, "ada")
    ada_playing.cancel()  # the bot's process ends in the middle of the game
    await asyncio.gather(ada_playing, return_exceptions=True)
    await until(lambda: seat.participant is None)
    assert not room.game.is_over
    kept = json.loads((state / "deals.json").read_text())
    assert list(kept[f"127.0.0.1:{server.port}"]) == [str(room.game_id)]  # what it saw of the game's deal
    assert stat.S_IMODE((state / "sessions.json").stat().st_mode) == 0o600

    second_run = network_bot(server, "ada", 3, ada_key, state)  # a new process: nothing in memory
    [result], [bobs] = await asyncio.wait_for(asyncio.gather(second_run.play(1), bob_playing), 60)
    assert result.game == bobs.game == room.game_id  # the same game, not a new one
    assert not room.game.outcome().termination.is_forfeit
    assert second_run.verdicts[room.game_id].verified is True, second_run.verdicts[room.game_id].text
    assert not (state / "deals.json").exists()  # revealed: nothing left to keep


async def test_a_bot_with_no_state_begins_a_new_session_and_leaves_its_game(server, tmp_path):
    """Without a directory (as before): the bot started again is a new session, and its seat waits
    for the old one; it takes no game of its own meanwhile but seeks a new one."""
    ada_key = AccountKey.generate()
    first_run = network_bot(server, "ada", 1, ada_key)
    bob = network_bot(server, "bob", 2, AccountKey.generate())
    ada_playing, bob_playing = asyncio.create_task(first_run.play(1)), asyncio.create_task(bob.play(1))
    await until(lambda: server.rooms and next(iter(server.rooms.values())).version >= 30)
    _, seat = seat_of(server, "ada")
    ada_playing.cancel()
    await asyncio.gather(ada_playing, return_exceptions=True)
    await until(lambda: seat.participant is None)
    second_run = network_bot(server, "ada", 3, ada_key)
    connecting = asyncio.create_task(second_run.play(1))
    await until(lambda: second_run.client is not None and second_run.client.welcome is not None)
    assert second_run.client is not None and second_run.client.welcome is not None
    assert second_run.client.welcome.games == ()
    assert seat.participant is None
    connecting.cancel()
    bob_playing.cancel()
    await asyncio.gather(connecting, bob_playing, return_exceptions=True)


async def test_one_bot_at_a_time_keeps_a_directory_a_second_plays_without_it(server, tmp_path, caplog):
    state = tmp_path / "shared"
    ada = network_bot(server, "ada", 1, AccountKey.generate(), state)
    bob = network_bot(server, "bob", 2, AccountKey.generate(), state)  # the same directory, by mistake
    ada_playing = asyncio.create_task(ada.play(1))
    await until(lambda: (state / "sessions.json").exists())
    ada_token = ada.client.resume_token if ada.client else None
    with caplog.at_level(logging.WARNING, logger="bots.network"):
        results = await asyncio.wait_for(asyncio.gather(ada_playing, bob.play(1)), 60)
    assert results[0][0].game == results[1][0].game  # they played each other, both to the end
    assert f"another bot keeps its session in {state}: this one plays without it" in caplog.text
    assert SavedSessions(state / "sessions.json").token(f"127.0.0.1:{server.port}") == ada_token
    relock = network_bot(server, "cy", 3, AccountKey.generate(), state)
    with relock._keeping_session():
        assert relock._tokens is not None  # free again once both have finished


async def test_a_kept_token_the_server_never_issued_starts_a_new_session(server, tmp_path):
    state = tmp_path / "ada"
    where = f"127.0.0.1:{server.port}"
    SavedSessions(state / "sessions.json").remember(where, "A" * 43)  # another server's, say
    ada = network_bot(server, "ada", 1, AccountKey.generate(), state)
    bob = network_bot(server, "bob", 2, AccountKey.generate())
    [result], _ = await asyncio.wait_for(asyncio.gather(ada.play(1), bob.play(1)), 60)
    assert result.game in server.rooms
    assert ada.client is not None
    assert SavedSessions(state / "sessions.json").token(where) == ada.client.resume_token != "A" * 43


async def test_a_bot_whose_session_another_connection_takes_stops(server, tmp_path):
    key = AccountKey.generate()
    ada = network_bot(server, "ada", 1, key, tmp_path / "ada")
    playing = asyncio.create_task(ada.play(1))
    await until(lambda: ada.client is not None and ada.client.welcome is not None)
    assert ada.client is not None
    thief = await Client.connect("127.0.0.1", server.port, name="ada", kind="bot", resume=ada.client.resume_token,
                                 lobby=False, proof=key)  # (the same key: a copy of the directory, say)
    with pytest.raises(SessionTaken, match="another connection took over this bot's session"):
        await asyncio.wait_for(playing, 10)
    await until(lambda: len(server.connections) == 1)  # the thief's: ada did not take the session back
    await thief.close()


async def test_a_bot_started_again_between_sealing_and_opening_opens_what_it_sealed(server, tmp_path):
    """Killed after sealing its cartouches and before the opponent sealed theirs, the bot has no
    other copy of its cards and nonce than the one it kept (``seals.json``): without it its open
    clock would run out, which loses the game."""
    state, key = tmp_path / "ada", AccountKey.generate()
    first_run = network_bot(server, "ada", 1, key, state)
    ada_playing = asyncio.create_task(first_run.play(1))
    bob = await Client.connect("127.0.0.1", server.port, name="bob", kind="bot", lobby=False,
                               entropy=random.Random(2).randbytes)
    views: list[dict] = []
    events: list[dict] = []

    async def read_bobs_frames() -> None:  # (bob's client contributes to the deal as it reads)
        while True:
            msg = await bob.recv()
            if isinstance(msg, (m.GameState, m.Update)):
                views.append(msg.view)
                events.extend(msg.log if isinstance(msg, m.GameState) else msg.events)

    reading = asyncio.create_task(read_bobs_frames())
    try:
        await bob.send(m.QuickMatch(clock="normal"))
        await until(lambda: bool(server.rooms))
        room = next(iter(server.rooms.values()))
        ada_seat = next(seat for seat, held in room.seats.items() if held.name == "ada")
        await until(lambda: ada_seat in room.seals)  # ada sealed; bob has not
        ada_playing.cancel()
        await asyncio.gather(ada_playing, return_exceptions=True)
        await until(lambda: room.seats[ada_seat].participant is None)
        assert list(json.loads((state / "seals.json").read_text())[f"127.0.0.1:{server.port}"]) == [str(room.game_id)]

        second_run = network_bot(server, "ada", 3, key, state)
        ada_playing = asyncio.create_task(second_run.play(1))
        await until(lambda: room.seats[ada_seat].participant is not None)
        await until(lambda: bool(views) and (views[-1].get("decision") or {}).get("hand"))
        await bob.commit(room.game_id, sorted(views[-1]["decision"]["hand"]))
        await until(lambda: {"type": "opened", "player": str(ada_seat)} in [
            {"type": e["type"], "player": e.get("player")} for e in events] or room.game.is_over)
        assert not room.game.is_over  # both opened: the round is revealed, nobody lost on time
        await bob.send(m.Resign(game=room.game_id))
        [result] = await asyncio.wait_for(ada_playing, 30)
        assert not (state / "seals.json").exists()  # the game is over: nothing left to keep
        assert result.game == room.game_id and result.verdict == "won"
        assert second_run.verdicts[room.game_id].verified is True
    finally:
        reading.cancel()
        await bob.close()


async def test_a_seal_and_a_contribution_are_kept_before_they_are_sent(server):
    """A client killed just after sending its commitment, or its contribution to the deal, must
    find it kept when started again: ``Client.keep`` hears of each before it is sent."""
    ada = await Client.connect("127.0.0.1", server.port, name="ada", kind="bot", lobby=False,
                               entropy=random.Random(1).randbytes)
    bob = await Client.connect("127.0.0.1", server.port, name="bob", kind="bot", lobby=False,
                               entropy=random.Random(2).randbytes)
    happened: list[str] = []  # in order: what the keeper was shown, what was sent
    sent_by_ada = ada.send

    async def send(msg: m.Message) -> int | None:
        happened.append(f"sent {msg.TYPE}")
        return await sent_by_ada(msg)

    def keep(client: Client) -> None:
        shown = [f"kept the value of game {game}" for game, w in client.deals.items() if w.value is not None] + \
                [f"kept the seal of game {game}" for game in client.seals]
        happened.extend(what for what in shown if what not in happened)

    ada.send, ada.keep = send, keep  # type: ignore[method-assign]
    try:
        await ada.send(m.QuickMatch(clock="normal"))
        await bob.send(m.QuickMatch(clock="normal"))
        bobs_state = asyncio.create_task(bob.expect(m.GameState))
        state = await ada.expect(m.GameState)
        await bobs_state
        await ada.commit(state.game, sorted(state.view["decision"]["hand"]))
        game = state.game
        assert happened.index(f"kept the value of game {game}") < happened.index("sent deal_commit")
        assert happened.index(f"kept the seal of game {game}") < happened.index("sent commit")
    finally:
        await ada.close()
        await bob.close()
