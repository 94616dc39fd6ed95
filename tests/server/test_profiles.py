"""Profiles over the protocol (issue 15, point 3): a player's finished games counted and their
games paged, newest first; another player's only as far as the asker may read them (public
games, and games they played too), with nothing of a game in progress; bounded and rate-limited."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from typing import Any

from protocol import messages as m
from protocol.game_lines import GameLine
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from ..manual_clock import ManualClock
from .players import Recorder, bot_game, matched_pair


async def start(db: str, **limits: Any) -> ArbiterServer:
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=db, game_seed=1,
                                        limits=replace(Limits(), **limits)), clock=ManualClock())
    await server.start()
    return server


async def profile(client: Recorder, name: str | None = None, page: int = 0) -> m.Profile | m.Error:
    request = await client.send(m.GetProfile(name=name, page=page))
    reply = await client.until(lambda f: isinstance(f, (m.Profile, m.Error)) and f.reply_to == request)
    assert isinstance(reply, (m.Profile, m.Error))
    return reply


async def leaderboard(client: Recorder, clock: str, page: int) -> m.Leaderboard:
    request = await client.send(m.GetLeaderboard(clock=clock, page=page))
    return await client.until(lambda f: isinstance(f, m.Leaderboard) and f.reply_to == request, kind=m.Leaderboard)


def lines(reply: m.Profile | m.Error) -> list[GameLine]:
    assert isinstance(reply, m.Profile), reply
    return [GameLine.from_wire(item) for item in reply.games]


async def test_a_profile_shows_ones_own_games_and_anothers_only_as_far_as_one_may_read_them(tmp_path):
    server = await start(str(tmp_path / "aton.db"))
    try:
        red, blue = await matched_pair(server.port)  # alice and bob, a public game
        alice = red if red.client.name == "alice" else blue
        bob = blue if alice is red else red
        await asyncio.gather(red.play(random.Random(21)), blue.play(random.Random(22)))
        public, public_result = alice.game, "won" if alice.view["winner"] == alice.seat else "lost"
        alice_seat = alice.seat
        private = await bot_game(alice, resign=True)
        going = await bot_game(alice, resign=False)
        carol = await Recorder.connect(server.port, "carol", kind="human", lobby=False, proof=None)  # a guest

        own = await profile(alice)
        assert isinstance(own, m.Profile) and (own.name, own.guest, own.more) == ("alice", False, False)
        assert [(line.game, line.result) for line in lines(own)] == [
            (going, "playing"), (private, "lost"), (public, public_result)]
        playing = lines(own)[0]
        assert (playing.opponent, playing.reason, playing.rounds, playing.seconds) == ("Bot (random)", None, None, None)
        assert (own.played, own.won + own.lost + own.drawn) == (2, 2)

        for asker in (carol, bob):  # the bot game is private: neither may read it, so neither sees it
            seen = await profile(asker, "alice")
            assert isinstance(seen, m.Profile) and [line.game for line in lines(seen)] == [public]
            assert lines(seen)[0].opponent == "bob" and lines(seen)[0].seat == alice_seat
            assert (seen.played, seen.won, seen.lost, seen.drawn) == (own.played, own.won, own.lost, own.drawn)

        carols = await profile(carol)
        assert isinstance(carols, m.Profile) and carols.guest and (carols.played, carols.games) == (0, ())
        missing = await profile(carol, "zed")
        assert isinstance(missing, m.Error)
        assert (missing.code, missing.message, missing.field) == ("not_found", "there is no player zed", "name")

        # an account's profile, its player online or not: the hosted bot's, by its account's name
        bots = await profile(alice, "bot (RANDOM)")  # names compare as the lobby compares them
        assert isinstance(bots, m.Profile) and (bots.name, bots.guest, bots.played) == ("Bot (random)", False, 1)
        assert [(line.game, line.result, line.opponent) for line in lines(bots)] == [(private, "won", "alice")]
        seen = await profile(carol, "Bot (random)")  # alice's game with it was private: carol sees it counted only
        assert isinstance(seen, m.Profile) and (seen.played, seen.games) == (1, ())
    finally:
        await server.stop()


async def test_a_profile_names_an_opponent_as_they_are_named_now_and_then(tmp_path):
    """bob renames himself robert after his game with alice, and someone else takes "bob": alice's
    profile names her opponent robert (then: bob), whose profile is the one with that game; a
    guest opponent is named as they played and marked a guest (no profile to open)."""
    server = await start(str(tmp_path / "aton.db"))
    try:
        red, blue = await matched_pair(server.port)  # alice and bob, a public game
        alice = red if red.client.name == "alice" else blue
        bob = blue if alice is red else red
        await bob.send(m.Resign(game=bob.game))
        await alice.until(lambda u: u.view["winner"] is not None, kind=m.Update)
        public = alice.game
        await bob.send(m.Rename(name="robert"))
        assert (await bob.expect(m.AccountInfo)).name == "robert"
        newcomer = await Recorder.connect(server.port, "bob", kind="human", lobby=False)
        assert newcomer.client.name == "bob"  # the name is free again: another account took it
        guest = await Recorder.connect(server.port, "carol", kind="human", lobby=False, proof=None)
        await guest.send(m.CreateTable())
        await alice.send(m.JoinTable(table=(await guest.expect(m.TableCreated)).table))
        await guest.expect(m.GameState)
        with_guest = (await alice.until(lambda f: f.game != public, kind=m.GameState)).game

        own = await profile(alice)
        assert [(line.game, line.opponent, line.opponent_then, line.opponent_guest, line.opponent_words)
                for line in lines(own)] == [(with_guest, "~carol", None, True, "~carol"),
                                            (public, "robert", "bob", False, "robert (then: bob)")]
        theirs = await profile(alice, "robert")  # the opponent's profile, by the name shown
        assert isinstance(theirs, m.Profile) and [line.game for line in lines(theirs)] == [public]
        assert lines(theirs)[0].opponent == "alice" and lines(theirs)[0].opponent_then is None
        impostor = await profile(alice, "bob")
        assert isinstance(impostor, m.Profile) and impostor.played == 0  # the other "bob" never played her
    finally:
        await server.stop()


async def test_profiles_are_paged_and_rate_limited(tmp_path):
    server = await start(str(tmp_path / "aton.db"), history_page_entries=2, history_burst=5,
                         history_requests_per_second=0.001)
    try:
        ann = await Recorder.connect(server.port, "ann", kind="human", lobby=False)
        games = [await bot_game(ann, resign=True) for _ in range(3)]
        first, second = await profile(ann, page=0), await profile(ann, page=1)
        assert isinstance(first, m.Profile) and isinstance(second, m.Profile)
        assert [line.game for line in lines(first) + lines(second)] == games[::-1]
        assert (first.more, second.more, second.page) == (True, False, 1)
        beyond = await profile(ann, page=m.HISTORY_PAGES)
        assert isinstance(beyond, m.Profile) and (beyond.games, beyond.more) == ((), False)
        request = await ann.send(m.GetRecord(game=games[0]))  # records and profiles share the limit
        await ann.until(lambda f: isinstance(f, m.GameRecordReply) and f.reply_to == request)
        assert isinstance(await profile(ann), m.Profile)
        refused = await profile(ann)
        assert isinstance(refused, m.Error) and refused.code == "rate_limited"
        too_deep = await profile(ann, page=m.HISTORY_PAGES + 1)
        assert isinstance(too_deep, m.Error) and (too_deep.code, too_deep.field) == ("invalid", "page")
    finally:
        await server.stop()


async def test_the_leaderboard_ranks_the_ratings_no_longer_provisional_best_first(tmp_path):
    server = await start(str(tmp_path / "aton.db"), history_page_entries=2)
    try:
        now = time.time()
        for name, rating, rd in (("ann", 1700.0, 60.0), ("ben", 1800.0, 80.0), ("cy", 1600.0, 100.0),
                                 ("dee", 2000.0, 300.0)):  # dee's is provisional: not ranked
            account = server.accounts.create(name, "human")
            server.store.db.execute("INSERT INTO ratings (account, clock, rating, rd, volatility, games, updated) "
                                    "VALUES (?, 'blitz', ?, ?, 0.06, 30, ?)", (account.id, rating, rd, now))
        asker = await Recorder.connect(server.port, "eve", kind="human", lobby=False)
        pages = [await leaderboard(asker, "blitz", page) for page in (0, 1)]
        assert [(e["rank"], e["name"], e["rating"], e["rd"]) for p in pages for e in p.entries] == [
            (1, "ben", 1800, 80), (2, "ann", 1700, 60), (3, "cy", 1600, 100)]
        assert [(p.total, p.more) for p in pages] == [(3, True), (3, False)]
        empty = await leaderboard(asker, "relaxed", 0)
        assert (empty.total, empty.entries, empty.more) == (0, (), False)
        ann = await profile(asker, "ann")
        assert isinstance(ann, m.Profile) and ann.ratings is not None
        assert ann.ratings["blitz"] == {"rating": 1700, "provisional": False, "games": 30}
    finally:
        await server.stop()
