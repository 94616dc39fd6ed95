"""What the views of one move cost the arbiter: both players' views, built as the server sends them.

    python bench/views.py [--games N] [--rounds R]

N games (default 300) are played to different points with random legal moves; then, R times
over (default 20), every game in turn has both players' views built in plain form
(``AtonGame.views``; in a tree from before it, ``AtonGame.view`` once per player), round robin
as on a busy server, so that caches miss as they would there.  Printed: the CPU time
(``time.process_time``) per move's two views, the best of 5 runs.

Never part of the test run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.players import BLUE, RED
from server.games import AtonGame

SEATS = (RED, BLUE)


def games_in_play(count: int) -> list[AtonGame]:
    """Up to ``count`` games stopped after 5 to 80 turns of random legal moves (those not over)."""
    games = []
    for seed in range(count):
        game, rng = AtonGame(seed), random.Random(seed)
        for _ in range(rng.randrange(5, 80)):
            if game.is_over:
                break
            for seat in game.pending():
                game.play(seat, rng.choice(game.state.legal_moves(seat, resign=False)))
        if not game.is_over:
            games.append(game)
    return games


def microseconds_per_move(games: list[AtonGame], rounds: int) -> float:
    together = hasattr(AtonGame, "views")
    start = time.process_time()
    for _ in range(rounds):
        for game in games:
            if together:
                game.views(SEATS)
            else:
                for seat in SEATS:
                    game.view(seat)
    return (time.process_time() - start) / (rounds * len(games)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games in play (default 300)")
    parser.add_argument("--rounds", type=int, default=20, help="times every game's views are built (default 20)")
    args = parser.parse_args()
    games = games_in_play(args.games)
    best = min(microseconds_per_move(games, args.rounds) for _ in range(5))
    print(f"{len(games)} games in play: {best:.1f} µs of CPU per move's two views (best of 5)")


if __name__ == "__main__":
    main()
