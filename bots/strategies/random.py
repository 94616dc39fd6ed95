"""``random``: every decision uniform over its legal options (the baseline)."""

from __future__ import annotations

from aton.moves import commit_moves
from aton.views import View

from ..strategy import Strategy, decision_of, register


@register("random")
class RandomStrategy(Strategy):
    """Uniform over the legal moves.

    The exchange counts as one more move beside the distinct commits (so it is
    taken with probability 1 / (commits + 1)) unless ``exchange_rate`` is given.
    """

    def __init__(self, seed: int | None = None, exchange_rate: float | None = None) -> None:
        super().__init__(seed)
        self.exchange_rate = exchange_rate

    def exchange(self, view: View) -> bool:
        rate = self.exchange_rate
        if rate is None:
            rate = 1 / (len(commit_moves(decision_of(view).hand)) + 1)
        return self.rng.random() < rate

    def commit(self, view: View) -> tuple[int, int, int, int]:
        return self.rng.choice(commit_moves(decision_of(view).hand)).cards

    def remove(self, view: View) -> tuple[int, int]:
        return self.rng.choice(decision_of(view).squares)

    def place(self, view: View) -> tuple[int, int]:
        return self.rng.choice(decision_of(view).squares)
