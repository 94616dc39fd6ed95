"""How long a bot level takes to decide, decision by decision: what an inline level costs the
server's event loop (the levels that do not search answer there, ``GameKind.light_level``).

    python bench/bot_decisions.py [--levels easy,normal] [--games 60] [--seed 1]

Each level plays ``--games`` seeded games against ``greedy``; every one of its decisions is
timed (wall clock, ``time.perf_counter``) and the figures are printed per kind of decision
(a stone: a removal or a placement; the cards: a commitment or the exchange) and in all:
count, p50, p99, max.  Run it on a quiet machine.  Never part of the test run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.views import View
from bots.strategy import Strategy, make_strategy
from bots.tournament import derive_seed, play_game

T = TypeVar("T")


class Timed(Strategy):
    """A strategy whose every answer is timed, by kind: "stone" or "cards"."""

    def __init__(self, inner: Strategy) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.ms: dict[str, list[float]] = {"stone": [], "cards": []}

    def _timed(self, kind: str, decide: Callable[[View], T], view: View) -> T:
        start = time.perf_counter()
        answer = decide(view)
        self.ms[kind].append((time.perf_counter() - start) * 1000)
        return answer

    def exchange(self, view: View) -> bool:
        return self._timed("cards", self.inner.exchange, view)

    def commit(self, view: View) -> tuple[int, int, int, int]:
        return self._timed("cards", self.inner.commit, view)

    def remove(self, view: View) -> tuple[int, int]:
        return self._timed("stone", self.inner.remove, view)

    def place(self, view: View) -> tuple[int, int]:
        return self._timed("stone", self.inner.place, view)


def figures(values: list[float]) -> str:
    ordered = sorted(values)
    if not ordered:
        return "none"
    p50, p99 = ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{len(ordered):6,} decisions  p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  max {ordered[-1]:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="easy,normal", help="levels or strategy specs, comma-separated")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("$ python bench/bot_decisions.py " + " ".join(sys.argv[1:]))
    for level in args.levels.split(","):
        timed = [Timed(make_strategy(level, seed=derive_seed(args.seed, game, "timed"))) for game in range(args.games)]
        for game, bot in enumerate(timed):
            play_game(bot, make_strategy("greedy", seed=derive_seed(args.seed, game, "greedy")),
                      derive_seed(args.seed, game))
        print(f"{level} against greedy, {args.games} games:")
        for kind in ("stone", "cards"):
            print(f"  {kind:5}  {figures([ms for bot in timed for ms in bot.ms[kind]])}")
        print(f"  all    {figures([ms for bot in timed for values in bot.ms.values() for ms in values])}")


if __name__ == "__main__":
    main()
