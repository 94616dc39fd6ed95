"""A recorded game for the replay viewer's tests: seeded random moves to the end, fixed."""

from __future__ import annotations

import random

from aton.game import new_game
from aton.record import GameRecord

SEED = 7


def recorded_game(seed: int = SEED) -> GameRecord:
    """A whole game of seeded random moves (resigning never), with a server's meta."""
    state, _ = new_game(seed)
    record = GameRecord(seed=seed, meta={"game": 12, "players": {"red": {"name": "ann", "kind": "human"},
                                                                  "blue": {"name": "Bot (normal)", "kind": "hosted"}}})
    choose = random.Random(seed)
    while not state.is_over:
        player = state.pending()[0]
        move = choose.choice(state.legal_moves(player, resign=False))
        state.play(player, move)
        record.add(player, move)
    return record
