"""Ratings (server/ratings.py) on a real database: lichess's constants, one game a rating period,
the RD growing with time away (an injected wall clock), half the change against a bot, bounds,
the leaderboard, and everything kept across a restart."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from server import glicko2
from server.accounts import Accounts
from server.ratings import AGAINST_A_BOT, BOT_START, MIN_RD, SECONDS_PER_DAY, TAU, Rated, Ratings, live_rd
from server.store import Store

DAY = SECONDS_PER_DAY


class WallClock:
    """A wall clock the test moves by hand."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "aton.db")
    yield store
    store.close()


@pytest.fixture
def wall() -> WallClock:
    return WallClock()


def new_game(store: Store) -> int:
    """A game row for the rating changes to refer to."""
    game = store.next_game_id()
    store.create_game(game, 1, {}, {"clock": "normal"}, {})
    return game


def game_between(ratings: Ratings, store: Store, red: int, blue: int, red_score: float, clock: str = "normal"):
    """Rate a new game between two people: red scores ``red_score``."""
    return ratings.rate_game(new_game(store), clock, {"red": Rated(red, False, red_score),
                                                      "blue": Rated(blue, False, 1 - red_score)})


def people(store: Store, *names: str) -> list[int]:
    accounts = Accounts(store)
    return [accounts.create(name, "human").id for name in names]


def test_a_new_account_starts_where_lichess_starts(store, wall):
    ann, = people(store, "ann")
    rating = Ratings(store, wall).get(ann, "normal")
    assert (rating.rating, rating.rd, rating.volatility, rating.games) == (1500, 500, 0.09, 0)
    assert rating.provisional and rating.shown() == "1500?"
    assert replace(rating, rating=1623.4, rd=109.9).shown() == "1623"
    assert replace(rating, rating=1623.6, rd=110).shown() == "1624?"


def test_a_rated_game_moves_both_ratings_as_glicko2_says_and_is_stored(store, wall):
    ann, bob = people(store, "ann", "bob")
    ratings = Ratings(store, wall)
    game = new_game(store)
    changes = ratings.rate_game(game, "blitz", {"red": Rated(ann, False, 1), "blue": Rated(bob, False, 0)})
    start = glicko2.Rating(1500, 500, 0.09)
    winner = glicko2.rate(start, [glicko2.Result(start, 1)], TAU, elapsed_periods=0)
    loser = glicko2.rate(start, [glicko2.Result(start, 0)], TAU, elapsed_periods=0)
    assert changes["red"].after.glicko() == winner and changes["blue"].after.glicko() == loser
    assert changes["red"].before.rating == 1500
    assert changes["red"].shown_change == round(winner.rating) - 1500 > 0
    assert changes["blue"].shown_change == round(loser.rating) - 1500 < 0
    store.commit()
    reopened = Ratings(store, wall)  # from the database, not from memory
    assert reopened.get(ann, "blitz").glicko() == winner
    assert (reopened.get(ann, "blitz").wins, reopened.get(bob, "blitz").losses) == (1, 1)
    assert reopened.get(ann, "normal").games == 0  # one rating per clock
    rows = store.db.execute("SELECT account, clock, rating_before, rating_after FROM rating_changes "
                            "WHERE game = ? ORDER BY account", (game,)).fetchall()
    assert rows == [(ann, "blitz", 1500, winner.rating), (bob, "blitz", 1500, loser.rating)]


def test_a_draw_counts_as_a_draw(store, wall):
    ann, bob = people(store, "ann", "bob")
    ratings = Ratings(store, wall)
    game_between(ratings, store, ann, bob, 0.5)
    after = ratings.get(ann, "normal")
    assert (after.games, after.wins, after.losses, after.draws) == (1, 0, 0, 1)
    assert math.isclose(after.rating, 1500)


def test_a_game_against_a_bot_moves_a_person_half_as_far(store, wall):
    ann, = people(store, "ann")
    bot = Accounts(store).bot("Bot (normal)").id
    ratings = Ratings(store, wall, bot_levels={bot: "normal"})
    bot_start = glicko2.Rating(*BOT_START["normal"], 0.09)
    assert ratings.get(bot, "normal").glicko() == bot_start
    changes = ratings.rate_game(new_game(store), "normal", {"red": Rated(ann, False, 1), "blue": Rated(bot, True, 0)})
    person = glicko2.Rating(1500, 500, 0.09)
    full = glicko2.rate(person, [glicko2.Result(bot_start, 1)], TAU, elapsed_periods=0)
    after = changes["red"].after
    assert math.isclose(after.rating - 1500, (full.rating - 1500) * AGAINST_A_BOT)
    assert math.isclose(after.rd - 500, (full.rd - 500) * AGAINST_A_BOT)
    assert math.isclose(after.volatility - 0.09, (full.volatility - 0.09) * AGAINST_A_BOT)
    # the bot moves in full
    assert changes["blue"].after.glicko() == glicko2.rate(bot_start, [glicko2.Result(person, 0)], TAU, 0)


def test_the_rd_grows_with_time_away_as_lichess_grows_it(store, wall):
    # lichess chose its rate so that a typical RD goes from 60 to 110 in a year
    assert round(live_rd(60, 0.06, 365 * DAY)) == 110
    assert math.isclose(live_rd(60, 0.06, 0), 60)
    assert live_rd(60, 0.06, -DAY) == live_rd(60, 0.06, 0)  # a clock set back grows nothing
    assert live_rd(480, 0.09, 10_000 * DAY) == 500  # at most the start's
    ann, bob = people(store, "ann", "bob")
    ratings = Ratings(store, wall)
    game_between(ratings, store, ann, bob, 1)
    right_after = ratings.get(ann, "normal")
    wall.t += 30 * DAY
    later = ratings.get(ann, "normal")
    assert later.rating == right_after.rating and later.rd > right_after.rd
    assert math.isclose(later.rd, live_rd(right_after.rd, right_after.volatility, 30 * DAY))
    # the next game starts from the grown RD
    change = game_between(ratings, store, ann, bob, 1)
    assert change["red"].before.rd == later.rd


def test_the_rd_never_falls_below_its_floor(store, wall):
    ann, bob = people(store, "ann", "bob")
    ratings = Ratings(store, wall)
    for n in range(150):
        game_between(ratings, store, ann, bob, n % 2)
    assert ratings.get(ann, "normal").rd == MIN_RD
    assert not ratings.get(ann, "normal").provisional


def test_two_games_in_one_turn_each_see_the_others_change(store, wall):
    """Rated before the turn's commit, the second game starts from the first one's result."""
    ann, bob, cid = people(store, "ann", "bob", "cid")
    ratings = Ratings(store, wall)
    first = game_between(ratings, store, ann, bob, 1)
    second = game_between(ratings, store, ann, cid, 1)
    assert second["red"].before == first["red"].after
    store.commit()
    assert Ratings(store, wall).get(ann, "normal") == second["red"].after


def test_an_account_cannot_be_rated_against_itself(store, wall):
    ann, = people(store, "ann")
    with pytest.raises(ValueError):
        game_between(Ratings(store, wall), store, ann, ann, 1)


def test_the_leaderboard_lists_established_ratings_best_first_in_pages(store, wall):
    ann, bob, cid, dee = people(store, "ann", "bob", "cid", "dee")
    ratings = Ratings(store, wall)
    # ann and bob win in turn and cid and dee draw, until all four are established; then ann
    # beats bob once more
    for n in range(30):
        game_between(ratings, store, ann, bob, 1 - n % 2)
        game_between(ratings, store, cid, dee, 0.5)
    game_between(ratings, store, ann, bob, 1)
    people(store, "eve")  # never played: not listed
    total, page = ratings.leaderboard("normal", 0, 2)
    assert total == 4
    assert [(s.rank, s.name) for s in page] == [(1, "ann"), (2, "cid")]
    total, page = ratings.leaderboard("normal", 2, 10)
    # cid and dee drew every game: both at 1500, in the order their accounts were made
    assert [(s.rank, s.name, s.kind) for s in page] == [(3, "dee", "human"), (4, "bob", "human")]
    assert page[1].rating == ratings.get(bob, "normal") and not page[1].rating.provisional
    assert ratings.leaderboard("blitz", 0, 10) == (0, [])
    # a year away makes every RD provisional again: off the board
    wall.t += 365 * DAY
    assert ratings.leaderboard("normal", 0, 10) == (0, [])
