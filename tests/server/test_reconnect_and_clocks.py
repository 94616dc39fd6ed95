"""Reconnection with a resume token, seat takeover, clocks and forfeits."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

from aton.players import RED
from protocol import messages as m
from protocol.client import Client
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.store import Store

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock, ManualTimer
from .players import RawPeer, Recorder, matched_pair


async def reconnect(port: int, old: Recorder) -> Recorder:
    """Close ``old`` and come back with its resume token (and its account key); returns the new
    client, reseated."""
    token = old.client.resume_token
    await old.close()
    new = await Recorder.connect(port, "ignored", kind="bot", resume=token, lobby=False, proof=old.client.proof)
    await new.expect(m.GameState)
    return new


@pytest.mark.parametrize("phase", ["commit", "place"])
async def test_a_dropped_player_reconnects_with_its_token_and_finishes_the_game(server, phase):
    red, blue = await matched_pair(server.port)
    if phase == "place":
        # play until someone must place a stone (both see it), then drop exactly that player
        def placing(recorder):
            return recorder.view["phase"] == "place"

        await asyncio.gather(red.play(random.Random(3), stop=placing), blue.play(random.Random(13), stop=placing))
        dropped, other = (red, blue) if red.view["active"] == "red" else (blue, red)
    else:
        dropped, other = red, blue
    assert dropped.view["winner"] is None and dropped.view["phase"] == phase
    view_before = dropped.view
    back = await reconnect(server.port, dropped)
    assert back.seat == dropped.seat
    assert back.client.name == dropped.client.name
    assert back.view["decision"] == view_before["decision"]
    notice = await other.until(lambda f: any(e["type"] == "reconnected" for e in f.events), kind=m.Update)
    types = [e["type"] for e in other.events()]
    assert types.index("disconnected") < types.index("reconnected")
    assert notice.view["winner"] is None
    await asyncio.gather(back.play(random.Random(4)), other.play(random.Random(5)))
    assert back.view["winner"] == other.view["winner"] is not None


async def test_the_newer_connection_takes_the_seat_and_the_older_is_told_why(server):
    red, _blue = await matched_pair(server.port)
    newer = await Recorder.connect(server.port, "x", kind="bot", resume=red.client.resume_token, lobby=False,
                                   proof=red.client.proof)
    state = await newer.expect(m.GameState)
    assert state.seat == "red"
    bye = await red.expect(m.Bye)
    assert bye.code == "replaced"
    # the seat answers to the newer connection
    await newer.client.commit(newer.game, list(newer.view["decision"]["hand"]))
    await newer.expect(m.Ack)


def with_event(kind: str) -> Callable[[m.Update], bool]:
    """A predicate: an update that carries an event of ``kind``."""
    return lambda update: any(e["type"] == kind for e in update.events)


def time_control(player: Recorder) -> dict:
    """The seconds of the player's table: commit, open, move, grace, max_strikes."""
    return next(f for f in player.frames if isinstance(f, m.GameState)).options["time_control"]


async def test_when_the_commit_clock_runs_out_the_server_commits_for_the_player(server):
    red, blue = await matched_pair(server.port)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    server.clock.advance(time_control(red)["commit"] - 0.001)
    assert RED not in server.rooms[red.game].seals, "a moment too early"
    server.clock.advance(0.001)
    # red did nothing: the server seals red's hand in ascending order and the round goes on
    update = await blue.until(with_event("timeout"), kind=m.Update)
    timeout = next(e for e in update.events if e["type"] == "timeout")
    assert (timeout["player"], timeout["action"], timeout["strikes"]) == ("red", "commit", 1)
    await blue.until(with_event("card_revealed"), kind=m.Update)
    room = server.rooms[red.game]
    assert room.game.state.round >= 1
    red_commit = next(move for seat, move in room.game.history.moves if seat == RED)
    assert list(red_commit.cards) == sorted(red_commit.cards)


async def test_a_player_who_keeps_timing_out_forfeits_on_time(server):
    red, blue = await matched_pair(server.port)
    rng = random.Random(9)
    strikes = time_control(red)["max_strikes"]
    # blue plays; red never moves: whenever only red owes a decision, its time runs out
    while blue.view["winner"] is None:
        if not await blue.act(rng) and blue.clocks["blue"]["for"] is None:
            server.clock.advance(blue.clocks["red"]["remaining_ms"] / 1000)
        await blue.recv()
    timeouts = [e for e in blue.events() if e["type"] == "timeout"]
    assert [e["strikes"] for e in timeouts] == list(range(1, strikes + 1))
    assert [e["forfeit"] for e in timeouts] == [False] * (strikes - 1) + [True]  # the last one lost the game
    assert {e["player"] for e in timeouts} == {"red"}
    assert (blue.view["winner"], blue.view["reason"]) == ("blue", "time")


async def test_a_player_who_stays_away_past_the_grace_period_forfeits(server):
    red, blue = await matched_pair(server.port)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    await red.close()
    away = await blue.until(with_event("disconnected"), kind=m.Update)
    grace = next(e for e in away.events if e["type"] == "disconnected")["grace_s"]
    assert grace == time_control(blue)["grace"] < time_control(blue)["commit"]
    server.clock.advance(grace)
    update = await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    assert (update.view["winner"], update.view["reason"]) == ("blue", "abandoned")
    assert not any(e["type"] == "timeout" for e in blue.events())


async def test_no_game_stalls_even_when_nobody_moves(server):
    red, _blue = await matched_pair(server.port)
    room = server.rooms[red.game]
    time_outs = 0
    while not room.game.is_over:  # every decision's time runs out, one after the other
        # (to the next decision's time-out: the server's other timers, its polling, fall due between)
        due = min(held.timer.when for held in room.seats.values() if isinstance(held.timer, ManualTimer))
        server.clock.advance(due - server.clock.now())
        time_outs += 1
        assert time_outs <= 2 * time_control(red)["max_strikes"], "the game should have ended by now"
    update = await red.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    assert update.view["reason"] == "time"


async def test_the_opponents_exchange_does_not_restart_your_commit_clock(server):
    red, blue = await matched_pair(server.port)
    commit_ms = time_control(red)["commit"] * 1000
    server.clock.advance(10)
    await red.send(m.Exchange(game=red.game))
    await red.expect(m.Ack)
    update = await blue.until(with_event("exchanged"), kind=m.Update)
    assert update.clocks["blue"]["remaining_ms"] == commit_ms - 10_000, "blue's clock runs on"
    assert update.clocks["red"]["remaining_ms"] == commit_ms, "red has a new hand to decide on"
    server.clock.advance(80)  # blue's commit time is up; red's is not
    timeout = await blue.until(with_event("timeout"), kind=m.Update)
    assert [(e["player"], e["action"]) for e in timeout.events if e["type"] == "timeout"] == [("blue", "commit")]
    assert timeout.clocks["red"]["remaining_ms"] == commit_ms - 80_000


async def test_a_deadline_that_moves_later_keeps_its_timer_and_the_time_out_comes_at_the_new_one(server, monkeypatch):
    """A move gives its player a later deadline: the timer set for the earlier one stays (none is
    made per move); when it falls due it sets itself again, and the time-out comes at the new deadline."""
    red, blue = await matched_pair(server.port)
    commit = time_control(red)["commit"]
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    made: list[tuple] = []
    call_later = server.clock.call_later

    def counting(delay: float, callback: Callable[..., object], *args: object) -> ManualTimer:
        if getattr(callback, "__name__", "") == "_timed_out":
            made.append(args)
        return call_later(delay, callback, *args)

    monkeypatch.setattr(server.clock, "call_later", counting)
    server.clock.advance(10)
    await red.send(m.Exchange(game=red.game))  # a new hand: red's commit deadline is now 10 s later
    await red.expect(m.Ack)
    assert made == [], "red's deadline moved later: its timer stays"
    server.clock.advance(commit - 10)  # the old deadline: its timer falls due and sets itself again
    assert made == [(RED,)]
    assert RED not in server.rooms[red.game].seals
    server.clock.advance(10 - 0.001)
    assert RED not in server.rooms[red.game].seals, "a moment too early"
    server.clock.advance(0.001)
    update = await blue.until(with_event("timeout"), kind=m.Update)
    timeout = next(e for e in update.events if e["type"] == "timeout")
    assert (timeout["player"], timeout["action"], timeout["strikes"]) == ("red", "commit", 1)


async def test_a_session_with_more_unfinished_games_than_welcome_may_list_still_resumes(tmp_path):
    """welcome.games lists at most WELCOME_GAMES (the schema's own bound); every game still comes back."""
    many = m.WELCOME_GAMES + 6
    limits = Limits(message_burst=2 * many, max_games_per_session=many, max_games_per_address=many)
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "many.db"), limits=limits, game_seed=11))
    await srv.start()
    try:
        player = await Client.connect("127.0.0.1", srv.port, name="hoarder", lobby=False)
        for _ in range(many):
            await player.send(m.PlayBot(level="random", clock="relaxed"))
            await player.expect(m.GameState)
        games = set(player.seats)
        assert len(games) == many
        await player.close()
        back = await Client.connect("127.0.0.1", srv.port, name="hoarder", resume=player.resume_token, lobby=False)
        assert back.welcome is not None
        assert len(back.welcome.games) == m.WELCOME_GAMES and set(back.welcome.games) <= games
        resumed = {(await back.expect(m.GameState)).game for _ in range(many)}
        assert resumed == games
        await back.close()
    finally:
        await srv.stop()


async def test_a_resume_token_the_server_did_not_issue_is_refused(server, tmp_path):
    other = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "elsewhere" / "aton.db")))
    issued = server.tokens.issue()
    # its first character changed: a body the tag does not sign (the last character would not do: it
    # carries only four bits, so one change in sixteen decodes to the same bytes and is still valid)
    forged = ("b" if issued[0] == "a" else "a") + issued[1:]
    for made_up in ("a" * 32, "a" * 43, other.tokens.issue(), forged):
        peer = await RawPeer.open(server.port, hello=False)
        peer.send({"type": "hello", "version": "1.3", "name": "mallory", "kind": "human", "resume": made_up, "id": 1})
        error, bye = await peer.read_until_closed()
        assert (error["code"], error["field"], error["reply_to"]) == ("unknown_session", "resume", 1)
        assert error["message"] == ("this server did not issue that resume token: "
                                    "say hello without it to start a new session")
        assert bye == {"type": "bye", "code": "misbehaving",
                       "reason": "the handshake failed: " + error["message"]}
    assert not server.lobby.online and not server.by_token  # no session was opened
    other.store.close()


async def test_the_servers_own_tokens_resume_across_a_restart(tmp_path, monkeypatch):
    """A token of the server's is its own however old, also when it holds no seat; and a token
    from before tokens were signed still takes back the seat it holds."""
    db = str(tmp_path / "aton.db")
    first = ArbiterServer(ServerConfig(port=0, db_path=db, game_seed=3))
    monkeypatch.setattr(first.tokens, "issue", lambda: "from-an-older-server-0001")  # as before tokens were signed
    await first.start()
    player = await Client.connect("127.0.0.1", first.port, name="pat", lobby=False)
    await player.send(m.PlayBot(level="random", clock="relaxed"))
    game = (await player.expect(m.GameState)).game
    await player.close()
    await first.stop()
    second = ArbiterServer(ServerConfig(port=0, db_path=db, game_seed=3))
    await second.start()
    try:
        back = await Client.connect("127.0.0.1", second.port, name="x", resume="from-an-older-server-0001",
                                    lobby=False)
        assert back.welcome is not None and back.welcome.games == (game,)
        assert (await back.expect(m.GameState)).game == game
        idle = await Client.connect("127.0.0.1", second.port, name="idle", lobby=False)
        token = idle.resume_token
        await idle.close()
        await second.stop()
        second = ArbiterServer(ServerConfig(port=0, db_path=db))
        await second.start()
        again = await Client.connect("127.0.0.1", second.port, name="idle", resume=token, lobby=False)
        assert again.welcome is not None and again.resume_token == token and again.welcome.games == ()
    finally:
        await second.stop()


async def test_a_clean_restart_resumes_a_game_with_its_log_its_clocks_and_its_strikes(tmp_path):
    """Issue 13, defect 15: quitting ``aton`` stops its server, and the game came back without
    its log and with a fresh clock."""
    db = str(tmp_path / "aton.db")
    clock = ManualClock()
    first = ArbiterServer(ServerConfig(port=0, db_path=db, game_seed=GAME_SEED), clock=clock)
    await first.start()
    player = await Recorder.connect(first.port, "pat", kind="human", lobby=False)
    await player.send(m.PlayBot(level="random", clock="relaxed", seat="red"))
    await player.expect(m.GameState)
    clock.advance(time_control(player)["commit"])  # red does not commit: a strike, and the server commits
    while player.my_decision() is None or player.view["phase"] == "commit":
        await player.recv()
    clock.advance(40)  # red thinks about a stone for 40 s, then the server stops
    await player.send(m.Sync(game=player.game))
    before = await player.expect(m.GameState)
    assert before.clocks["red"]["strikes"] == 1 and any(e["type"] == "timeout" for e in before.log)
    await first.stop()
    await player.close()

    second = ArbiterServer(ServerConfig(port=0, db_path=db, game_seed=GAME_SEED), clock=ManualClock())
    await second.start()
    try:
        back = await Recorder.connect(second.port, "pat", kind="human", resume=player.client.resume_token,
                                      lobby=False, proof=player.client.proof)
        after = await back.expect(m.GameState)
        assert after.game == before.game and after.view == before.view
        seen = len(before.log)
        assert after.log[:seen] == before.log  # every event red had seen, as red saw it ...
        assert [e["type"] for e in after.log[seen:]] == ["disconnected"]  # ... then the restart's own
        assert after.clocks["red"] == before.clocks["red"]  # the time left, not a fresh clock; the strike
        assert before.clocks["red"]["remaining_ms"] == (time_control(player)["move"] - 40) * 1000
    finally:
        await second.stop()
    store = Store(db)
    try:  # the pause is spent once the game resumed; the stop kept a new one
        [game] = store.load_games(status="playing")
        assert game.pause is not None and game.pause.version >= after.version
    finally:
        store.close()


async def test_a_connection_that_ends_is_let_go_by_the_games_it_entered_and_no_other(server):
    """At a connection's end the server looks at the rooms it entered (a seat, a watch), not at
    every room: its seat's grace period starts, it leaves the spectators, and a game it never
    entered is untouched."""
    red, blue = await matched_pair(server.port)
    cy, dee = await matched_pair(server.port)
    fan = await Recorder.connect(server.port, "fan", kind="spectator", lobby=False)
    await fan.send(m.Watch(game=red.game))
    await fan.expect(m.GameState)
    ours, other = server.rooms[red.game], server.rooms[cy.game]

    async def until(done: Callable[[], bool]) -> None:
        for _ in range(500):
            if done():
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the server never let go")

    await fan.close()
    await until(lambda: not ours.spectators)
    await red.close()
    await until(lambda: ours.seats[RED].participant is None)
    assert ours.seats[RED].grace_timer is not None  # its grace period runs
    assert all(held.participant is not None and held.grace_timer is None for held in other.seats.values())
    for player in (blue, cy, dee):
        await player.close()
