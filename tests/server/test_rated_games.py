"""Rated games on a real server (issue 15, point 2): two accounts play a rated game to the end, or
one loses it on time, and their ratings move exactly as Glicko-2 says; a casual game moves
nothing; a game against a hosted bot moves a person half as far; the ratings outlive a restart;
guests play casual games only."""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from protocol import messages as m
from protocol.account_keys import AccountKey
from server import glicko2
from server.app import ArbiterServer
from server.config import ServerConfig
from server.export import record_of
from server.ratings import AGAINST_A_BOT, BOT_START, START_RATING, START_RD, START_VOLATILITY, TAU

from ..manual_clock import ManualClock
from .players import Recorder
from .test_reconnect_and_clocks import time_control, with_event

NEW = glicko2.Rating(START_RATING, START_RD, START_VOLATILITY)


class Wall:
    """The wall clock the server's ratings count days on: still, unless a test moves it."""

    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def __call__(self) -> float:
        return self.t


def config_at(tmp_path) -> ServerConfig:
    return ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), game_seed=11)


@pytest.fixture
async def server(tmp_path):
    srv = ArbiterServer(config_at(tmp_path), clock=ManualClock(), wall=Wall())
    await srv.start()
    yield srv
    await srv.stop()


async def signed_in(server: ArbiterServer, name: str) -> Recorder:
    """A client that proves the account named ``name``: its key is made from the name, so the
    same name is the same account again (after a restart, say)."""
    player = await Recorder.connect(server.port, name, kind="human", lobby=False,
                                    proof=AccountKey.from_seed(name.encode()))
    assert player.client.name == name
    return player


async def rated_pair(server: ArbiterServer, rated: bool | None = True,
                     clock: str = "blitz") -> tuple[Recorder, Recorder]:
    """ann opens a table, bob joins it: the two ordered red, blue."""
    ann, bob = await signed_in(server, "ann"), await signed_in(server, "bob")
    await ann.send(m.CreateTable(clock=clock, rated=rated))
    created = await ann.expect(m.TableCreated)
    assert created.rated is bool(rated)
    await bob.send(m.JoinTable(table=created.table))
    await asyncio.gather(ann.expect(m.GameState), bob.expect(m.GameState))
    return (ann, bob) if ann.seat == "red" else (bob, ann)


def rating_events(player: Recorder) -> dict[str, dict]:
    return {e["player"]: e for e in player.events() if e["type"] == "rating_changed"}


def score(view: dict, seat: str) -> float:
    return 0.5 if view["winner"] == "draw" else float(view["winner"] == seat)


def expected(before: glicko2.Rating, opponent: glicko2.Rating, result: float) -> glicko2.Rating:
    return glicko2.rate(before, [glicko2.Result(opponent, result)], TAU, elapsed_periods=0)


async def test_a_rated_game_played_to_the_end_moves_both_ratings_as_glicko2_says(server):
    red, blue = await rated_pair(server)
    state = next(f for f in red.frames if isinstance(f, m.GameState))
    assert state.options["rated"] is True
    assert {seat: (p["rating"], p["provisional"]) for seat, p in state.players.items()} == \
        {"red": (1500, True), "blue": (1500, True)}
    await asyncio.gather(red.play(random.Random(1)), blue.play(random.Random(2)))
    for player in (red, blue):
        events = rating_events(player)
        for seat in ("red", "blue"):
            after = expected(NEW, NEW, score(player.view, seat))
            assert events[seat] == {"type": "rating_changed", "player": seat, "before": 1500,
                                    "after": round(after.rating), "provisional": after.rd >= 110,
                                    "version": events[seat]["version"]}
            holder = red if seat == "red" else blue
            assert server.ratings.get(account_id(server, holder), "blitz").glicko() == after
            assert server.ratings.get(account_id(server, holder), "normal").games == 0
    # the game_over came first, in the same update
    last = [f for f in red.frames if isinstance(f, m.Update)][-1]
    assert [e["type"] for e in last.events][-3:] == ["game_over", "rating_changed", "rating_changed"]
    # the game's record keeps each seat's rating before and after, in memory and in the database
    afters = {seat: expected(NEW, NEW, score(red.view, seat)) for seat in ("red", "blue")}
    kept = {seat: {"rating_before": 1500, "rating_after": round(after.rating), "provisional": after.rd >= 110}
            for seat, after in afters.items()}
    await red.send(m.GetRecord(game=red.game))
    record = (await red.expect(m.GameRecordReply)).record
    stored = server.store.load_game(red.game)
    assert stored is not None
    for players in (record["meta"]["players"], record_of(stored)["meta"]["players"]):
        assert {seat: {key: players[seat][key] for key in ("rating_before", "rating_after", "provisional")}
                for seat in players} == kept


async def test_a_rated_game_lost_on_time_is_rated_too(server):
    red, blue = await rated_pair(server, clock="normal")
    rng = random.Random(9)
    while blue.view["winner"] is None:  # blue plays; red never moves and runs out of time
        if not await blue.act(rng) and blue.clocks["blue"]["for"] is None:
            server.clock.advance(blue.clocks["red"]["remaining_ms"] / 1000)
        await blue.recv()
    assert (blue.view["winner"], blue.view["reason"]) == ("blue", "time")
    winner, loser = expected(NEW, NEW, 1), expected(NEW, NEW, 0)
    events = rating_events(blue)
    assert (events["blue"]["after"], events["red"]["after"]) == (round(winner.rating), round(loser.rating))
    assert events["blue"]["after"] > 1500 > events["red"]["after"]
    assert server.ratings.get(account_id(server, blue), "normal").glicko() == winner
    assert server.ratings.get(account_id(server, red), "normal").glicko() == loser


async def test_an_abandoned_rated_game_is_rated(server):
    red, blue = await rated_pair(server)
    await red.close()
    await blue.until(with_event("disconnected"), kind=m.Update)
    server.clock.advance(time_control(blue)["grace"])
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    assert blue.view["reason"] == "abandoned"
    assert rating_events(blue)["blue"]["after"] == round(expected(NEW, NEW, 1).rating)


async def test_a_casual_game_moves_no_rating(server):
    red, blue = await rated_pair(server, rated=None)  # a client that does not say: casual
    assert next(f for f in red.frames if isinstance(f, m.GameState)).options["rated"] is False
    await red.send(m.Resign(game=red.game))
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    assert rating_events(blue) == {}
    stored = server.store.load_game(blue.game)
    assert stored is not None and "rating_before" not in record_of(stored)["meta"]["players"]["red"]
    assert server.store.db.execute("SELECT count(*) FROM ratings").fetchone()[0] == 0


async def test_a_game_against_a_bot_moves_a_person_half_as_far(server):
    ann = await signed_in(server, "ann")
    await ann.send(m.PlayBot(level="random", clock="blitz", rated=True))
    state = await ann.expect(m.GameState)
    bot_seat = "red" if state.seat == "blue" else "blue"
    bot_start = glicko2.Rating(*BOT_START["random"], START_VOLATILITY)
    assert state.players[bot_seat]["rating"] == round(bot_start.rating)
    await ann.send(m.Resign(game=ann.game))
    await ann.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    full = expected(NEW, bot_start, 0)
    halved = server.ratings.get(account_id(server, ann), "blitz")
    assert math.isclose(halved.rating - NEW.rating, (full.rating - NEW.rating) * AGAINST_A_BOT)
    assert math.isclose(halved.rd - NEW.rd, (full.rd - NEW.rd) * AGAINST_A_BOT)
    assert state.seat is not None and rating_events(ann)[state.seat]["after"] == round(halved.rating)
    # the bot moves in full
    bot = server.bot_accounts["random"].id
    assert server.ratings.get(bot, "blitz").glicko() == expected(bot_start, NEW, 1)


def name_of(player: Recorder) -> str:
    assert player.client.welcome is not None
    return player.client.welcome.name


def account_id(server: ArbiterServer, player: Recorder) -> int:
    """The id of the account ``player`` plays under."""
    account = server.accounts.by_name(name_of(player))
    assert account is not None
    return account.id


async def test_ratings_outlive_a_restart(tmp_path):
    wall = Wall()
    first = ArbiterServer(config_at(tmp_path), clock=ManualClock(), wall=wall)
    await first.start()
    red, blue = await rated_pair(first)
    await red.send(m.Resign(game=red.game))
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    before = first.ratings.get(account_id(first, red), "blitz")
    await first.stop()
    again = ArbiterServer(config_at(tmp_path), clock=ManualClock(), wall=wall)
    await again.start()
    try:
        assert again.ratings.get(account_id(again, red), "blitz") == before
        host = await signed_in(again, name_of(red))
        await host.send(m.CreateTable(clock="blitz", rated=True))
        await host.expect(m.TableCreated)
        assert again.lobby.sections["tables"].entries[next(iter(again.lobby.tables))]["rating"] == before.public()
    finally:
        await again.stop()


async def test_guests_play_casual_games_only(server):
    guest = await Recorder.connect(server.port, "gus", kind="human", lobby=False, proof=None)
    for request in (m.CreateTable(rated=True), m.QuickMatch(rated=True), m.PlayBot(level="random", rated=True)):
        await guest.send(request)
        error = await guest.expect(m.Error)
        assert error.code == "not_allowed" and "casual" in error.message
    ann = await signed_in(server, "ann")
    await ann.send(m.CreateTable(rated=True))
    table = (await ann.expect(m.TableCreated)).table
    await guest.send(m.JoinTable(table=table))
    assert (await guest.expect(m.Error)).code == "not_allowed"
    assert table in server.lobby.tables  # still open for someone with an account


async def test_an_account_cannot_play_a_rated_game_against_itself(server):
    one = await signed_in(server, "ann")
    other = await Recorder.connect(server.port, "ann-again", kind="human", lobby=False)
    next(c for c in server.connections if c.name == "ann-again").account = server.accounts.by_name("ann")
    await one.send(m.QuickMatch(clock="blitz", rated=True))
    await one.expect(m.Queued)
    await other.send(m.QuickMatch(clock="blitz", rated=True))
    assert (await other.expect(m.Error)).code == "not_allowed"
