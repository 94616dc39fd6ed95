"""The scoring round: when it happens, each category, ties, the stones' return, the end."""

from aton import BLUE, RED, Outcome, Place, Remove, Termination
from aton import events as E
from aton.game import COMMIT, OVER

from .engine_helpers import BLUE_STONES, RED_STONES, cards_of, committed, of_type, play, scoring_round, squares_of

CATEGORIES = [
    E.CategoryScored(1, "temple 1", 4, 2, 2, 0),       # own - opponent's stones
    E.CategoryScored(2, "temple 2", 1, 3, 0, 5),       # 5
    E.CategoryScored(3, "temple 3", 4, 3, 4, 0),       # 1 per own stone
    E.CategoryScored(4, "temple 4", 2, 3, 0, 6),       # 3 per own blue square, all temples
    E.CategoryScored(5, "black squares", 2, 1, 8, 0),  # 8
    E.CategoryScored(6, "bonus squares", 2, 1, 3, 1),  # everyone: +1 / +2 per stone
]


def test_each_category_goes_to_the_majority_and_the_dead_return_to_their_supplies():
    state, events = scoring_round(RED_STONES, BLUE_STONES)
    assert events == [E.ScoringStarted(36), *CATEGORIES, E.StonesReturned(18, 18, True),
                      E.RoundStarted(2), events[-2], events[-1]]
    assert of_type(events[-2:], E.CardsDrawn) == events[-2:]
    assert state.scores == [17, 12]
    assert state.dead == [0, 0] and state.supply == [18, 18]
    assert state.stones[RED].bit_count() == 11 and state.stones[BLUE].bit_count() == 11
    assert state.phase is COMMIT and state.round == 2


def test_a_tie_in_a_category_scores_nothing_for_anyone():
    red = [(1, 0), (1, 1), (2, 4), (3, 0), (4, 7), (4, 3)]
    blue = [(1, 2), (1, 3), (2, 5), (3, 1), (4, 8), (3, 11)]
    _, events = scoring_round(red, blue)
    assert of_type(events, E.CategoryScored) == [
        E.CategoryScored(1, "temple 1", 2, 2, 0, 0),
        E.CategoryScored(2, "temple 2", 1, 1, 0, 0),
        E.CategoryScored(3, "temple 3", 1, 2, 0, 2),
        E.CategoryScored(4, "temple 4", 2, 1, 3, 0),
        E.CategoryScored(5, "black squares", 1, 1, 0, 0),
        E.CategoryScored(6, "bonus squares", 1, 1, 2, 1),
    ]


def test_an_empty_category_scores_nothing():
    _, events = scoring_round([], [(4, 3)])
    assert of_type(events, E.CategoryScored) == [
        E.CategoryScored(1, "temple 1", 0, 0, 0, 0),
        E.CategoryScored(2, "temple 2", 0, 0, 0, 0),
        E.CategoryScored(3, "temple 3", 0, 0, 0, 0),
        E.CategoryScored(4, "temple 4", 0, 1, 0, 0),  # the majority, but no blue square
        E.CategoryScored(5, "black squares", 0, 0, 0, 0),
        E.CategoryScored(6, "bonus squares", 0, 1, 0, 2),
    ]


def test_temple_4_counts_the_blue_squares_of_all_four_temples():
    red = [(4, 0), (1, 7), (2, 7), (3, 7)]
    blue = [(4, 7)]
    _, events = scoring_round(red, blue)
    assert of_type(events, E.CategoryScored)[3] == E.CategoryScored(4, "temple 4", 1, 1, 0, 0)
    _, events = scoring_round([*red, (4, 1)], blue)
    assert of_type(events, E.CategoryScored)[3] == E.CategoryScored(4, "temple 4", 2, 1, 9, 0)


def test_temple_1_scores_the_difference():
    _, events = scoring_round(squares_of(1, 0, 1, 2, 3, 4), squares_of(1, 8, 9))
    assert of_type(events, E.CategoryScored)[0] == E.CategoryScored(1, "temple 1", 5, 2, 3, 0)


# ---------------------------------------------------------------- when it happens

def test_a_kingdom_of_8_stones_at_the_end_of_the_round_brings_a_scoring_round():
    # red's C2 of 3 sends the eighth stone to the Kingdom during the round
    state, _ = committed((1, 3, 1, 1), (2, 3, 1, 1), red_stones=[(1, 9)], blue_stones=[(1, 5)],
                         dead=(4, 3))
    events = play(state, (RED, Remove(1, 5)), (RED, Place(1, 0)), (BLUE, Remove(1, 0)))
    assert state.dead == [5, 4]
    events = play(state, (BLUE, Place(1, 1)))
    assert events[:2] == [E.StonePlaced(BLUE, 1, 1), E.ScoringStarted(9)]
    assert events[-4].kind == "stones_returned" and events[-3] == E.RoundStarted(3)
    assert state.dead == [0, 0] and state.supply == [28, 28]  # all but one stone each on the board


def test_seven_stones_in_the_kingdom_bring_no_scoring_round():
    state, _ = committed((1, 2, 1, 1), (2, 2, 1, 1), dead=(4, 3))
    events = play(state, (RED, Place(1, 0)), (BLUE, Place(1, 1)))
    assert of_type(events, E.ScoringStarted) == []
    assert E.RoundStarted(3) in events and state.dead == [4, 3]


def test_stones_placed_into_the_kingdom_count_too():
    full = dict(red_stones=squares_of(1, *range(6)), blue_stones=squares_of(1, *range(6, 12)))
    _state, events = committed((1, 2, 1, 4), (2, 2, 1, 4), dead=(0, 0), **full)
    assert of_type(events, E.StonesToKingdom) == [
        E.StonesToKingdom(RED, 4),
        E.StonesToKingdom(BLUE, 4),
    ]
    assert of_type(events, E.ScoringStarted) == [E.ScoringStarted(8)]


# ---------------------------------------------------------------- the end after scoring

def test_40_points_after_scoring_ends_the_game_and_more_points_win():
    state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(23, 20))
    assert events[-2:] == [E.StonesReturned(18, 18, True), E.GameOver(RED, Termination.SCORING, 40, 32)]
    assert state.phase is OVER and state.outcome() == Outcome(Termination.SCORING, RED)
    assert state.supply == [18, 18] and state.dead == [0, 0]


def test_after_a_final_scoring_the_round_s_cards_are_in_the_discard_piles_only():
    state, _ = scoring_round(RED_STONES, BLUE_STONES, scores=(23, 20))
    assert state.phase is OVER
    assert state.cartouches == [None, None]
    assert state.discard_public == [[1, 1, 1, 1], [1, 2, 1, 1]]
    assert sum(cards_of(state, RED).values()) == sum(cards_of(state, BLUE).values()) == 36


def test_the_player_who_did_not_reach_40_first_can_still_win_on_more_points():
    state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(25, 35))
    assert events[-1] == E.GameOver(BLUE, Termination.SCORING, 42, 47)
    assert state.outcome() == Outcome(Termination.SCORING, BLUE)


def test_equal_points_after_the_final_scoring_are_a_draw():
    state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(30, 35))
    assert events[-1] == E.GameOver(None, Termination.SCORING, 47, 47)
    assert state.phase is OVER and state.outcome() == Outcome(Termination.SCORING, None)


def test_below_40_the_game_goes_on():
    state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(22, 27))
    assert state.scores == [39, 39] and state.phase is COMMIT
    assert of_type(events, E.GameOver) == []
