"""The commit as a matrix game: the search bot plays a mixed strategy there, reproducibly."""

from __future__ import annotations

from collections import Counter

import pytest

from aton.game import new_game
from aton.moves import EXCHANGE
from aton.players import RED
from aton.views import view
from bots.commit_game import FLOOR, CommitMix
from bots.strategies.mcts import MCTSStrategy, _without_exchange
from bots.strategy import make_strategy

EVALUATIONS = 3000


def round_one_commit():
    """Red's first commit of game 8: four different cards (1, 2, 3, 4), the exchange declined."""
    state, _ = new_game(8)
    assert sorted(state.hands[RED]) == [1, 2, 3, 4]
    return _without_exchange(view(state, RED))


def solved(seed: int) -> tuple[MCTSStrategy, CommitMix]:
    bot = make_strategy("mcts", seed=seed, commit_search="regret", iterations=EVALUATIONS)
    assert isinstance(bot, MCTSStrategy)
    bot.commit(round_one_commit())
    assert bot.last_mix is not None
    return bot, bot.last_mix


def test_a_fixed_position_gets_a_distribution_not_a_single_commitment():
    bot, mix = solved(seed=1)
    assert sum(mix.probabilities) == pytest.approx(1)
    assert mix.evaluations >= EVALUATIONS
    assert sum(p >= FLOOR for p in mix.probabilities) >= 2
    # the bot plays a draw from it, so the same position does not always get the same cards
    played = Counter(mix.draw(bot.rng) for _ in range(400))
    assert len(played) >= 2
    assert all(mix.probabilities[mix.moves.index(move)] >= FLOOR for move in played)


def test_the_distribution_is_reproducible_for_a_seed():
    _, first = solved(seed=1)
    _, again = solved(seed=1)
    assert (first.moves, first.probabilities) == (again.moves, again.probabilities)


def test_a_hand_worth_exchanging_is_exchanged():
    """Game 7 deals red 1, 1, 1, 3: the solver puts nearly all its weight on the exchange."""
    state, _ = new_game(7)
    assert sorted(state.hands[RED]) == [1, 1, 1, 3]
    bot = make_strategy("mcts", seed=1, commit_search="regret", iterations=EVALUATIONS)
    assert isinstance(bot, MCTSStrategy)
    assert bot.exchange(view(state, RED)) is True
    assert bot.last_mix is not None
    assert dict(zip(bot.last_mix.moves, bot.last_mix.probabilities, strict=True))[EXCHANGE] > 0.9


def test_rare_actions_are_left_out_when_drawing():
    import random

    mix = CommitMix(moves=("a", "b", "c"), probabilities=(0.6, 0.39, 0.01), iterations=1, evaluations=1)  # type: ignore[arg-type]
    rng = random.Random(0)
    assert {mix.draw(rng) for _ in range(300)} == {"a", "b"}


def test_an_unknown_commit_search_is_refused():
    with pytest.raises(ValueError, match="commit_search"):
        make_strategy("mcts", seed=1, commit_search="minimax")
