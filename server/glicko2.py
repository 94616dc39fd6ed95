"""The Glicko-2 rating system, as Mark Glickman's "Example of the Glicko-2 system" states it.

Pure arithmetic, no I/O and no time: ``rate`` is steps 2–8 of the paper for one player and one
rating period; ``idle`` is step 6 alone (a period without games).  Ratings and deviations go in
and come out on the Glicko scale (1500, 350, …); the Glicko-2 scale (μ, φ) lives inside.
What this server does with it (lichess's constants, one game per rating period, the deviation
growing with the time away) is ``server.ratings``.

Why not a package: the only Glicko-2 package on the Python index that is more than a few months
old (``glicko2`` 2.1.0, last released in January 2024) keeps τ in a class attribute shared by
every player, has no type hints, and its step-5 function f(x) squares the player's *rating* μ
where the paper squares the *deviation* φ: its volatilities are off (slightly: at five decimals
the paper's example hides it).  The algorithm is some sixty lines; this module is tested against
the paper's worked example to its printed precision and with Hypothesis for its invariants
(tests/server/test_glicko2.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Glicko scale units per Glicko-2 unit (the paper's 173.7178 = 400 / ln 10).
SCALE = 173.7178
#: The Glicko-scale rating that is 0 on the Glicko-2 scale.
CENTRE = 1500.0
#: Step 5's convergence tolerance (the paper's ε).
EPSILON = 0.000001
#: Step 5's bound on the iterations: the Illinois method converges in a handful; more than
#: this means the inputs are not finite numbers.
MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class Rating:
    """A player's rating, rating deviation (RD) and volatility σ, on the Glicko scale."""

    rating: float
    rd: float
    volatility: float


@dataclass(frozen=True)
class Result:
    """One game of the rating period: the opponent as rated before the period, and the score
    (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Rating
    score: float


class NoConvergence(ArithmeticError):
    """Step 5 did not converge (the inputs were not finite, or τ not positive)."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The score ``player`` is expected to make against ``opponent`` (the paper's E)."""
    return _expected((player.rating - CENTRE) / SCALE, (opponent.rating - CENTRE) / SCALE, opponent.rd / SCALE)


def idle(player: Rating, periods: float = 1.0) -> Rating:
    """Step 6 alone: the player's RD after ``periods`` rating periods without a game
    (φ* = √(φ² + periods·σ²)); a fraction of a period is allowed, as lichess counts time."""
    phi = player.rd / SCALE
    return Rating(player.rating, math.sqrt(phi * phi + periods * player.volatility ** 2) * SCALE, player.volatility)


def rate(player: Rating, results: Sequence[Result], tau: float, elapsed_periods: float = 1.0) -> Rating:
    """The player's rating after one rating period with ``results`` (steps 2–8 of the paper).

    ``tau`` is the system constant τ.  ``elapsed_periods`` is what step 6 adds to φ²
    (``elapsed_periods``·σ'²): the paper's one period, or 0 for a server that grows the
    deviation with the time away before the game instead (``server.ratings``).  No results:
    only step 6 applies.
    """
    if not results:
        return idle(player, elapsed_periods)
    # Step 2: the Glicko-2 scale.
    mu = (player.rating - CENTRE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    opponents = [((r.opponent.rating - CENTRE) / SCALE, r.opponent.rd / SCALE, r.score) for r in results]
    # Step 3: the estimated variance v of the rating from the game outcomes alone.
    v_inverse = 0.0
    improvement = 0.0  # Σ g(φj)·(sj − E), shared by steps 4 and 7
    for mu_j, phi_j, score in opponents:
        expected = _expected(mu, mu_j, phi_j)
        v_inverse += _g(phi_j) ** 2 * expected * (1.0 - expected)
        improvement += _g(phi_j) * (score - expected)
    v = 1.0 / v_inverse
    # Step 4: the estimated improvement Δ.
    delta = v * improvement
    # Step 5: the new volatility σ'.
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)
    # Step 6: the pre-period deviation φ*.
    phi_star = math.sqrt(phi * phi + elapsed_periods * new_sigma * new_sigma)
    # Step 7: the new deviation φ' and rating μ'.
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # Step 8: back to the Glicko scale.
    return Rating(new_mu * SCALE + CENTRE, new_phi * SCALE, new_sigma)


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: σ' = exp(A/2), A the root of f found by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    # 5.2: the initial bracket [A, B].
    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
            if k > MAX_ITERATIONS:
                raise NoConvergence("step 5.2 found no bracket")
        big_b = a - k * tau
    # 5.3 and 5.4: narrow it until |B − A| ≤ ε.
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            return math.exp(big_a / 2.0)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    raise NoConvergence("step 5.4 did not converge")
