"""The statistics of a match between two bots, counted by pairs of games.

A tournament plays its games in pairs: both games of a pair are dealt the same decks, with
the colours swapped.  The luck of the deal is shared within a pair, so the pair — not the
game — is the independent sample: its score for A is 0, ½, 1, 1½ or 2 points (a draw
counts half a point).  The five counts are the *pentanomial* of the match, as chess engine
testing (fishtest) counts game pairs.

From the pairs:

- the **score**: A's points over the games played in complete pairs, with a 95% interval
  from the spread of the pair scores (normal approximation);
- the **Elo difference** that score means under the logistic model,
  ``elo = -400 · log10(1/score - 1)``, with the interval's ends turned into Elo the same way;
- an optional **sequential probability ratio test** (SPRT) of H0 "A is ``elo0`` stronger"
  against H1 "A is ``elo1`` stronger", with error rates α and β: the generalised SPRT of
  the pair scores (the log-likelihood ratio of two normal distributions with the sample's
  variance), stopping once the ratio leaves ``[log(β/(1-α)), log((1-β)/α)]``.

The spread (of the interval and the test) is taken over the pairs plus one imagined pair
spread evenly over the five outcomes, so that a few pairs that all ended alike — no spread at
all — give a wide interval rather than none, and cannot decide the test on their own.

Pure arithmetic: no games are played here (``bots.tournament`` plays them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["MatchStatistics", "Sprt", "SprtVerdict", "elo_from_score", "format_elo", "score_from_elo"]

Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
"""A's points in a pair of games, the pentanomial's five outcomes."""

PRIOR_PAIRS = 1.0
"""The imagined pair, spread evenly over the five outcomes, added to the counts for the spread."""


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic model)."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_from_score(score: float) -> float:
    """The Elo difference a score means: minus infinity for 0, plus infinity for 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


class SprtVerdict(StrEnum):
    H0 = "H0"  # A is not elo1 stronger: accepted
    H1 = "H1"  # A is at least elo1 stronger: accepted
    OPEN = "continue"  # not decided yet


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0 (Elo difference ``elo0``) against H1 (``elo1``)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"the SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("the SPRT's error rates must lie between 0 and 1")

    @property
    def bounds(self) -> tuple[float, float]:
        """The log-likelihood ratios at which H0 (lower) or H1 (upper) is accepted."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def log_likelihood_ratio(self, pairs: float, mean: float, variance: float) -> float:
        """The ratio after ``pairs`` pairs whose scores (0 … 1 a pair) have this mean and variance."""
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return pairs * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def verdict(self, llr: float) -> SprtVerdict:
        lower, upper = self.bounds
        if llr <= lower:
            return SprtVerdict.H0
        if llr >= upper:
            return SprtVerdict.H1
        return SprtVerdict.OPEN


@dataclass
class MatchStatistics:
    """A's results counted by pairs: ``pentanomial[k]`` pairs gave A ``PAIR_POINTS[k]`` points."""

    pentanomial: Sequence[float]

    @classmethod
    def from_pair_points(cls, points: Iterable[float]) -> MatchStatistics:
        counts = [0] * len(PAIR_POINTS)
        for p in points:
            counts[PAIR_POINTS.index(p)] += 1
        return cls(counts)

    @property
    def pairs(self) -> float:
        return sum(self.pentanomial)

    @property
    def score(self) -> float:
        """A's mean score a game (draws half a point), over the complete pairs."""
        return self._mean() if self.pairs else 0.5

    def _mean(self) -> float:
        return sum(n * p / 2 for n, p in zip(self.pentanomial, PAIR_POINTS, strict=True)) / self.pairs

    def _variance(self) -> float:
        """The variance of one pair's score (0 … 1)."""
        mean = self._mean()
        return sum(n * (p / 2 - mean) ** 2 for n, p in zip(self.pentanomial, PAIR_POINTS, strict=True)) / self.pairs

    def score_interval(self) -> tuple[float, float]:
        """The 95% interval of the score (clipped to 0 … 1)."""
        if self.pairs == 0:
            return 0.0, 1.0
        half = Z_95 * math.sqrt(self._with_prior()._variance() / self.pairs)
        return max(0.0, self.score - half), min(1.0, self.score + half)

    @property
    def elo(self) -> float:
        return elo_from_score(self.score)

    def elo_interval(self) -> tuple[float, float]:
        """The 95% interval of the Elo difference (an end may be infinite)."""
        low, high = self.score_interval()
        return elo_from_score(low), elo_from_score(high)

    def llr(self, test: Sprt) -> float:
        """The test's log-likelihood ratio, over the pairs and the imagined one."""
        if not self.pairs:
            return 0.0
        counted = self._with_prior()
        return test.log_likelihood_ratio(counted.pairs, counted._mean(), counted._variance())

    def _with_prior(self) -> MatchStatistics:
        prior = PRIOR_PAIRS / len(PAIR_POINTS)
        return MatchStatistics([n + prior for n in self.pentanomial])

    def summary(self, test: Sprt | None = None) -> dict:
        """The figures as a JSON-ready dict: Elo rounded to 0.1 (``null`` where infinite: the
        score, 0 or 1, tells which way), scores to 0.0001."""
        low, high = self.score_interval()
        elo_low, elo_high = self.elo_interval()
        figures: dict = {
            "pairs": self.pairs,
            "pentanomial": list(self.pentanomial),
            "score": round(self.score, 4),
            "score_ci95": [round(low, 4), round(high, 4)],
            "elo": _rounded(self.elo),
            "elo_ci95": [_rounded(elo_low), _rounded(elo_high)],
        }
        if test is not None:
            llr = self.llr(test)
            lower, upper = test.bounds
            figures["sprt"] = {
                "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
                "llr": round(llr, 3), "bounds": [round(lower, 3), round(upper, 3)],
                "verdict": str(test.verdict(llr)),
            }
        return figures


def _rounded(elo: float) -> float | None:
    return round(elo, 1) if math.isfinite(elo) else None


def format_elo(elo: float) -> str:
    """An Elo difference for people: signed and whole, ``-∞``/``+∞`` at the ends of the scale."""
    if math.isinf(elo):
        return "+∞" if elo > 0 else "-∞"
    return f"{elo:+.0f}"
