"""Bots for Atlas & Zeus: ``strategy_named(name, seed)`` for the names in ``STRATEGY_NAMES``.

A strategy's ``choose(view)`` answers the decision in an ``atlas_zeus.views.View`` with a
move, from the view alone.  ``random`` plays uniformly among the legal moves; ``greedy``
looks one ply ahead (see ``bots.atlas_zeus.greedy``).  The in-process tournament, the
server's hosted bots and the network bot all call ``strategy_named``.
"""

from __future__ import annotations

from typing import Any

from .greedy import GreedyStrategy
from .random import RandomStrategy
from .strategy import Strategy

__all__ = ["STRATEGY_NAMES", "Strategy", "strategy_named"]

_STRATEGIES: dict[str, type[Strategy]] = {cls.name: cls for cls in (RandomStrategy, GreedyStrategy)}
#: The strategies ``strategy_named`` knows.
STRATEGY_NAMES: tuple[str, ...] = tuple(_STRATEGIES)


def strategy_named(name: str, seed: int | None, **options: Any) -> Strategy:
    """A fresh strategy by name, seeded (None: from the system's randomness); ``options`` are
    the strategy's own (``greedy``: ``samples``).  ValueError for an unknown name, TypeError
    for an unknown option."""
    cls = _STRATEGIES.get(name)
    if cls is None:
        raise ValueError(f"unknown Atlas & Zeus strategy {name!r} (known: {', '.join(STRATEGY_NAMES)})")
    return cls(seed, **options)
