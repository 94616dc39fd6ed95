"""The SDK: registry and levels, what a strategy is given (views only), tournaments and the CLI."""

from __future__ import annotations

import gc
import json
import time
from dataclasses import fields, is_dataclass
from enum import Enum

import pytest

from aton import BLUE, RED
from aton.events import CardsDrawn, Event
from aton.game import GameState
from aton.views import PlayerView, View
from bots.cli import main
from bots.strategies.greedy import GreedyStrategy
from bots.strategies.mcts import MCTSStrategy
from bots.strategy import LEVELS, Strategy, available, make_level, make_strategy, parse_spec, register
from bots.tournament import play_game, run_tournament, wilson

# ---------------------------------------------------------------------- registry


def test_registry_knows_the_builtins_and_the_levels():
    names = available()
    for name in ("random", "greedy", "mcts", "easy", "normal", "hard"):
        assert name in names
    assert make_strategy("random", seed=1).name == "random"
    hard, faster = make_level("hard", seed=1), make_strategy("hard", seed=1, budget_ms=50)
    assert isinstance(hard, MCTSStrategy) and isinstance(faster, MCTSStrategy)
    assert hard.budget_ms == LEVELS["hard"][1]["budget_ms"] and hard.plan == LEVELS["hard"][1]["plan"]
    assert faster.budget_ms == 50 and faster.plan == hard.plan  # one option overridden, the others kept
    easy, normal = make_level("easy"), make_level("normal")
    assert isinstance(easy, GreedyStrategy) and isinstance(normal, GreedyStrategy)
    assert easy.slips > 0 and normal.slips == 0


def test_unknown_names_and_options_are_refused():
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("nonesuch")
    with pytest.raises(TypeError):
        make_strategy("random", depth=3)
    with pytest.raises(ValueError):
        make_level("impossible")


def test_parse_spec():
    assert parse_spec("mcts") == ("mcts", {})
    assert parse_spec("mcts:budget_ms=100, depth=2,opp_noise=1.5") == (
        "mcts", {"budget_ms": 100, "depth": 2, "opp_noise": 1.5})
    assert parse_spec("x:flag=true,name=abc") == ("x", {"flag": True, "name": "abc"})
    with pytest.raises(ValueError):
        parse_spec("mcts:budget_ms")


class FirstSquare(Strategy):
    """Its hand as dealt, the first legal square."""

    def commit(self, view):
        return tuple(view.decision.hand)

    def remove(self, view):
        return view.decision.squares[0]

    def place(self, view):
        return view.decision.squares[0]


def test_a_registered_strategy_can_be_named():
    register("test-first-square")(FirstSquare)
    bot = make_strategy("test-first-square", seed=3)
    result = play_game(bot, make_strategy("random", seed=4), 12)
    assert result.winner in (RED, BLUE, None)


# ---------------------------------------------------------------------- no hidden state


def _reachable(root, limit: int = 20000):
    """Every object reachable from ``root`` through containers, dataclass fields and
    ``gc`` referents (what a bot could dig out of what it was handed)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or (callable(obj) and not is_dataclass(obj)):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, Enum):
            continue  # a member (Player.RED, Phase.COMMIT) is a constant of its module, shared by every game
        if is_dataclass(obj):
            stack.extend(getattr(obj, f.name) for f in fields(obj))
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        stack.extend(r for r in gc.get_referents(obj) if not isinstance(r, type))
    return list(seen.values())


class Snoop(Strategy):
    """Tries to find hidden information in everything it is given."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.given: list = []
        self.events: list = []

    def _look(self, view):
        assert type(view) is View
        self.given.append(view)
        return view

    def exchange(self, view):
        self._look(view)
        return False

    def commit(self, view):
        return tuple(self._look(view).decision.hand)

    def remove(self, view):
        return self._look(view).decision.squares[0]

    def place(self, view):
        return self._look(view).decision.squares[-1]

    def on_events(self, events):
        self.events.extend(events)


def test_a_strategy_cannot_reach_the_game_state_or_the_opponents_cards():
    snoop = Snoop(seed=1)
    states: list[GameState] = []
    result = play_game(snoop, make_strategy("greedy", seed=2, samples=2), 21,
                       on_move=lambda state, p, move: states.append(state))
    assert snoop.given and snoop.events and result.rounds > 1
    for v in snoop.given[::5]:
        objects = _reachable(v)
        assert not any(isinstance(o, GameState) for o in objects)
        # the opponent's hand is never in the view, nor the order of any deck
        assert v.blue.hand is None and v.red.hand is not None
        assert all(isinstance(o, (str, int, float, bool, tuple, type(None), View, PlayerView))
                   or is_dataclass(o) for o in objects)
        # a view is plain data: it survives the wire form unchanged
        assert View.from_dict(v.to_dict()) == v
        # the opponent's face-down cartouches stay hidden
        if v.blue.committed and v.phase == "commit":
            assert v.blue.cartouches == (None, None, None, None)
    for event in snoop.events:
        assert isinstance(event, Event)  # the engine's own, as the player may see them
        if isinstance(event, CardsDrawn) and event.player is BLUE:
            assert event.cards is None
        assert all(isinstance(o, (str, int, tuple, type(None), Event)) for o in _reachable(event))
    assert not any(isinstance(o, GameState) for o in _reachable(snoop.events))
    # nothing the strategy kept refers to the engine's state either
    assert not any(isinstance(o, GameState) for o in _reachable(snoop.__dict__))


def test_the_search_bot_sees_only_views():
    seen_types: set = set()
    bot = make_strategy("mcts", seed=5, iterations=4)
    for name in ("exchange", "commit", "remove", "place"):
        method = getattr(bot, name)

        def spy(view, _method=method):
            seen_types.add(type(view))
            return _method(view)

        setattr(bot, name, spy)
    play_game(bot, make_strategy("random", seed=6), 4)
    assert seen_types == {View}


# ---------------------------------------------------------------------- tournaments


def test_wilson_interval():
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.84 and 0.94 < high < 0.96
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0


def test_tournament_alternates_colours_and_is_reproducible():
    first = run_tournament("greedy:samples=2", "random", 6, seed=4)
    again = run_tournament("greedy:samples=2", "random", 6, seed=4)
    assert first.summary()["a_wins"] == again.summary()["a_wins"]
    assert first.rounds == again.rounds
    assert first.games == 6 and first.a_wins + first.b_wins + first.draws == 6
    assert first.a_wins >= 5


def test_cli_tournament_json(capsys):
    assert main(["tournament", "random", "greedy:samples=2", "--games", "4", "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("games", "a_wins", "b_wins", "draws", "a_win_rate", "a_win_rate_ci95",
                "avg_rounds", "decisions_per_s"):
        assert key in data
    assert data["games"] == 4 and data["a_wins"] + data["b_wins"] + data["draws"] == 4


def test_cli_tournament_text_and_budget(capsys):
    assert main(["tournament", "mcts", "random", "--games", "2", "--budget-ms", "5"]) == 0
    out = capsys.readouterr().out
    assert "A win rate" in out and "95% CI" in out and "decisions/s" in out and "rounds per game" in out


def test_cpu_time_counts_the_budgets_and_the_thinking_on_the_process_clock(capsys):
    """With --cpu-time a strategy with a clock gets the process's CPU clock (a loaded machine does
    not shorten its searches), and the time per decision is said to be CPU time."""
    clocks: list[object] = []

    @register("test-clock-probe")
    class ClockProbe(FirstSquare):
        def __init__(self, seed=None, clock=time.perf_counter):
            super().__init__(seed)
            clocks.append(clock)

    run_tournament("test-clock-probe", "random", 2, seed=1, cpu_time=True)
    assert clocks[-2:] == [time.process_time] * 2
    run_tournament("test-clock-probe", "random", 2, seed=1)
    assert clocks[-2:] == [time.perf_counter] * 2
    assert main(["tournament", "mcts:budget_ms=5", "random", "--games", "2", "--cpu-time"]) == 0
    assert "ms per decision of CPU time" in capsys.readouterr().out


def test_cli_errors(capsys):
    assert main(["tournament", "nonesuch", "random", "--games", "2"]) == 2
    assert "unknown strategy" in capsys.readouterr().err
    assert main(["list"]) == 0
    assert "mcts" in capsys.readouterr().out


def test_a_negative_number_of_games_on_a_server_is_refused(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--server", "127.0.0.1:1", "--games", "-1"])
    assert exited.value.code == 2
    assert "--games must be 1 or more, or 0 to play until stopped" in capsys.readouterr().err
