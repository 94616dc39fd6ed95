"""Search speed: play-outs per second of the ``mcts`` bot, and greedy's time per decision.

    python bench/search.py [--positions N] [--iterations K] [--seed S]

Collects positions from a seeded greedy-against-greedy game, then searches each
commit and each removal/placement with a fixed number of play-outs (so the figure
does not depend on a time budget) and prints play-outs per second for both kinds of
decision, at the default depths.  Never part of the test run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.game import GameState
from aton.moves import Move
from aton.players import Player
from aton.views import View, view
from bots.strategies.mcts import MCTSStrategy
from bots.strategy import decision_of, make_strategy
from bots.tournament import play_game


def positions(seed: int, limit: int) -> tuple[list[View], list[View]]:
    views: list[View] = []

    def keep(state: GameState, player: Player, move: Move) -> None:
        if not state.is_over:
            for p in state.pending():
                views.append(view(state, p))

    play_game(make_strategy("greedy", seed=seed), make_strategy("greedy", seed=seed + 1), seed, on_move=keep)
    commits = [v for v in views if decision_of(v).kind == "commit"][:limit]
    squares = [v for v in views if decision_of(v).kind != "commit" and len(decision_of(v).squares) > 3][:limit]
    return commits, squares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    commits, squares = positions(args.seed, args.positions)
    print(f"$ python bench/search.py --positions {args.positions} --iterations {args.iterations} "
          f"--seed {args.seed}")
    for label, views, method in (("commit", commits, "_search_commit"),
                                 ("remove/place", squares, "_search_square")):
        bot = make_strategy("mcts", seed=1, iterations=args.iterations)
        assert isinstance(bot, MCTSStrategy)
        done = 0
        start = time.perf_counter()
        for v in views:
            bot._started = time.perf_counter()
            getattr(bot, method)(v)
            done += bot.last_iterations
        elapsed = time.perf_counter() - start
        print(f"mcts {label:12} {done / elapsed:8,.0f} play-outs/s  "
              f"({len(views)} positions, {done} play-outs, {elapsed:.2f} s)")
    greedy = make_strategy("greedy", seed=1)
    start = time.perf_counter()
    for v in commits:
        greedy.choose(v)
    elapsed = time.perf_counter() - start
    print(f"greedy commit {1000 * elapsed / len(commits):8.1f} ms per decision")


if __name__ == "__main__":
    main()
