"""Atlas & Zeus's engine on one core: random games, legal moves, and the views the server sends.

    python bench/zeus_playouts.py [N] [--seed S]

Each decision is uniform over its legal moves.  Prints games/s and moves/s, then the mean
time of ``legal_moves`` and of a view for each receiver (red, blue, a spectator, as the
arbiter builds them after every move) and of its ``to_dict``.  Never part of the test run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from atlas_zeus.game import GameState, new_game
from atlas_zeus.players import PLAYERS
from atlas_zeus.views import view


def random_game(seed: int, rng: random.Random) -> tuple[int, int, list[GameState]]:
    """One game of uniformly random moves: (moves played, rounds, a copy of the state every tenth move)."""
    state = new_game(seed)
    moves = 0
    samples = []
    while not state.is_over:
        player = state.pending()[0]
        legal = state.legal_moves(player)
        state.play(player, legal[int(rng.random() * len(legal))])
        moves += 1
        if moves % 10 == 0 and not state.is_over:
            samples.append(state.copy())
    return moves, state.round, samples


def mean_us(call: Callable[[GameState], object], states: list[GameState]) -> float:
    start = time.perf_counter()
    for state in states:
        call(state)
    return (time.perf_counter() - start) / len(states) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    samples: list[GameState] = []
    total_moves = total_rounds = 0
    start = time.perf_counter()
    for i in range(args.games):
        moves, rounds, taken = random_game(args.seed * 1_000_003 + i, rng)
        total_moves += moves
        total_rounds += rounds
        samples += taken
    elapsed = time.perf_counter() - start  # (the copies of every tenth state included)
    print(f"$ python bench/zeus_playouts.py {args.games} --seed {args.seed}")
    print(f"{args.games / elapsed:,.0f} games/s  {total_moves / elapsed:,.0f} moves/s  "
          f"({args.games} games, {total_moves / args.games:.1f} moves and "
          f"{total_rounds / args.games:.1f} rounds per game, {elapsed:.2f} s)")
    legal = mean_us(lambda s: s.legal_moves(s.pending()[0]), samples)
    views = mean_us(lambda s: [view(s, viewer) for viewer in (*PLAYERS, None)], samples)
    plain = mean_us(lambda s: [view(s, viewer).to_dict() for viewer in (*PLAYERS, None)], samples)
    print(f"over {len(samples):,} positions: legal_moves {legal:,.0f} µs; the three receivers' views "
          f"{views:,.0f} µs, with to_dict {plain:,.0f} µs")


if __name__ == "__main__":
    main()
