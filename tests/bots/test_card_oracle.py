"""The card oracle of ``bench/card_oracle.py``: its searches see the true state, never the opponent's choice."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from aton.game import COMMIT, GameState
from aton.moves import Move
from aton.players import BLUE, RED
from aton.sampling import Sampler
from aton.views import View, view
from bots.strategies import mcts
from bots.strategy import STRATEGIES, make_strategy

BENCH = Path(__file__).resolve().parents[2] / "bench" / "card_oracle.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("card_oracle", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["card_oracle"] = module
    spec.loader.exec_module(module)
    return module


def test_the_oracle_searches_the_true_state_and_is_gone_after_its_block() -> None:
    bench = load_bench()
    seen: list[tuple[View, GameState]] = []

    class Watched(bench.Oracle):  # type: ignore[name-defined]
        def choose(self, v: View) -> Move:
            assert v.viewer is not None
            seen.append((v, bench._TrueState(v.viewer).sample(random.Random(0))))
            return super().choose(v)

    with bench.oracle_playing():
        oracle = make_strategy("oracle", seed=1, iterations=24)
        assert isinstance(oracle, bench.Oracle)
        result = bench.bots.tournament.play_game(Watched(seed=1, iterations=24), make_strategy("random", seed=2), 7)
    assert result.decisions[RED] == len(seen) > 10
    for v, truth in seen:
        assert v.viewer is not None
        assert view(truth, v.viewer) == v  # the game as it was when the oracle was asked
        if v.decision is not None and v.decision.kind == "commit":
            assert truth.hands[BLUE] != ()  # the opponent's hand, which the view hides
    assert "oracle" not in STRATEGIES and mcts.Sampler is Sampler  # nothing left behind


def test_an_opponent_who_committed_first_has_its_cards_back_in_hand() -> None:
    bench = load_bench()
    state, _ = bench.new_game(3)
    blue_hand = state.hands[BLUE]
    state.play(BLUE, state.legal_moves(BLUE, resign=False)[0])  # blue commits before red is asked
    assert state.phase is COMMIT and state.cartouches[BLUE] is not None
    bench._truth[:] = [state]
    sample = bench._TrueState(RED).sample(random.Random(0))
    assert sample.cartouches[BLUE] is None
    assert sorted(sample.hands[BLUE]) == sorted(blue_hand)
    assert sample.hands[RED] == state.hands[RED]
    assert state.cartouches[BLUE] is not None  # the game itself untouched


def test_the_opponent_sees_samples_not_the_truth() -> None:
    bench = load_bench()
    with bench.oracle_playing():
        state, _ = bench.new_game(5)
        bench._truth[:] = [state]
        sampler = mcts.Sampler(view(state, BLUE))
    assert isinstance(sampler, Sampler)
