"""Tournaments of Atlas & Zeus: the same pairs, statistics and command as Aton's."""

from __future__ import annotations

import json

import pytest

from atlas_zeus.outcome import Termination
from atlas_zeus.players import BLUE, RED
from aton import players as aton_players
from bots.cli import main
from bots.game_result import GameResult
from bots.tournament import TournamentResult, run_tournament


def test_an_atlas_zeus_tournament_plays_pairs_and_is_reproducible():
    first = run_tournament("greedy:samples=1", "random", 4, seed=2, game="atlas-zeus")
    again = run_tournament("greedy:samples=1", "random", 4, seed=2, game="atlas-zeus")
    keys = ("games", "a_wins", "b_wins", "draws", "avg_rounds", "decisions", "reasons", "pentanomial", "score")
    assert {k: first.summary()[k] for k in keys} == {k: again.summary()[k] for k in keys}
    assert first.games == 4 and first.statistics.pairs == 2
    assert first.a_wins + first.b_wins + first.draws == 4
    assert set(first.reasons) <= {t.value for t in Termination}


def test_the_statistics_count_atlas_zeus_results_by_colour():
    """A result's winner is the game's own Player; A's colour in the tournament is Aton's: they
    compare by the colour's number."""
    result = TournamentResult("a", "b", 0)

    def game(winner):
        return GameResult(seed=0, winner=winner, termination=Termination.ELIMINATED if winner is not None
                          else Termination.BOTH_ELIMINATED, rounds=7, scores=(1, 0), decisions=(20, 22),
                          think_s=(0.1, 0.0), elapsed_s=0.2)

    result.add(game(RED), aton_players.RED, 0)  # A red wins
    result.add(game(RED), aton_players.BLUE, 1)  # A blue loses
    result.add(game(None), aton_players.RED, 2)  # a draw
    result.add(game(BLUE), aton_players.RED, 3)  # A red loses
    assert (result.a_wins, result.b_wins, result.draws) == (1, 2, 1)
    assert result.pair_points == [1.0, 0.5]
    assert result.reasons == {"eliminated": 3, "both_eliminated": 1}
    assert result.decisions == [20 + 22 + 20 + 20, 22 + 20 + 22 + 22]


def test_unknown_atlas_zeus_strategies_are_refused():
    with pytest.raises(ValueError, match="unknown Atlas & Zeus strategy 'mcts'"):
        run_tournament("mcts", "random", 2, game="atlas-zeus")
    with pytest.raises(ValueError, match="unknown game"):
        run_tournament("random", "random", 2, game="chess")


def test_cli_tournament_of_atlas_zeus_json(capsys):
    assert main(["tournament", "--game", "atlas-zeus", "greedy:samples=1", "random", "--games", "2",
                 "--seed", "3", "--json", "--sprt", "0,100"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and data["a_wins"] + data["b_wins"] + data["draws"] == 2
    for key in ("a_win_rate_ci95", "score", "score_ci95", "elo_ci95", "pentanomial", "decisions_per_s",
                "a_ms_per_decision", "b_ms_per_decision", "sprt"):
        assert key in data


def test_cli_tournament_of_atlas_zeus_text(capsys):
    assert main(["tournament", "--game", "atlas-zeus", "random", "random", "--games", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 games of atlas-zeus, seed 1" in out
    assert "A's score" in out and "Elo" in out and "decisions/s" in out and "endings:" in out


def test_cli_refuses_unknown_atlas_zeus_strategies_and_lists_them(capsys):
    assert main(["tournament", "--game", "atlas-zeus", "mcts", "random", "--games", "2"]) == 2
    assert "unknown Atlas & Zeus strategy" in capsys.readouterr().err
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "Atlas & Zeus strategies" in out and "greedy" in out
