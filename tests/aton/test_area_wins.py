"""The area victory: a whole temple, all yellow or all green squares, checked after placement."""

from aton import BLUE, RED, Outcome, Place, Remove, Termination
from aton import events as E
from aton.game import OVER, PLACE, REMOVE

from .engine_helpers import committed, play, squares_of

# the 14 yellow and 14 green squares of the rules page
YELLOW = (squares_of(1, 0, 1, 2, 3) + squares_of(2, 0, 1, 2, 3)
          + squares_of(3, 0, 1, 2) + squares_of(4, 0, 1, 2))
GREEN = (squares_of(1, 8, 9, 10, 11) + squares_of(2, 8, 9, 10, 11)
         + squares_of(3, 8, 9, 10) + squares_of(4, 8, 9, 10))

# red plays first (lower C2); blue's C1 of 2 has scored 2 points
BLUE_HAND = (2, 4, 1, 1)


def all_but(squares, *missing):
    return [sq for sq in squares if sq not in missing]


def assert_won(state, winner, reason):
    assert state.phase is OVER and state.outcome() == Outcome(Termination(reason), winner)
    assert state.pending() == () and state.legal_moves(RED) == state.legal_moves(BLUE) == []


def test_a_whole_temple_wins_at_once():
    state, _ = committed((1, 2, 3, 1), BLUE_HAND, red_stones=all_but(squares_of(3), (3, 5)))
    assert play(state, (RED, Place(3, 5))) == [
        E.StonePlaced(RED, 3, 5),
        E.GameOver(RED, Termination.TEMPLE, 0, 2),
    ]
    assert_won(state, RED, "temple")


def test_the_area_is_checked_after_the_whole_placement_not_when_completed():
    state, _ = committed((1, 2, 2, 2), BLUE_HAND, red_stones=all_but(squares_of(1), (1, 11)))
    assert play(state, (RED, Place(1, 11))) == [E.StonePlaced(RED, 1, 11)]
    assert state.phase is PLACE and state.pending() == (RED,)
    assert play(state, (RED, Place(2, 0))) == [
        E.StonePlaced(RED, 2, 0),
        E.GameOver(RED, Termination.TEMPLE, 0, 2),
    ]


def test_stones_overflowing_to_the_kingdom_come_before_the_win():
    state, _ = committed((1, 2, 1, 3), BLUE_HAND, red_stones=all_but(squares_of(1), (1, 11)))
    assert play(state, (RED, Place(1, 11))) == [
        E.StonePlaced(RED, 1, 11),
        E.StonesToKingdom(RED, 2),
        E.GameOver(RED, Termination.TEMPLE, 0, 2),
    ]
    assert state.dead == [2, 0]


def test_all_yellow_squares_win():
    state, _ = committed((1, 2, 4, 1), BLUE_HAND, red_stones=all_but(YELLOW, (4, 0)))
    assert play(state, (RED, Place(4, 0)))[-1] == E.GameOver(RED, Termination.YELLOW, 0, 2)
    assert_won(state, RED, "yellow")


def test_all_green_squares_win():
    state, _ = committed((1, 2, 2, 1), BLUE_HAND, red_stones=all_but(GREEN, (2, 9)))
    assert play(state, (RED, Place(2, 9)))[-1] == E.GameOver(RED, Termination.GREEN, 0, 2)
    assert_won(state, RED, "green")


def test_a_temple_comes_before_yellow():
    stones = sorted(set(all_but(squares_of(1), (1, 0)) + all_but(YELLOW, (1, 0))))
    state, _ = committed((1, 2, 1, 1), BLUE_HAND, red_stones=stones)
    assert play(state, (RED, Place(1, 0)))[-1] == E.GameOver(RED, Termination.TEMPLE, 0, 2)
    assert all((state.stones[RED] >> i) & 1 for i in range(12))


def test_yellow_comes_before_green():
    stones = all_but(YELLOW, (1, 0)) + all_but(GREEN, (1, 8))
    state, _ = committed((1, 2, 1, 2), BLUE_HAND, red_stones=stones)
    events = play(state, (RED, Place(1, 8)), (RED, Place(1, 0)))
    assert events[-1] == E.GameOver(RED, Termination.YELLOW, 0, 2)


def test_the_second_player_wins_at_the_end_of_their_own_turn():
    state, _ = committed((1, 2, 1, 1), (2, 3, 2, 1), blue_stones=all_but(squares_of(2), (2, 6)))
    play(state, (RED, Place(1, 0)))
    assert state.active == BLUE and state.phase is REMOVE
    events = play(state, (BLUE, Remove(1, 0)), (BLUE, Place(2, 6)))
    assert events == [
        E.StoneRemoved(BLUE, RED, 1, 0),
        E.StonePlaced(BLUE, 2, 6),
        E.GameOver(BLUE, Termination.TEMPLE, 0, 2),
    ]


def test_a_full_temple_of_both_colours_wins_nothing():
    state, _ = committed((1, 2, 1, 1), BLUE_HAND, red_stones=squares_of(1, *range(5)),
                         blue_stones=squares_of(1, *range(6, 12)))
    play(state, (RED, Place(1, 5)))
    assert state.phase is not OVER and state.active == BLUE


def test_the_first_players_win_ends_the_round_before_the_second_turn():
    state, _ = committed((1, 2, 1, 1), BLUE_HAND, red_stones=all_but(squares_of(1), (1, 4)))
    events = play(state, (RED, Place(1, 4)))
    assert not [e for e in events if isinstance(e, (E.TurnStarted, E.CardRevealed))]
    assert state.revealed == [4, 2]  # blue's C3 and C4 were never turned up

