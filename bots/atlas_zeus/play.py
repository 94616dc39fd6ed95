"""One in-process game of Atlas & Zeus between two strategies: the engine drives, each bot
sees only its own view (``atlas_zeus.views.view``), one decision at a time.

The player with the initiative programs first; the other then sees which slots were taken
(face-down cards) but not the cards — what the server's sealed programming shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from atlas_zeus.game import GameState, new_game
from atlas_zeus.moves import Move
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.players import PLAYERS, Player
from atlas_zeus.views import view

from ..game_result import GameResult
from .strategy import Strategy

__all__ = ["play_game"]


def play_game(
    red: Strategy,
    blue: Strategy,
    seed: int,
    options: Options = DEFAULT_OPTIONS,
    on_move: Callable[[GameState, Player, Move], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GameResult:
    """Play one game dealt from ``seed``; ``on_move(state, player, move)`` is called after each
    move (for tests), ``clock`` measures each bot's thinking time.  A move that is not legal
    raises the engine's ``IllegalMove``."""
    start = time.perf_counter()
    bots = (red, blue)
    state = new_game(seed, options)
    decisions = [0, 0]
    think = [0.0, 0.0]
    while not state.is_over:
        (player,) = state.pending()
        seen = view(state, player)
        t0 = clock()
        move = bots[player].choose(seen)
        think[player] += clock() - t0
        decisions[player] += 1
        state.play(player, move)
        if on_move is not None:
            on_move(state, player, move)
    outcome = state.outcome()
    assert outcome is not None
    red_alive, blue_alive = (len(state.alive(p)) for p in PLAYERS)
    return GameResult(
        seed=seed, winner=outcome.winner, termination=outcome.termination, rounds=state.round,
        scores=(red_alive, blue_alive), decisions=(decisions[0], decisions[1]), think_s=(think[0], think[1]),
        elapsed_s=time.perf_counter() - start,
    )
