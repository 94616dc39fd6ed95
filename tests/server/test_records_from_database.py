"""Records for everyone, from the database (issue 15, point 4): ``get_record`` serves a finished
game to whoever played it or could watch it, after it left memory and after a restart; a
private game is nobody else's; nothing before a game is over; the requests are rate-limited."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

from aton.record import GameRecord, replay, summary
from protocol import messages as m
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from ..manual_clock import ManualClock
from .players import Recorder, matched_pair

GAME_SEED = 1


async def start(db: str, limits: Limits | None = None) -> ArbiterServer:
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=db, game_seed=GAME_SEED,
                                        limits=limits or Limits()), clock=ManualClock())
    await server.start()
    return server


async def record_or_error(client: Recorder, game: int) -> m.GameRecordReply | m.Error:
    request = await client.send(m.GetRecord(game=game))
    reply = await client.until(lambda f: isinstance(f, (m.GameRecordReply, m.Error)) and f.reply_to == request)
    assert isinstance(reply, (m.GameRecordReply, m.Error))
    return reply


async def played_out(server: ArbiterServer) -> tuple[Recorder, Recorder]:
    """A public game (quick match) played to its end."""
    red, blue = await matched_pair(server.port)
    await asyncio.gather(red.play(random.Random(21)), blue.play(random.Random(22)))
    return red, blue


def retire_finished_games(server: ArbiterServer) -> None:
    server.clock.advance(server.config.finished_game_seconds)  # type: ignore[attr-defined]
    assert not any(room.game.is_over for room in server.rooms.values())


async def test_a_finished_game_is_served_to_its_players_after_it_left_memory(tmp_path):
    server = await start(str(tmp_path / "aton.db"))
    try:
        red, blue = await played_out(server)
        game = red.game
        retire_finished_games(server)
        assert game not in server.rooms
        for player in (red, blue):
            reply = await record_or_error(player, game)
            assert isinstance(reply, m.GameRecordReply), reply
            final = replay(GameRecord.from_dict(reply.record))
            assert summary(final)["winner"] == player.view["winner"]
            meta = reply.record["meta"]
            assert meta["players"][player.seat] == {"name": player.client.name, "kind": "bot", "guest": False}
            assert len(meta["move_times"]) == len(reply.record["moves"]) and meta["ended"] >= meta["started"]
    finally:
        await server.stop()


async def test_a_finished_game_is_served_after_a_restart_and_a_game_in_progress_never(tmp_path):
    db = str(tmp_path / "aton.db")
    server = await start(db)
    try:
        red, blue = await played_out(server)
        finished = red.game
        going = await Recorder.connect(server.port, "gail", kind="bot", lobby=False)
        await going.send(m.PlayBot(level="random"))
        unfinished = (await going.expect(m.GameState)).game
        tokens = {name: c.client.resume_token for name, c in (("red", red), ("blue", blue), ("gail", going))}
        keys = {name: c.client.proof for name, c in (("red", red), ("blue", blue), ("gail", going))}
        for client in (red, blue, going):
            await client.close()
    finally:
        await server.stop()
    server = await start(db)
    try:
        assert finished not in server.rooms and unfinished in server.rooms
        for name in ("red", "blue"):
            back = await Recorder.connect(server.port, name, kind="bot", lobby=False, resume=tokens[name],
                                          proof=keys[name])
            reply = await record_or_error(back, finished)
            assert isinstance(reply, m.GameRecordReply) and reply.record["meta"]["status"] == "over"
            await back.close()
        gail = await Recorder.connect(server.port, "gail", kind="bot", lobby=False, resume=tokens["gail"],
                                      proof=keys["gail"])
        refused = await record_or_error(gail, unfinished)
        assert isinstance(refused, m.Error)
        assert (refused.code, refused.message) == (
            "not_allowed", f"the record of game {unfinished} is available once the game is over")
        await gail.close()
    finally:
        await server.stop()


async def test_a_public_game_is_served_to_anyone_and_a_private_one_to_its_players_only(tmp_path):
    server = await start(str(tmp_path / "aton.db"))
    try:
        public_red, _ = await played_out(server)
        host = await Recorder.connect(server.port, "hana", kind="bot", lobby=False)
        guest = await Recorder.connect(server.port, "gus", kind="bot", lobby=False)
        await host.send(m.CreateTable(private=True))
        invite = (await host.expect(m.TableCreated)).invite
        assert invite is not None
        await guest.send(m.JoinInvite(code=invite))
        private = (await guest.expect(m.GameState)).game
        await host.expect(m.GameState)
        await guest.send(m.Resign(game=private))
        await host.until(lambda f: f.view["winner"] is not None, kind=m.Update)
        retire_finished_games(server)

        stranger = await Recorder.connect(server.port, "mallory", kind="human", lobby=False)
        served = await record_or_error(stranger, public_red.game)  # anyone could have watched it
        assert isinstance(served, m.GameRecordReply) and served.record["meta"]["options"]["private"] is False
        for game in (private, private + 1000):  # a private game is told apart from no game by nothing
            refused = await record_or_error(stranger, game)
            assert isinstance(refused, m.Error)
            assert (refused.code, refused.message, refused.field) == ("not_found", f"there is no game {game}", "game")
        for player in (host, guest):
            reply = await record_or_error(player, private)
            assert isinstance(reply, m.GameRecordReply) and reply.record["meta"]["result"]["reason"] == "resign"
    finally:
        await server.stop()


async def test_records_are_rate_limited_per_session(tmp_path):
    limits = replace(Limits(), history_burst=3, history_requests_per_second=0.001)
    server = await start(str(tmp_path / "aton.db"), limits)
    try:
        red, _ = await played_out(server)
        for _ in range(3):
            assert isinstance(await record_or_error(red, red.game), m.GameRecordReply)
        refused = await record_or_error(red, red.game)
        assert isinstance(refused, m.Error) and refused.code == "rate_limited"
        again = await Recorder.connect(server.port, "again", kind="bot", lobby=False, resume=red.client.resume_token,
                                       proof=red.client.proof)
        refused = await record_or_error(again, red.game)  # the session's, not the connection's
        assert isinstance(refused, m.Error) and refused.code == "rate_limited"
        await again.send(m.Ping())
        await again.expect(m.Pong)  # refused, not disconnected
    finally:
        await server.stop()


async def test_a_record_of_a_game_that_never_was_is_not_found(server):
    client = await Recorder.connect(server.port, "nobody", kind="bot", lobby=False)
    refused = await record_or_error(client, 4242)
    assert isinstance(refused, m.Error) and (refused.code, refused.message) == ("not_found", "there is no game 4242")
