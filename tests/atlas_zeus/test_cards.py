"""§5 the cards without their own page: Crab, Harpoon, Fog, Tidal surge, Flying fish, Flood,
Reshuffle, Open hand, Prayer, Weakness — each with its effect and with no legal target."""

import pytest

from atlas_zeus import BLUE, RED, Card, Fish, Flood, Fog, Harpoon, IllegalMove, Surge
from atlas_zeus.events import CardsDrawn, CardWithoutEffect, FloodMoved, PersonDied, PersonMoved, PileReshuffled
from atlas_zeus.moves import Program
from atlas_zeus.ring import Direction

from .helpers import of, play, position, resolve, total_cards

RING = list(range(1, 9))  # 1..8: small 1, 4, 7; large 2, 3, 5, 6 (volcanic), 8


def no_effect(events):
    return [(e.card, e.why) for e in of(events, CardWithoutEffect)]


# ---------------------------------------------------------------- Crab


def test_crab_kills_where_stronger_all_islands_at_once():
    state = position({"R1": 2, "B2": 2, "B5": 2,  # 40 vs 50: nothing
                      "R2": 3, "B6": 3,  # 30 vs 20: B6 dies
                      "R3": 5, "R5": 5, "B3": 5, "B1": 8},  # 50 vs 30: B3 dies; B1 alone on 8
                     ring=RING, flood=7, track={1: (RED, Card.CRAB)})
    events = resolve(state)
    assert {e.person for e in of(events, PersonDied)} == {"B6", "B3"}
    assert state.location["B2"] == 2 and state.location["B1"] == 8


def test_crab_equal_strength_kills_nobody_and_has_no_effect():
    state = position({"R2": 2, "B3": 2}, ring=RING, flood=7, track={1: (RED, Card.CRAB)})
    events = resolve(state)
    assert not of(events, PersonDied)
    assert no_effect(events) == [(Card.CRAB, "no_target")]
    assert Card.CRAB in state.discards[RED]


def test_crab_kills_turtles_too():
    state = position({"R1": 2, "B5": 2, "B1": 3}, ring=RING, flood=7, turtles={BLUE: "B5"},
                     track={1: (RED, Card.CRAB)})
    resolve(state)
    assert state.location["B5"] is None and state.turtles[BLUE] is None
    assert Card.TURTLE in state.discards[BLUE]


# ---------------------------------------------------------------- Harpoon


def test_harpoon_targets_people_next_to_an_island_of_yours():
    state = position({"R5": 2, "B1": 3, "B2": 1, "B3": 2, "B4": 5}, ring=RING, flood=7,
                     track={1: (RED, Card.HARPOON)}, turtles={BLUE: "B2"})
    resolve(state)
    assert state.pending() == (RED,)
    assert state.legal_moves(RED) == [Harpoon("B1")]
    with pytest.raises(IllegalMove, match="B2 is a turtle"):
        state.check(RED, Harpoon("B2"))
    with pytest.raises(IllegalMove, match="not on an island next to one of your people"):
        state.check(RED, Harpoon("B3"))  # on R5's own island: it does not count
    with pytest.raises(IllegalMove, match="not on an island next to"):
        state.check(RED, Harpoon("B4"))
    events = play(state, RED, Harpoon("B1"))
    assert of(events, PersonDied) == [PersonDied("B1", 3, "harpoon")]


def test_harpoon_ignores_nets():
    state = position({"R5": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.HARPOON)}, nets={BLUE: 3})
    resolve(state)
    assert state.legal_moves(RED) == [Harpoon("B1")]


def test_harpoon_without_target():
    state = position({"R5": 2, "B1": 5}, ring=RING, flood=7, track={1: (RED, Card.HARPOON)})
    events = resolve(state)
    assert no_effect(events) == [(Card.HARPOON, "no_target")]
    assert state.pending() == (BLUE,) and state.round == 2, "no decision asked: the round went on"


# ---------------------------------------------------------------- Fog


def test_fog_discards_a_later_opponent_card():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7,
                     track={1: (RED, Card.FOG), 2: (BLUE, Card.CRAB), 3: (RED, Card.CRAB), 4: (BLUE, Card.PRAYER)})
    resolve(state)
    assert state.legal_moves(RED) == [Fog(2), Fog(4)]
    with pytest.raises(IllegalMove, match="your own card"):
        state.check(RED, Fog(3))
    events = play(state, RED, Fog(2))
    assert no_effect(events)[0] == (Card.CRAB, "fogged")
    assert [e.slot for e in events if e.kind == "card_turned"] == [3, 4], "the fogged slot is skipped"
    assert state.discards[BLUE][0] is Card.CRAB
    assert total_cards(state, BLUE) == 25


def test_fog_cannot_hit_an_earlier_slot():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7,
                     track={1: (BLUE, Card.PRAYER), 2: (RED, Card.FOG), 3: (BLUE, Card.WEAKNESS)})
    resolve(state)
    with pytest.raises(IllegalMove, match="Slot 1 is not a later slot"):
        state.check(RED, Fog(1))
    assert state.legal_moves(RED) == [Fog(3)]


def test_fog_without_target():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7,
                     track={1: (BLUE, Card.PRAYER), 2: (RED, Card.FOG), 3: (RED, Card.PRAYER)})
    events = resolve(state)
    assert (Card.FOG, "no_target") in no_effect(events)


def test_a_fogged_slot_is_skipped():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7,
                     track={1: (RED, Card.FOG), 2: (BLUE, Card.HARPOON)})
    resolve(state)
    events = play(state, RED, Fog(2))
    assert [e.slot for e in events if e.kind == "card_turned"] == []
    assert state.round == 2


# ---------------------------------------------------------------- Tidal surge and Flood


def test_surge_moves_the_flood_marker_to_a_neighbour():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.SURGE)})
    resolve(state)
    assert state.legal_moves(RED) == [Surge(Direction.CW), Surge(Direction.CCW)]
    events = play(state, RED, Surge(Direction.CCW))
    assert of(events, FloodMoved)[0] == FloodMoved(7, 6, "surge")


def test_surge_on_a_ring_of_two_keeps_both_directions():
    """§11.6."""
    state = position({"R1": 2, "B1": 3}, ring=[2, 3], flood=2, track={1: (RED, Card.SURGE)})
    resolve(state)
    assert state.legal_moves(RED) == [Surge(Direction.CW), Surge(Direction.CCW)]
    play(state, RED, Surge(Direction.CW))
    assert state.flood == 3 or state.is_over


def test_surge_without_target_on_a_ring_of_one():
    state = position({"R1": 2, "B1": 2}, ring=[2], flood=2, track={1: (RED, Card.SURGE), 2: (BLUE, Card.PRAYER)})
    events = resolve(state)
    assert (Card.SURGE, "no_target") in no_effect(events)


def test_flood_moves_the_marker_anywhere_its_own_island_too():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.FLOOD)})
    resolve(state)
    assert state.legal_moves(RED) == [Flood(i) for i in RING]
    with pytest.raises(IllegalMove, match="Island 9 is no longer in the ring"):
        state.check(RED, Flood(9))
    play(state, RED, Flood(3))
    assert 3 not in state.ring and state.location["B1"] is None


# ---------------------------------------------------------------- Flying fish


def test_fish_moves_one_person_anywhere_with_room_ignoring_nets():
    state = position({"R1": 2, "R5": 1, "B1": 4}, ring=RING, flood=8, nets={BLUE: 5},
                     track={1: (RED, Card.FISH)})
    resolve(state)
    moves = state.legal_moves(RED)
    assert Fish("R1", 5) in moves and Fish("R1", 7) in moves
    assert Fish("R1", 4) not in moves and Fish("R1", 1) not in moves, "small and occupied"
    assert Fish("R1", 2) not in moves, "another island"
    with pytest.raises(IllegalMove, match="Island 4 is small and already occupied"):
        state.check(RED, Fish("R1", 4))
    events = play(state, RED, Fish("R5", 5))
    assert of(events, PersonMoved) == [PersonMoved("R5", 1, 5, "fish")]


def test_fish_without_target():
    """A lone person on a ring of one island has nowhere else to go."""
    state = position({"R1": 2, "B1": 2}, ring=[2], flood=2, track={1: (RED, Card.FISH), 2: (BLUE, Card.PRAYER)})
    events = resolve(state)
    assert (Card.FISH, "no_target") in no_effect(events)


# ---------------------------------------------------------------- Reshuffle


def test_reshuffle_shuffles_discard_into_draw_pile_and_is_discarded_after():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.RESHUFFLE)},
                     discards={RED: [Card.CRAB, Card.FOG]})
    deck = len(state.decks[RED])
    events = resolve(state)
    (shuffle, *_) = of(events, PileReshuffled)
    assert shuffle.player is RED and shuffle.by == "reshuffle" and shuffle.size == deck + 2
    # at the round's end red drew 3: the discard pile holds the Reshuffle only
    assert state.discards[RED] == [Card.RESHUFFLE]
    assert total_cards(state, RED) == 25


def test_reshuffle_with_an_empty_discard_still_shuffles():
    """§11.2."""
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.RESHUFFLE)})
    events = resolve(state)
    assert of(events, PileReshuffled)[0].by == "reshuffle"


# ---------------------------------------------------------------- Open hand


def test_open_hand_makes_the_opponent_program_face_up_next_round():
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.OPEN_HAND)})
    resolve(state)
    assert state.open_hand[BLUE] == 1 and state.initiative is BLUE
    hand = state.hands[BLUE][:3]
    events = play(state, BLUE, Program(((1, hand[0]), (3, hand[1]), (5, hand[2]))))
    assert events[0].face_up and state.open_hand[BLUE] == 0


def test_a_second_open_hand_during_a_face_up_round_counts_for_the_programming_after():
    """§11.4: blue programs face up in round 2; red's Open hand of that round makes blue's
    round-3 programming face up too, which uses it up."""
    state = position({"R1": 2, "B1": 3}, ring=RING, flood=7, round=2, initiative=BLUE,
                     hands={RED: [Card.OPEN_HAND, Card.WEAKNESS, Card.PRAYER], BLUE: [Card.CRAB] * 3})
    state.open_hand[BLUE] = 1
    assert play(state, BLUE, Program(((1, Card.CRAB), (3, Card.CRAB), (5, Card.CRAB))))[0].face_up
    assert state.open_hand[BLUE] == 0
    play(state, RED, Program(((2, Card.OPEN_HAND), (4, Card.WEAKNESS), (6, Card.PRAYER))))
    assert state.round == 3 and state.open_hand[BLUE] == 1 and state.initiative is RED
    play(state, RED, state.legal_moves(RED)[0])
    blue_program = state.legal_moves(BLUE)[0]
    assert play(state, BLUE, blue_program)[0].face_up
    assert state.open_hand[BLUE] == 0


# ---------------------------------------------------------------- Prayer


def test_prayer_draws_one_card_per_person_on_a_holy_island():
    state = position({"R1": 11, "R2": 11, "R3": 14, "R4": 2, "B1": 3}, flood=7, track={1: (RED, Card.PRAYER)})
    hand = len(state.hands[RED])
    events = resolve(state)
    drawn = of(events, CardsDrawn)
    assert drawn[0].player is RED and drawn[0].count == 3
    assert len(state.hands[RED]) == hand + 3 + 3, "the Prayer's 3, then the round's 3"


def test_prayer_without_people_on_holy_islands():
    state = position({"R1": 2, "B1": 11}, flood=7, track={1: (RED, Card.PRAYER)})
    events = resolve(state)
    assert (Card.PRAYER, "no_target") in no_effect(events)


# ---------------------------------------------------------------- Weakness


def test_weakness_lets_a_weaker_crab_win_until_the_round_ends():
    # R5 (20) against B1 (40, weakened to 10)
    state = position({"R5": 2, "B1": 2, "B2": 3}, ring=RING, flood=7,
                     track={1: (RED, Card.WEAKNESS), 2: (RED, Card.CRAB)})
    events = resolve(state)
    assert [e.person for e in of(events, PersonDied)] == ["B1"]
    assert state.weakened == [False, False], "Weakness ends with the round"


def test_weakness_applies_to_the_weakened_players_own_crab():
    """§11.3: blue, weakened, has 40 counted as 10 against red's 20."""
    state = position({"R5": 2, "B1": 2, "R1": 3}, ring=RING, flood=7,
                     track={1: (RED, Card.WEAKNESS), 2: (BLUE, Card.CRAB)})
    events = resolve(state)
    assert not of(events, PersonDied)


def test_weakness_does_not_revive_the_dead():
    state = position({"R5": 2, "B1": 3}, ring=RING, flood=7, track={1: (RED, Card.WEAKNESS)})
    resolve(state)
    assert state.location["B2"] is None
