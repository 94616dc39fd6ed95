"""Pausing a game against the server's bot (protocol 1.4, ``pause``): the player's clock stops
while they read the help or a dialog and goes on where it stopped; the pauses of a game are
bounded, and a game against a person cannot be paused.  Real server, manual clock."""

from __future__ import annotations

from protocol import messages as m
from protocol.errors import ErrorCode

from .players import Recorder, matched_pair
from .test_reconnect_and_clocks import reconnect, time_control, with_event

PAUSE_S = 600  # Limits.bot_pause_seconds


async def against_the_bot(port: int) -> Recorder:
    """A person in a game against the server's random bot, at its first commit (the bot has sealed)."""
    player = await Recorder.connect(port, "pat", kind="human", lobby=False)
    await player.send(m.PlayBot(level="random", clock="normal"))
    await player.expect(m.GameState)
    bot = "blue" if player.seat == "red" else "red"
    if player.commitments[bot] != "sealed":
        await player.until(lambda f: player.commitments[bot] == "sealed", kind=m.Update)
    return player


def my_clock(player: Recorder) -> dict:
    return player.clocks[player.seat]


async def request(player: Recorder, msg: m.Message) -> m.Ack | m.Error:
    """Send ``msg`` and wait for its answer."""
    request_id = await player.send(msg)
    answer = await player.until(lambda f: isinstance(f, (m.Ack, m.Error)) and f.reply_to == request_id)
    assert isinstance(answer, (m.Ack, m.Error))
    return answer


async def test_the_players_clock_stops_while_paused_and_goes_on_where_it_stopped(server):
    player = await against_the_bot(server.port)
    commit_ms = time_control(player)["commit"] * 1000
    state = next(f for f in player.frames if isinstance(f, m.GameState))
    assert state.options["pause_s"] == PAUSE_S
    server.clock.advance(10)
    assert isinstance(await request(player, m.Pause(game=player.game)), m.Ack)
    paused = await player.until(with_event("clock_paused"), kind=m.Update)
    event = next(e for e in paused.events if e["type"] == "clock_paused")
    assert (event["player"], event["pause_left_s"]) == (player.seat, PAUSE_S)
    assert my_clock(player) == {"remaining_ms": commit_ms - 10_000, "for": "commit", "strikes": 0, "paused": True}
    server.clock.advance(200)  # longer than the whole commit time: nothing happens
    await player.send(m.Sync(game=player.game))
    state = await player.expect(m.GameState)
    assert state.clocks[player.seat]["remaining_ms"] == commit_ms - 10_000
    assert state.options["pause_s"] == PAUSE_S  # the pause in progress is counted when it ends
    assert isinstance(await request(player, m.Pause(game=player.game, on=False)), m.Ack)
    resumed = await player.until(with_event("clock_resumed"), kind=m.Update)
    assert next(e for e in resumed.events if e["type"] == "clock_resumed")["pause_left_s"] == PAUSE_S - 200
    assert my_clock(player) == {"remaining_ms": commit_ms - 10_000, "for": "commit", "strikes": 0, "paused": False}
    server.clock.advance(commit_ms / 1000 - 10 - 0.001)
    assert not any(e["type"] == "timeout" for e in player.events()), "a moment too early"
    server.clock.advance(0.001)
    await player.until(with_event("timeout"), kind=m.Update)


async def test_a_games_pauses_are_bounded_and_then_its_clock_runs_on(server):
    player = await against_the_bot(server.port)
    commit_ms = time_control(player)["commit"] * 1000
    await request(player, m.Pause(game=player.game))
    server.clock.advance(PAUSE_S)  # a client that never says "on: false" cannot stall the game
    resumed = await player.until(with_event("clock_resumed"), kind=m.Update)
    assert next(e for e in resumed.events if e["type"] == "clock_resumed")["pause_left_s"] == 0
    refused = await request(player, m.Pause(game=player.game))
    assert isinstance(refused, m.Error) and refused.code == ErrorCode.NOT_ALLOWED
    assert "used up" in refused.message
    server.clock.advance(commit_ms / 1000)
    await player.until(with_event("timeout"), kind=m.Update)


async def test_a_game_against_a_person_cannot_be_paused(server):
    red, blue = await matched_pair(server.port)
    state = next(f for f in red.frames if isinstance(f, m.GameState))
    assert "pause_s" not in state.options
    refused = await request(red, m.Pause(game=red.game))
    assert isinstance(refused, m.Error) and refused.code == ErrorCode.NOT_ALLOWED
    assert "only a game against the server's bot" in refused.message
    assert not any(e["type"] == "clock_paused" for e in blue.events())


async def test_a_dropped_connection_ends_the_pause(server):
    player = await against_the_bot(server.port)
    await request(player, m.Pause(game=player.game))
    server.clock.advance(30)
    back = await reconnect(server.port, player)
    state = next(f for f in back.frames if isinstance(f, m.GameState))
    told = [e["type"] for e in state.log]
    assert told[-3:] == ["clock_resumed", "disconnected", "reconnected"] or told[-2:] == ["clock_resumed",
                                                                                         "disconnected"]
    assert state.clocks[back.seat]["paused"] is False
    assert state.options["pause_s"] == PAUSE_S - 30
