"""Whole games with random legal moves: the public surface works end to end."""

import random

import pytest

from atlas_zeus import PLAYERS, new_game, view
from atlas_zeus.events import Event, event_from_dict
from atlas_zeus.moves import move_from_dict
from atlas_zeus.views import View


@pytest.mark.parametrize("seed", range(50))
def test_random_game_ends(seed):
    state = new_game(seed)
    chooser = random.Random(seed)
    while not state.is_over:
        (player,) = state.pending()
        moves = state.legal_moves(player)
        assert moves, "a pending player always has a legal move"
        move = chooser.choice(moves)
        assert move_from_dict(move.to_dict()) == move
        events: list[Event] = []
        state.play(player, move, events)
        for event in events:
            assert event_from_dict(event.to_dict()) == event
        for viewer in (None, *PLAYERS):
            plain = view(state, viewer).to_dict()
            assert View.from_dict(plain).to_dict() == plain
    assert state.outcome() is not None
    assert state.round <= 16
