"""Illegal moves: refused with a sentence in a player's words, and nothing changes."""

import pytest

from atlas_zeus import BLUE, RED, Card, Fish, Flood, Harpoon, IllegalMove, Net, Program, Surge, Transfer, new_game
from atlas_zeus.ring import Direction

from .helpers import position, resolve


def test_a_refused_move_changes_nothing():
    state = new_game(4)
    player = state.pending()[0]
    before = (list(state.hands[player]), list(state.track), state.pending())
    with pytest.raises(IllegalMove):
        state.play(player, Program(((1, Card.VOLCANO), (2, Card.VOLCANO), (3, Card.VOLCANO))))
    assert (state.hands[player], state.track, state.pending()) == before


@pytest.mark.parametrize(("move", "sentence"), [
    (Harpoon("B1"), "Now you must choose a Transfer, not a Harpoon target."),
    (Transfer((("R1", 2), ("R2", 2))), "R2 is dead."),
    (Transfer((("R1", 9),)), "Island 9 is no longer in the ring."),
    (Transfer((("R1", 6),)), "These steps cost 4 movement points; a Transfer has 3."),
    (Transfer((("R1", 4),)), "Island 4 is small: it cannot hold R1 and B5."),
    (Transfer((("B5", 6),)), "B5 is not one of your people."),
])
def test_sentences(move, sentence):
    state = position({"R1": 1, "B1": 3, "B5": 4}, ring=[1, 2, 3, 4, 5, 6, 7, 8, 10], flood=10,
                     track={1: (RED, Card.TRANSFER)})
    resolve(state)
    with pytest.raises(IllegalMove) as refused:
        state.check(RED, move)
    assert str(refused.value) == sentence


def test_not_your_turn():
    state = position({"R1": 1, "B1": 3}, flood=8, track={1: (RED, Card.FLOOD)})
    resolve(state)
    with pytest.raises(IllegalMove, match="It is not your turn: red must choose an island to flood"):
        state.check(BLUE, Flood(3))
    with pytest.raises(IllegalMove, match="Now you must choose an island to flood, not a Tidal surge direction"):
        state.check(RED, Surge(Direction.CW))


def test_island_and_person_sentences():
    state = position({"R1": 1, "B1": 3}, ring=[1, 3, 5], flood=5, track={1: (RED, Card.FISH)})
    resolve(state)
    with pytest.raises(IllegalMove, match="R1 is already on island 1"):
        state.check(RED, Fish("R1", 1))
    with pytest.raises(IllegalMove, match="B1 is not one of your people"):
        state.check(RED, Fish("B1", 5))
    with pytest.raises(IllegalMove, match="Island 2 is no longer in the ring"):
        state.check(RED, Fish("R1", 2))
    with pytest.raises(IllegalMove, match="Now you must choose a Flying fish move, not an island to net"):
        state.check(RED, Net(1))
