"""§2 the ring (positions, neighbours, distance, gaps closing) and §4.3 the flood marker."""

import pytest

from atlas_zeus import BLUE, RED, Card, Harpoon, Outcome, Termination
from atlas_zeus.events import FloodMoved, IslandSank, PersonDied
from atlas_zeus.ring import Direction, distance, neighbours, next_flood, step

from .helpers import of, play, position, resolve


def test_neighbours_come_from_positions_not_numbers():
    ring = [5, 1, 16, 9]
    assert neighbours(ring, 1) == (5, 16)
    assert neighbours(ring, 5) == (9, 1), "position 0 touches the last position"
    assert step(ring, 9, Direction.CW) == 5 and step(ring, 5, Direction.CCW) == 9


def test_small_rings():
    assert neighbours([3, 8], 3) == (8,), "n = 2: one neighbour"
    assert neighbours([3], 3) == (), "n = 1: none"
    assert step([3], 3, Direction.CW) is None


def test_ring_distance():
    ring = list(range(1, 17))
    assert distance(ring, 1, 2) == 1
    assert distance(ring, 1, 16) == 1
    assert distance(ring, 1, 9) == 8
    assert distance(ring, 3, 14) == 5


@pytest.mark.parametrize(("start", "to"), [(2, 3), (9, 13), (13, 2)])
def test_rulebook_wrap_around_example(start, to):
    """With 2, 3, 7, 9, 13 left, the marker goes 2 → 3, 9 → 13, 13 → 2."""
    assert next_flood([9, 2, 13, 3, 7], start) == to


def test_sinking_moves_the_marker_to_the_next_higher_number_left():
    # ring 2, 3, 7, 9, 13 plus the flood island 10 that sinks: the marker goes 10 → 13
    state = position({"R1": 2, "B1": 3}, ring=[2, 10, 3, 7, 9, 13], flood=10, track={6: (RED, Card.RESHUFFLE)})
    events = resolve(state)
    assert [e.island for e in of(events, IslandSank)] == [10]
    assert 10 not in state.ring and state.flood == 13
    assert of(events, FloodMoved)[0] == FloodMoved(10, 13, "sinking")


def test_sinking_wraps_to_the_lowest_number():
    state = position({"R1": 2, "B1": 3}, ring=[2, 3, 7, 9, 13, 14], flood=14, track={6: (RED, Card.RESHUFFLE)})
    resolve(state)
    assert state.flood == 2


def test_a_sunk_island_closes_the_gap():
    """After island 5 sinks, 4 and 6 touch: a Harpoon from 4 reaches a person on 6."""
    state = position({"R1": 4, "B1": 6, "B2": 9}, ring=[3, 4, 5, 6, 9], flood=5,
                     track={1: (RED, Card.RESHUFFLE)}, hands={RED: [Card.HARPOON, Card.CRAB, Card.FOG]})
    resolve(state)
    assert state.ring == [3, 4, 6, 9]
    assert neighbours(state.ring, 4) == (3, 6)
    state2 = position({"R1": 4, "B1": 6, "B2": 9}, ring=[3, 4, 6, 9], flood=3, track={1: (RED, Card.HARPOON)})
    resolve(state2)
    events = play(state2, RED, Harpoon("B1"))
    assert of(events, PersonDied) == [PersonDied("B1", 6, "harpoon")]


def test_the_flood_marker_stays_when_the_sinking_ends_the_game():
    """§11.10."""
    state = position({"R1": 2, "B1": 3}, ring=[2, 3, 7], flood=3, track={1: (BLUE, Card.RESHUFFLE)})
    events = resolve(state)
    assert state.outcome() == Outcome(Termination.ELIMINATED, RED)
    assert state.flood == 3 and not of(events, FloodMoved)
