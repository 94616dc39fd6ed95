"""Random playouts: how many complete games per second the engine plays on one core.

    python bench/playouts.py [N] [--seed S]

Each decision is uniform over its legal moves (resignation excluded); in the commit
phase red decides first, then blue.  Prints games/s and moves/s.  Never part of the
test run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.game import new_game


def random_game(seed: int, rng: random.Random) -> tuple[int, int]:
    """Play one game with uniformly random moves; returns (moves played, rounds)."""
    state, _ = new_game(seed)
    moves = 0
    rand = rng.random
    while not state.is_over:
        player = state.pending()[0]
        legal = state.legal_moves(player, resign=False)
        state.play(player, legal[int(rand() * len(legal))])
        moves += 1
    return moves, state.round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    total_moves = total_rounds = 0
    for i in range(args.games):
        moves, rounds = random_game(args.seed * 1_000_003 + i, rng)
        total_moves += moves
        total_rounds += rounds
    elapsed = time.perf_counter() - start
    print(f"$ python bench/playouts.py {args.games} --seed {args.seed}")
    print(f"{args.games / elapsed:,.0f} games/s  {total_moves / elapsed:,.0f} moves/s  "
          f"({args.games} games, {total_moves / args.games:.1f} moves and "
          f"{total_rounds / args.games:.1f} rounds per game, {elapsed:.2f} s)")


if __name__ == "__main__":
    main()
