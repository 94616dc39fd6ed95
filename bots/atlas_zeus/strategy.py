"""What an Atlas & Zeus bot is: ``choose(view) -> move``, from the view alone.

A strategy receives ``atlas_zeus.views.View`` objects built for its own player — the view a
human client gets — and answers the decision in it (``view.decision``) with an engine move
(``atlas_zeus.moves``).  It never sees the game state.  Every strategy owns a seeded
``random.Random`` (``self.rng``), so that a game between seeded strategies can be replayed.
Runners (``bots.atlas_zeus.play``, the server's hosted bots, the network bot) call ``choose``.
"""

from __future__ import annotations

import random

from atlas_zeus.moves import Move
from atlas_zeus.players import Player
from atlas_zeus.views import Decision, View

__all__ = ["Strategy", "decision_of", "player_of"]


def player_of(view: View) -> Player:
    """The player ``view`` is built for: a strategy is never handed a spectator's view."""
    if view.viewer is None:
        raise ValueError("a strategy plays a seat: this is a spectator's view")
    return view.viewer


def decision_of(view: View) -> Decision:
    """The viewer's decision: always there in a view handed to ``choose``."""
    if view.decision is None:
        raise ValueError("the view holds no decision for this player")
    return view.decision


class Strategy:
    """Base class of the Atlas & Zeus bots: subclasses implement ``choose``."""

    #: the name ``strategy_named`` knows it by
    name = "strategy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        """The move for the decision in ``view`` (one of its legal moves)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed!r}>"
