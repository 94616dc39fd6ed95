"""Recorded games for the replay viewers' tests: Aton's of seeded random moves, Atlas & Zeus's
of seeded bots (random red, greedy blue), to the end, fixed."""

from __future__ import annotations

import random

from atlas_zeus import record as zeus_record
from atlas_zeus.game import new_game as new_zeus_game
from atlas_zeus.players import PLAYERS
from atlas_zeus.views import view
from aton.game import new_game
from aton.record import GameRecord
from bots.atlas_zeus import strategy_named

SEED = 7
ZEUS_SEED = 5
#: the ``meta`` of a server's record
META = {"players": {"red": {"name": "ann", "kind": "human"}, "blue": {"name": "Bot (normal)", "kind": "hosted"}}}


def recorded_game(seed: int = SEED) -> GameRecord:
    """A whole game of seeded random moves (resigning never), with a server's meta."""
    state, _ = new_game(seed)
    record = GameRecord(seed=seed, meta={"game": 12, **META})
    choose = random.Random(seed)
    while not state.is_over:
        player = state.pending()[0]
        move = choose.choice(state.legal_moves(player, resign=False))
        state.play(player, move)
        record.add(player, move)
    return record


def zeus_recorded_game(seed: int = ZEUS_SEED) -> zeus_record.GameRecord:
    """A whole game of Atlas & Zeus, the random bot (red) against the greedy one (blue), seeded."""
    state = new_zeus_game(seed)
    record = zeus_record.GameRecord(seed=seed, meta={"game": 31, **META})
    bots = dict(zip(PLAYERS, (strategy_named("random", seed), strategy_named("greedy", seed)), strict=True))
    while not state.is_over:
        player = state.pending()[0]
        move = bots[player].choose(view(state, player))
        state.play(player, move)
        record.add(player, move)
    return record
