"""A player's turn: range (C3), removal (C2), placement (C4), and the end of the round."""

from aton import BLUE, RED, Place, Remove
from aton import events as E
from aton.game import COMMIT, PLACE, REMOVE

from .engine_helpers import assert_illegal, committed, deck, of_type, places, play, removes, squares_of

BLUE_STONES = [(1, 0), (1, 1), (2, 5), (3, 0)]
# temple 1 full, half red, half blue
TEMPLE_1_FULL = dict(red_stones=squares_of(1, *range(6)), blue_stones=squares_of(1, *range(6, 12)))


# ---------------------------------------------------------------- removal (C2)

def test_c2_of_4_removes_two_opponent_stones_chosen_one_at_a_time():
    # equal C2: red's lower C1 plays first
    state, events = committed((1, 4, 2, 1), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert events[-4:] == [
        E.TurnOrderDecided(RED, "cartouche1", 1, 2),
        E.CardRevealed(RED, 3, 2),
        E.CardRevealed(RED, 4, 1),
        E.TurnStarted(RED, 2, 2, 1),
    ]
    assert state.phase is REMOVE and state.pending() == (RED,) and state.remaining == 2
    assert state.legal_moves(RED, resign=False) == removes((1, 0), (1, 1), (2, 5))
    assert play(state, (RED, Remove(2, 5))) == [E.StoneRemoved(RED, BLUE, 2, 5)]
    assert state.phase is REMOVE and state.remaining == 1
    assert play(state, (RED, Remove(1, 0))) == [E.StoneRemoved(RED, BLUE, 1, 0)]
    assert state.phase is PLACE and state.remaining == 1
    assert state.owner(1, 0) is None and state.owner(2, 5) is None
    assert state.dead == [0, 2] and state.supply == [29, 25]


def test_c2_of_3_removes_one_opponent_stone():
    state, events = committed((1, 3, 1, 1), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert events[-1] == E.TurnStarted(RED, 1, 1, 1)
    assert state.legal_moves(RED, resign=False) == removes((1, 0), (1, 1))
    assert play(state, (RED, Remove(1, 1))) == [E.StoneRemoved(RED, BLUE, 1, 1)]
    assert state.phase is PLACE and state.dead == [0, 1]


def test_c2_of_2_removes_nothing():
    state, events = committed((1, 2, 1, 1), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert events[-1] == E.TurnStarted(RED, 1, 0, 1)
    assert state.phase is PLACE and state.active == RED
    assert state.dead == [0, 0]


def test_c2_of_1_removes_one_of_ones_own_stones():
    state, events = committed((1, 1, 2, 1), (2, 4, 1, 1), red_stones=[(2, 0), (3, 3)],
                              blue_stones=BLUE_STONES)
    assert events[-1] == E.TurnStarted(RED, 2, -1, 1)
    assert state.target == RED
    assert state.legal_moves(RED, resign=False) == removes((2, 0))  # (3, 3) is out of range
    assert play(state, (RED, Remove(2, 0))) == [E.StoneRemoved(RED, RED, 2, 0)]
    assert state.dead == [1, 0] and state.stones[RED].bit_count() == 1
    assert state.phase is PLACE


def test_a_forced_removal_is_still_the_players_move():
    state, _ = committed((1, 3, 1, 1), (2, 4, 1, 1), blue_stones=[(1, 4)])
    assert state.pending() == (RED,)
    assert state.legal_moves(RED, resign=False) == [Remove(1, 4)]


def test_removal_is_limited_to_the_range():
    state, _ = committed((1, 4, 2, 1), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert_illegal(state, RED, Remove(3, 0), "temple 3 is outside your range (cartouche 3 shows 2)")


def test_no_stone_is_removed_in_the_first_round():
    state, events = committed((1, 4, 2, 1), (2, 4, 1, 1), round=1, blue_stones=BLUE_STONES)
    assert events[-2:] == [E.TurnStarted(RED, 2, 0, 1), E.RemovalSkipped(RED, 2)]
    assert state.phase is PLACE
    play(state, (RED, Place(1, 5)))
    # blue's C2 of 4 is skipped as well
    assert state.active == BLUE and state.phase is PLACE and state.dead == [0, 0]


def test_not_even_ones_own_stone_in_the_first_round():
    state, events = committed((1, 1, 2, 1), (2, 4, 1, 1), round=1, red_stones=[(1, 5)])
    assert events[-2:] == [E.TurnStarted(RED, 2, 0, 1), E.RemovalSkipped(RED, -1)]
    assert state.phase is PLACE and state.stones[RED].bit_count() == 1


def test_no_removal_skipped_event_for_a_c2_of_2_in_round_1():
    _, events = committed((1, 2, 2, 1), (2, 4, 1, 1), round=1)
    assert of_type(events, E.RemovalSkipped) == []


def test_the_rest_of_a_removal_lapses_when_too_few_stones_are_in_range():
    state, _ = committed((1, 4, 1, 1), (2, 4, 1, 1), blue_stones=[(1, 3), (2, 0)])
    assert state.legal_moves(RED, resign=False) == [Remove(1, 3)]
    assert play(state, (RED, Remove(1, 3))) == [
        E.StoneRemoved(RED, BLUE, 1, 3),
        E.RemovalLapsed(RED, 1),
    ]
    assert state.phase is PLACE and state.dead == [0, 1]


def test_the_whole_removal_lapses_with_no_stone_in_range():
    state, events = committed((1, 4, 1, 1), (2, 4, 1, 1), blue_stones=[(2, 0)])
    assert events[-2:] == [E.TurnStarted(RED, 1, 2, 1), E.RemovalLapsed(RED, 2)]
    assert state.phase is PLACE and state.active == RED


def test_an_own_removal_lapses_without_own_stones():
    state, events = committed((1, 1, 1, 1), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert events[-2:] == [E.TurnStarted(RED, 1, -1, 1), E.RemovalLapsed(RED, 1)]
    assert state.stones[BLUE].bit_count() == 4


# ---------------------------------------------------------------- placement (C3, C4)

def test_placement_is_limited_to_empty_squares_in_range():
    state, _ = committed((1, 2, 2, 3), (2, 4, 1, 1), red_stones=[(2, 11)], blue_stones=BLUE_STONES)
    occupied = {(1, 0), (1, 1), (2, 5), (2, 11)}
    expected = [Place(t, s) for t in (1, 2) for s in range(12) if (t, s) not in occupied]
    assert state.legal_moves(RED, resign=False) == expected
    assert_illegal(state, RED, Place(3, 4), "temple 3 is outside your range (cartouche 3 shows 2)")


def test_placements_may_be_spread_over_several_temples():
    state, _ = committed((1, 2, 4, 4), (2, 4, 1, 1))
    events = play(state, *((RED, m) for m in places((1, 0), (4, 7), (2, 3), (3, 11))))
    assert events[:4] == [
        E.StonePlaced(RED, 1, 0),
        E.StonePlaced(RED, 4, 7),
        E.StonePlaced(RED, 2, 3),
        E.StonePlaced(RED, 3, 11),
    ]
    assert state.supply[RED] == 25
    assert [state.owner(t, s) for t, s in [(1, 0), (4, 7), (2, 3), (3, 11)]] == [RED] * 4
    assert state.active == BLUE  # red's turn is over after four stones


def test_stones_without_an_empty_square_in_range_go_to_the_kingdom():
    full_but_two = squares_of(1, *range(10))
    state, _ = committed((1, 2, 1, 4), (2, 4, 1, 1), blue_stones=full_but_two)
    assert state.legal_moves(RED, resign=False) == places((1, 10), (1, 11))
    events = play(state, (RED, Place(1, 11)), (RED, Place(1, 10)))
    assert events[:3] == [
        E.StonePlaced(RED, 1, 11),
        E.StonePlaced(RED, 1, 10),
        E.StonesToKingdom(RED, 2),
    ]
    assert state.supply[RED] == 25 and state.dead[RED] == 2


def test_with_no_empty_square_in_range_all_stones_go_to_the_kingdom_at_once():
    state, events = committed((1, 2, 1, 3), (2, 4, 1, 1), **TEMPLE_1_FULL)
    turn = events[events.index(E.TurnStarted(RED, 1, 0, 3)):]
    assert turn[:2] == [E.TurnStarted(RED, 1, 0, 3), E.StonesToKingdom(RED, 3)]
    assert state.active == BLUE and state.dead == [3, 0] and state.supply == [20, 23]


def test_placement_lapses_when_the_supply_runs_dry():
    state, _ = committed((1, 2, 2, 4), (2, 4, 1, 1), dead=(27, 0))
    events = play(state, (RED, Place(1, 0)), (RED, Place(2, 0)))
    assert events[:3] == [
        E.StonePlaced(RED, 1, 0),
        E.StonePlaced(RED, 2, 0),
        E.PlacementLapsed(RED, 2),
    ]
    assert state.supply[RED] == 0 and state.dead[RED] == 27 and state.active == BLUE


def test_an_empty_supply_places_nothing_and_sends_nothing_to_the_kingdom():
    state, events = committed((1, 2, 1, 3), (2, 4, 1, 1), dead=(23, 0), **TEMPLE_1_FULL)
    turn = events[events.index(E.TurnStarted(RED, 1, 0, 3)):]
    assert turn[:2] == [E.TurnStarted(RED, 1, 0, 3), E.PlacementLapsed(RED, 3)]
    assert of_type(turn, E.StonesToKingdom) == []
    assert state.active == BLUE and state.supply[RED] == 0 and state.dead == [23, 0]


def test_a_short_supply_sends_what_it_has_to_the_kingdom_and_the_rest_lapses():
    state, events = committed((1, 2, 1, 4), (2, 4, 1, 1), dead=(21, 0), **TEMPLE_1_FULL)
    turn = events[events.index(E.TurnStarted(RED, 1, 0, 4)):]
    assert turn[:3] == [
        E.TurnStarted(RED, 1, 0, 4),
        E.StonesToKingdom(RED, 2),
        E.PlacementLapsed(RED, 2),
    ]
    assert state.supply[RED] == 0 and state.dead[RED] == 23


# ---------------------------------------------------------------- the two turns and the round's end

def test_the_second_player_turns_up_c3_c4_at_the_start_of_their_turn():
    state, events = committed((1, 2, 1, 1), (2, 4, 1, 1))
    assert of_type(events, E.CardRevealed)[-2:] == [
        E.CardRevealed(RED, 3, 1),
        E.CardRevealed(RED, 4, 1),
    ]
    assert state.revealed == [4, 2]
    assert play(state, (RED, Place(1, 0)))[1:] == [
        E.CardRevealed(BLUE, 3, 1),
        E.CardRevealed(BLUE, 4, 1),
        E.TurnStarted(BLUE, 1, 2, 1),
    ]
    assert state.revealed == [4, 4] and state.phase is REMOVE and state.pending() == (BLUE,)


def test_after_the_second_turn_the_cards_are_discarded_and_the_next_round_begins():
    state, _ = committed((1, 2, 1, 1), (2, 4, 1, 1))
    play(state, (RED, Place(1, 0)))
    events = play(state, (BLUE, Remove(1, 0)), (BLUE, Place(1, 5)))
    assert events == [
        E.StoneRemoved(BLUE, RED, 1, 0),
        E.RemovalLapsed(BLUE, 1),
        E.StonePlaced(BLUE, 1, 5),
        E.RoundStarted(3),
        E.CardsDrawn(RED, tuple(deck(1, 2, 1, 1)[4:8])),
        E.CardsDrawn(BLUE, tuple(deck(2, 4, 1, 1)[4:8])),
    ]
    assert state.round == 3 and state.phase is COMMIT and state.pending() == (RED, BLUE)
    assert state.discard_public == [[1, 2, 1, 1], [2, 4, 1, 1]]
    assert state.cartouches == [None, None] and state.revealed == [0, 0]
    assert state.hands == [tuple(deck(1, 2, 1, 1)[4:8]), tuple(deck(2, 4, 1, 1)[4:8])]
    assert len(state.decks[RED]) == len(state.decks[BLUE]) == 28

