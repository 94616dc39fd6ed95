"""``random``: every decision uniform over its legal moves (the baseline)."""

from __future__ import annotations

from atlas_zeus.moves import Move
from atlas_zeus.views import View

from .determinize import legal_moves
from .strategy import Strategy


class RandomStrategy(Strategy):
    """Uniform over the legal moves of each decision (every distinct programming, every
    distinct Transfer), reproducible for a seed."""

    name = "random"

    def choose(self, view: View) -> Move:
        return self.rng.choice(legal_moves(view, self.rng))
