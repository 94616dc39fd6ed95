"""A match's statistics: pairs on the same decks, draws as half a point, Elo with its interval
and the sequential test that stops a match once the answer is clear."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aton.outcome import Termination
from aton.players import BLUE, RED
from bots.cli import main
from bots.match_statistics import MatchStatistics, Sprt, SprtVerdict, elo_from_score, score_from_elo
from bots.tournament import GameResult, TournamentResult, run_tournament

pentanomials = st.lists(st.integers(0, 40), min_size=5, max_size=5).filter(lambda counts: sum(counts) > 0)


def game(winner):
    return GameResult(seed=0, winner=winner, termination=Termination.SCORING, rounds=8,
                      scores=(20, 18), decisions=(30, 30), think_s=(0.0, 0.0), elapsed_s=0.0)


def test_the_logistic_model_at_known_points():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)  # 400·log10(3)
    assert elo_from_score(1 / 11) == pytest.approx(-400)
    assert elo_from_score(0) == -math.inf and elo_from_score(1) == math.inf
    assert score_from_elo(400) == pytest.approx(10 / 11)


@given(st.floats(-1500, 1500))
def test_score_and_elo_are_inverse(elo):
    assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-6)


def test_games_on_the_same_decks_are_counted_as_a_pair_and_a_draw_as_half_a_point():
    result = TournamentResult(a="A", b="B", seed=0)
    result.add(game(RED), RED, 0)      # pair 0: A won as red …
    result.add(game(None), BLUE, 1)    # … and drew as blue: 1½
    result.add(game(RED), BLUE, 3)     # pair 1 arrives out of order: A lost as blue …
    assert result.pair_points == [1.5]  # … and the pair is not complete yet
    result.add(game(BLUE), RED, 2)     # … and lost as red: 0
    assert result.pair_points == [1.5, 0.0]
    statistics = result.statistics
    assert statistics.pentanomial == [1, 0, 0, 1, 0]
    assert statistics.score == pytest.approx(1.5 / 4)
    summary = result.summary()
    assert summary["pairs"] == 2 and summary["pentanomial"] == [1, 0, 0, 1, 0]
    assert summary["score"] == 0.375 and summary["draws"] == 1


@given(pentanomials)
def test_the_interval_holds_the_estimate_and_narrows_with_four_times_the_pairs(counts):
    statistics = MatchStatistics(counts)
    low, high = statistics.score_interval()
    assert low <= statistics.score <= high
    elo_low, elo_high = statistics.elo_interval()
    assert elo_low <= statistics.elo <= elo_high
    more = MatchStatistics([4 * n for n in counts])
    more_low, more_high = more.score_interval()
    assert more.score == pytest.approx(statistics.score)
    assert more_high - more_low <= high - low + 1e-12


def test_an_even_match_has_an_interval_symmetric_about_zero_elo():
    elo_low, elo_high = MatchStatistics([5, 10, 20, 10, 5]).elo_interval()
    assert elo_low == pytest.approx(-elo_high)
    assert -60 < elo_low < 0


def test_a_few_pairs_that_all_ended_alike_still_get_a_wide_interval():
    statistics = MatchStatistics([0, 0, 0, 0, 4])
    assert statistics.elo == math.inf
    low, high = statistics.score_interval()
    assert high == 1.0 and low < 0.8
    assert MatchStatistics([0, 0, 0, 0, 4]).summary()["elo"] is None  # JSON has no infinity


def test_the_sprt_bounds_follow_the_error_rates():
    lower, upper = Sprt(0, 50).bounds
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    lower, upper = Sprt(0, 50, alpha=0.01, beta=0.1).bounds
    assert lower == pytest.approx(math.log(0.1 / 0.99)) and upper == pytest.approx(math.log(0.9 / 0.01))
    with pytest.raises(ValueError):
        Sprt(50, 0)
    with pytest.raises(ValueError):
        Sprt(0, 50, alpha=0)


def test_the_sprt_decides_each_way_and_waits_while_unclear():
    test = Sprt(0, 50)
    clearly_stronger = MatchStatistics([5, 10, 30, 30, 25])  # a score of 64%, +100 Elo
    even = MatchStatistics([20, 40, 80, 40, 20])
    few = MatchStatistics([0, 0, 0, 0, 2])
    assert test.verdict(clearly_stronger.llr(test)) is SprtVerdict.H1
    assert test.verdict(even.llr(test)) is SprtVerdict.H0
    assert test.verdict(few.llr(test)) is SprtVerdict.OPEN  # two won pairs are not an answer
    assert MatchStatistics([0, 0, 0, 0, 0]).llr(test) == 0


@given(pentanomials, st.floats(1, 200))
def test_the_ratio_of_a_symmetric_test_turns_sign_when_the_colours_of_the_result_do(counts, elo):
    """Swapping A and B (the pentanomial read backwards) turns the evidence for +elo into the
    same evidence for -elo."""
    test = Sprt(-elo, elo)
    forward = MatchStatistics(counts).llr(test)
    backward = MatchStatistics(counts[::-1]).llr(test)
    assert backward == pytest.approx(-forward, abs=1e-9)
    assert (forward > 0) == (MatchStatistics(counts).score > 0.5) or forward == pytest.approx(0, abs=1e-9)


def test_a_tournament_stops_once_the_sprt_decides_and_is_reproducible():
    first = run_tournament("greedy:samples=2", "random", 400, seed=3, sprt=Sprt(0, 100))
    again = run_tournament("greedy:samples=2", "random", 400, seed=3, sprt=Sprt(0, 100))
    assert first.games < 400 and first.games % 2 == 0
    assert first.summary()["sprt"]["verdict"] == "H1"
    assert (first.games, first.pair_points) == (again.games, again.pair_points)


def test_the_command_line_reports_pairs_elo_and_the_sprt(capsys):
    assert main(["tournament", "greedy:samples=2", "random", "--games", "400", "--seed", "3",
                 "--sprt", "0,100", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] * 2 == data["games"] < 400
    assert sum(data["pentanomial"]) == data["pairs"]
    assert data["sprt"]["verdict"] == "H1" and data["sprt"]["bounds"] == [-2.944, 2.944]
    assert data["elo"] is None or data["elo"] > 100
    assert main(["tournament", "random", "random", "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "pairs on the same decks (10)" in out and "Elo " in out and "95% CI" in out


@pytest.mark.parametrize("argv, message", [
    (["--games", "3"], "--games must be even"),
    (["--sprt", "50,0"], "elo0 < elo1"),
    (["--sprt", "0,50", "--alpha", "1.5"], "error rates"),
])
def test_the_command_line_refuses_what_cannot_be_counted(capsys, argv, message):
    assert main(["tournament", "random", "random", *argv]) == 2
    assert message in capsys.readouterr().err
