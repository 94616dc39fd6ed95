"""§6 markers: Net, Turtle, Pilehouse — placing, their effects, set-aside cards, returns."""

import pytest

from atlas_zeus import BLUE, RED, Card, Fog, Harpoon, IllegalMove, Net, Pilehouse, Turtle
from atlas_zeus.events import CardWithoutEffect, MarkerPlaced, MarkerReturned

from .helpers import of, play, position, resolve, total_cards


def at(card, people, owner=RED, **kw):
    kw.setdefault("flood", 16)
    state = position(people, track={1: (owner, card)}, **kw)
    resolve(state)
    return state


# ---------------------------------------------------------------- Net


def test_net_goes_on_an_island_without_the_opponents_net_and_its_card_is_set_aside():
    state = at(Card.NET, {"R1": 2, "B1": 3}, nets={BLUE: 5})
    moves = state.legal_moves(RED)
    assert Net(5) not in moves and len(moves) == 15
    with pytest.raises(IllegalMove, match="Island 5 already holds blue's Net"):
        state.check(RED, Net(5))
    events = play(state, RED, Net(3))
    assert of(events, MarkerPlaced) == [MarkerPlaced(RED, "net", 3, None)]
    assert state.nets[RED] == 3 and state.set_aside[RED] == [Card.NET]
    assert Card.NET not in state.discards[RED] and total_cards(state, RED) == 25


def test_a_net_returns_when_its_island_sinks():
    state = position({"R1": 2, "B1": 3}, flood=5, nets={RED: 5}, track={1: (BLUE, Card.CRAB)})
    events = resolve(state)
    assert MarkerReturned(RED, "net", 5, None, "sank") in events
    assert state.nets[RED] is None and state.set_aside[RED] == [] and Card.NET in state.discards[RED]


def test_net_without_target_is_discarded_not_set_aside():
    """A ring whose only island holds the opponent's Net."""
    state = at(Card.NET, {"R1": 2, "B1": 2}, ring=[2], flood=2, nets={BLUE: 2})
    assert state.set_aside[RED] == [] and Card.NET in state.discards[RED]


# ---------------------------------------------------------------- Turtle


def test_turtle_on_one_of_your_people():
    state = at(Card.TURTLE, {"R1": 2, "R2": 5, "B1": 3})
    assert state.legal_moves(RED) == [Turtle("R1"), Turtle("R2")]
    with pytest.raises(IllegalMove, match="B1 is not one of your people"):
        state.check(RED, Turtle("B1"))
    play(state, RED, Turtle("R2"))
    assert state.turtles[RED] == "R2" and state.set_aside[RED] == [Card.TURTLE]


def test_a_turtle_stops_a_harpoon_but_not_the_sinking():
    state = position({"R1": 2, "B5": 3, "B1": 9}, flood=3, turtles={BLUE: "B5"}, track={1: (RED, Card.HARPOON)})
    events = resolve(state)
    assert (Card.HARPOON, "no_target") in [(e.card, e.why) for e in of(events, CardWithoutEffect)]
    assert state.location["B5"] is None, "the flood marker drowns a turtle"
    assert MarkerReturned(BLUE, "turtle", None, "B5", "died") in events
    assert Card.TURTLE in state.discards[BLUE] and state.set_aside[BLUE] == []


def test_turtle_without_target_when_your_turtle_is_out():
    """With a deck of two Turtles the second has no target while the first is in play."""
    from atlas_zeus.cards import DECK
    from atlas_zeus.options import Options
    options = Options(deck=(*DECK, Card.TURTLE))
    state = at(Card.TURTLE, {"R1": 2, "B1": 3}, turtles={RED: "R1"}, options=options)
    assert state.round == 2 and state.turtles[RED] == "R1"


# ---------------------------------------------------------------- Pilehouse


def test_pilehouse_goes_on_a_small_island():
    state = at(Card.PILEHOUSE, {"R1": 2, "B1": 3}, pilehouses={BLUE: 4})
    assert state.legal_moves(RED) == [Pilehouse(1), Pilehouse(7), Pilehouse(10), Pilehouse(13), Pilehouse(16)]
    with pytest.raises(IllegalMove, match="Island 2 is large"):
        state.check(RED, Pilehouse(2))
    with pytest.raises(IllegalMove, match="already holds blue's Pilehouse"):
        state.check(RED, Pilehouse(4))
    play(state, RED, Pilehouse(7))
    assert state.capacity(7) is None and state.set_aside[RED] == [Card.PILEHOUSE]


def test_pilehouse_returns_when_its_island_sinks():
    state = position({"R1": 2, "B1": 3}, flood=7, pilehouses={RED: 7}, track={1: (BLUE, Card.CRAB)})
    events = resolve(state)
    assert MarkerReturned(RED, "pilehouse", 7, None, "sank") in events


def test_pilehouse_without_a_small_island():
    state = at(Card.PILEHOUSE, {"R1": 2, "B1": 3}, ring=[2, 3, 5], flood=5)
    assert Card.PILEHOUSE in state.discards[RED]


# ---------------------------------------------------------------- fogged marker cards


def test_a_fogged_marker_card_is_discarded_at_once():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (BLUE, Card.FOG), 2: (RED, Card.NET)})
    resolve(state)
    play(state, BLUE, Fog(2))
    assert Card.NET in state.discards[RED] and state.set_aside[RED] == [] and state.nets[RED] is None


def test_harpoon_kills_a_person_that_is_not_the_turtle():
    state = position({"R1": 2, "B5": 3, "B6": 3, "B1": 9}, flood=16, turtles={BLUE: "B5"},
                     track={1: (RED, Card.HARPOON)})
    resolve(state)
    assert state.legal_moves(RED) == [Harpoon("B6")]
