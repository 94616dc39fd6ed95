"""Glicko-2 (server/glicko2.py): the worked example of Glickman's paper to its printed precision,
and the system's invariants for any ratings (Hypothesis)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from server.glicko2 import CENTRE, SCALE, Rating, Result, expected_score, idle, rate

# ------------------------------------------------------------------ "Example of the Glicko-2 system"

#: The paper's player and the three opponents of its rating period (their volatility plays no part).
PLAYER = Rating(1500, 200, 0.06)
PERIOD = (Result(Rating(1400, 30, 0.06), 1), Result(Rating(1550, 100, 0.06), 0),
          Result(Rating(1700, 300, 0.06), 0))
PAPER_TAU = 0.5


def test_the_papers_worked_example_to_its_printed_precision():
    after = rate(PLAYER, PERIOD, PAPER_TAU)
    # Step 8 prints μ' = −0.2069 and φ' = 0.8722, then r' = 1464.06 and RD' = 151.52 computed
    # from those rounded figures (173.7178 × −0.2069 + 1500 = 1464.06); unrounded μ' gives
    # 1464.0507, which the paper's four decimals of μ' cannot tell from it.
    assert round((after.rating - CENTRE) / SCALE, 4) == -0.2069
    assert round(after.rd / SCALE, 4) == 0.8722
    assert round(CENTRE + SCALE * round((after.rating - CENTRE) / SCALE, 4), 2) == 1464.06
    assert abs(after.rating - 1464.06) < 0.01
    assert round(after.rd, 2) == 151.52
    # σ' = exp(A/2) with A = −5.62696 after step 5's iterations; σ' printed as 0.05999 (its
    # first five decimals: 0.0599960 rounds up)
    assert round(2 * math.log(after.volatility), 5) == -5.62696
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999


def test_the_papers_expected_scores():
    # Step 3's table: E(μ, μj, φj) = 0.639, 0.432, 0.303
    assert [round(expected_score(PLAYER, r.opponent), 3) for r in PERIOD] == [0.639, 0.432, 0.303]


def test_a_period_without_games_only_widens_the_deviation():
    # Step 6 for a player who did not compete: φ' = √(φ² + σ²), rating and volatility kept.
    after = rate(PLAYER, (), PAPER_TAU)
    assert after.rating == PLAYER.rating and after.volatility == PLAYER.volatility
    assert math.isclose(after.rd / SCALE, math.sqrt((200 / SCALE) ** 2 + 0.06 ** 2))
    assert after == idle(PLAYER)


# ------------------------------------------------------------------ invariants

ratings = st.builds(Rating, st.floats(400, 3000), st.floats(45, 500), st.floats(0.03, 0.1))
taus = st.floats(0.3, 1.2)
scores = st.sampled_from((0.0, 0.5, 1.0))


def mirrored(rating: Rating) -> Rating:
    """The same player reflected about the centre of the scale."""
    return Rating(2 * CENTRE - rating.rating, rating.rd, rating.volatility)


@given(ratings, ratings, scores, taus)
def test_playing_never_widens_the_deviation(player, opponent, score, tau):
    # with the growth for time away applied before the game (the server's way: 0 periods)
    assert rate(player, [Result(opponent, score)], tau, elapsed_periods=0).rd < player.rd


@given(ratings, ratings, taus)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_one(player, opponent, tau):
    assert rate(player, [Result(opponent, 1)], tau, 0).rating > player.rating
    assert rate(player, [Result(opponent, 0)], tau, 0).rating < player.rating


@given(ratings, ratings, taus)
def test_a_better_result_gives_a_better_rating(player, opponent, tau):
    win, draw, loss = (rate(player, [Result(opponent, s)], tau, 0).rating for s in (1, 0.5, 0))
    assert win > draw > loss


@given(ratings, ratings, scores, taus)
def test_the_scale_is_symmetric_about_its_centre(player, opponent, score, tau):
    """Reflect both players about 1500 and turn the result round: every change is reflected."""
    straight = rate(player, [Result(opponent, score)], tau, 0)
    reflected = rate(mirrored(player), [Result(mirrored(opponent), 1 - score)], tau, 0)
    assert math.isclose(straight.rating - player.rating, -(reflected.rating - mirrored(player).rating),
                        rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(straight.rd, reflected.rd, rel_tol=1e-9)
    assert math.isclose(straight.volatility, reflected.volatility, rel_tol=1e-9)


@given(st.floats(400, 3000), st.floats(45, 500), st.floats(0.03, 0.1), taus)
def test_between_equals_what_one_gains_the_other_loses(rating, rd, volatility, tau):
    a = b = Rating(rating, rd, volatility)
    a_after = rate(a, [Result(b, 1)], tau, 0)
    b_after = rate(b, [Result(a, 0)], tau, 0)
    assert math.isclose(a_after.rating - rating, rating - b_after.rating, rel_tol=1e-9)
    assert math.isclose(rate(a, [Result(b, 0.5)], tau, 0).rating, rating)  # a draw between equals moves nothing


@given(ratings, st.floats(0, 1000), st.floats(0, 1000))
def test_the_deviation_grows_with_time_away(player, some, more):
    assert idle(player, some).rd <= idle(player, some + more).rd
    assert math.isclose(idle(player, 0).rd, player.rd)
