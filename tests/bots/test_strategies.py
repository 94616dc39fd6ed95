"""Built-in strategies: only legal answers over many seeded games, and reproducible games."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from aton import RED
from aton.moves import Commit, Exchange, Place, Remove
from aton.views import View, view
from bots.strategies.greedy import GreedyStrategy
from bots.strategies.mcts import MCTSStrategy, plan_arms, square_arms
from bots.strategies.random import RandomStrategy
from bots.strategy import IllegalChoice, Strategy, decision_of, make_strategy
from bots.tournament import derive_seed, play_game
from tests.aton.engine_helpers import committed, play

# small settings keep the suite fast; the strength runs are in docs/bots.md
FAST = {
    "random": {},
    "greedy": {"samples": 2},
    "mcts": {"iterations": 6},
}


class Checked(Strategy):
    """Wraps a strategy and checks every answer against the view's legal options
    independently of ``Strategy.choose``."""

    def __init__(self, inner: Strategy) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.answers = {"exchange": 0, "commit": 0, "remove": 0, "place": 0}

    def exchange(self, view: View) -> bool:
        decision = decision_of(view)
        assert decision.kind == "commit" and decision.can_exchange
        answer = self.inner.exchange(view)
        assert answer in (True, False)
        self.answers["exchange"] += 1
        return answer

    def commit(self, view: View):
        answer = self.inner.commit(view)
        assert isinstance(answer, tuple) and len(answer) == 4
        assert answer in set(permutations(decision_of(view).hand))
        self.answers["commit"] += 1
        return answer

    def remove(self, view: View):
        answer = self.inner.remove(view)
        assert tuple(answer) in decision_of(view).squares
        self.answers["remove"] += 1
        return answer

    def place(self, view: View):
        answer = self.inner.place(view)
        assert tuple(answer) in decision_of(view).squares
        self.answers["place"] += 1
        return answer


def _play(name_red: str, name_blue: str, game: int, seed: int = 1):
    red = Checked(make_strategy(name_red, seed=derive_seed(seed, game, "r"), **FAST[name_red]))
    blue = Checked(make_strategy(name_blue, seed=derive_seed(seed, game, "b"), **FAST[name_blue]))
    moves: list = []
    result = play_game(red, blue, derive_seed("legal", seed, game),
                       on_move=lambda state, p, move: moves.append((p, move)))
    return result, moves, red, blue


@pytest.mark.parametrize("name,opponent,games", [
    ("random", "random", 300),
    ("greedy", "random", 120),
    ("greedy", "greedy", 60),
    ("mcts", "random", 30),
    ("mcts", "greedy", 20),
])
def test_only_legal_answers_over_many_games(name, opponent, games):
    totals = {"exchange": 0, "commit": 0, "remove": 0, "place": 0}
    for game in range(games):
        result, moves, red, blue = _play(name, opponent, game)
        assert not result.termination.is_forfeit  # the rules ended the game
        for bot in (red, blue):
            if bot.name == name:
                for k, v in bot.answers.items():
                    totals[k] += v
        kinds = {type(m) for _, m in moves}
        assert kinds <= {Commit, Exchange, Place, Remove}
    # every kind of decision was exercised
    assert totals["commit"] and totals["place"] and totals["remove"]


class CountedRandom(RandomStrategy):
    """A greedy bot's random stand-in (``GreedyStrategy._random``) that counts its answers."""

    def __init__(self, greedy: GreedyStrategy) -> None:
        super().__init__()
        self.rng = greedy.rng
        self.answers = 0

    def exchange(self, view: View) -> bool:
        self.answers += 1
        return super().exchange(view)

    def commit(self, view: View) -> tuple[int, int, int, int]:
        self.answers += 1
        return super().commit(view)

    def remove(self, view: View) -> tuple[int, int]:
        self.answers += 1
        return super().remove(view)

    def place(self, view: View) -> tuple[int, int]:
        self.answers += 1
        return super().place(view)


@pytest.mark.parametrize("slips", [0.0, 0.3, 1.0])
def test_a_greedy_bot_slips_on_its_share_of_the_decisions(slips):
    decisions = slipped = 0
    for game in range(8):
        greedy = make_strategy("greedy", seed=derive_seed(2, game), samples=2, slips=slips)
        assert isinstance(greedy, GreedyStrategy)
        greedy._random = counted = CountedRandom(greedy)
        red = Checked(greedy)
        play_game(red, make_strategy("random", seed=game), derive_seed("slips", game))
        decisions += sum(red.answers.values())
        slipped += counted.answers
    assert decisions > 200
    if slips in (0.0, 1.0):
        assert slipped == slips * decisions
    else:
        assert abs(slipped / decisions - slips) < 0.06  # seeded: the same share on every run


def test_slips_are_a_share():
    with pytest.raises(ValueError, match="share"):
        make_strategy("greedy", slips=1.5)


@pytest.mark.parametrize("name", ["random", "greedy", "mcts"])
def test_seeded_games_are_reproducible(name):
    first = _play(name, name, 3, seed=9)
    second = _play(name, name, 3, seed=9)
    assert first[1] == second[1]
    assert first[0].winner == second[0].winner and first[0].scores == second[0].scores
    other = _play(name, name, 3, seed=10)
    assert other[1] != first[1]


def test_choose_rejects_illegal_answers():
    class Cheat(Strategy):
        def commit(self, view):
            return (4, 4, 4, 4)

    from aton.game import new_game
    from aton.views import view

    state, _ = new_game(1)
    v = view(state, RED)
    assert sorted(decision_of(v).hand) != [4, 4, 4, 4], "seed 1 deals a hand that four 4s are not"
    with pytest.raises(IllegalChoice):
        Cheat().choose(v)


def test_mcts_stops_at_the_first_reading_of_its_clock_past_its_budget():
    from aton.game import new_game
    from aton.views import view

    readings: list[float] = []

    def clock() -> float:  # every reading is one millisecond after the one before
        readings.append(len(readings) / 1000)
        return readings[-1]

    bot = make_strategy("mcts", seed=1, budget_ms=50, clock=clock)
    assert isinstance(bot, MCTSStrategy)
    state, _ = new_game(3)
    bot.choose(view(state, RED))
    budget = 0.050 * 0.97  # the search keeps 3% of its budget for answering
    assert readings[-1] >= budget > readings[-2]
    assert bot.last_iterations >= len(readings) - 1  # each reading after the first follows a round of work


def test_the_turn_plan_searches_each_stone_with_the_heuristics_best_next_stones():
    """plan=2: every class of legal squares for the stone at hand, each followed by the best
    classes for the turn's next stone; the last stone of a turn has no follower."""
    state, _ = committed((1, 2, 2, 2), (2, 4, 1, 1), blue_stones=[(1, 0), (2, 5)])  # red places 2
    v = view(state, RED)
    flat = square_arms(v, random.Random(1))
    plans = plan_arms(v, random.Random(1), width=3)
    assert set(plans.masks) == set(flat.masks)
    assert all(1 <= plans.masks.count(mask) <= 3 for mask in flat.masks)
    assert len(plans.moves) > len(flat.moves)
    totals = [0.0] * len(plans.moves)
    plans.evaluate(list(range(len(plans.moves))), totals)  # each plan plays legally on a sample
    assert all(0.0 <= t <= 1.0 for t in totals)
    play(state, (RED, Place(1, 1)))  # the last stone of red's turn: one arm per class
    last = plan_arms(view(state, RED), random.Random(1), width=3)
    assert sorted(last.masks) == sorted(square_arms(view(state, RED), random.Random(1)).masks)


def test_the_turn_plan_plays_legal_reproducible_games():
    def game(seed: int):
        bot = Checked(make_strategy("mcts", seed=seed, iterations=30, plan=2))
        moves: list = []
        play_game(bot, make_strategy("greedy", seed=seed, samples=2), derive_seed("plan", seed),
                  on_move=lambda state, p, move: moves.append((p, move)))
        return moves, bot.answers

    for seed in range(3):
        moves, answers = game(seed)
        assert answers["place"] and game(seed)[0] == moves
    with pytest.raises(ValueError, match="plan must be"):
        make_strategy("mcts", plan=3)
