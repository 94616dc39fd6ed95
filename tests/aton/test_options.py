"""Every rule switch of aton.options.Rules: its default and its non-default behaviour."""

import pytest

from aton import BLUE, DEFAULT_RULES, RED, Exchange, Outcome, Place, Rules, Termination, view
from aton import events as E
from aton.cards import shuffled
from aton.game import COMMIT, OVER

from .engine_helpers import (
    BLUE_STONES,
    RED_STONES,
    committed,
    deck_top_first,
    hands,
    of_type,
    play,
    play_round,
    scoring_round,
    start,
)

TIES = ([(1, 0), (1, 1), (2, 4), (3, 0), (4, 7), (4, 3)],
        [(1, 2), (1, 3), (2, 5), (3, 1), (4, 8), (3, 11)])


def test_the_defaults_are_the_rules_page():
    assert Rules(
        hide_second_player_until_turn=True,
        exchange_reshuffle_excludes_hand=True,
        scoring_tie_nobody_scores=True,
        dead_return_to_supply=True,
        equal_points_draw=True,
        max_rounds=200,
    ) == DEFAULT_RULES


def test_rules_round_trip_through_a_dict():
    rules = Rules(equal_points_draw=False, max_rounds=7)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({}) == DEFAULT_RULES


@pytest.mark.parametrize("data, message", [
    ({"bogus": True}, "unknown rule option(s): bogus"),
    ({"max_rounds": "x"}, "max_rounds must be int, got 'x'"),
    ({"max_rounds": True}, "max_rounds must be int, got True"),
    ({"max_rounds": 0}, "max_rounds must be at least 1, got 0"),
    ({"dead_return_to_supply": "no"}, "dead_return_to_supply must be bool, got 'no'"),
])
def test_bad_rule_options_are_refused(data, message):
    with pytest.raises(ValueError) as info:
        Rules.from_dict(data)
    assert str(info.value) == message


# ---------------------------------------------------------------- hide_second_player_until_turn

def test_switched_off_both_players_c3_c4_are_revealed_at_the_first_turn():
    rules = Rules(hide_second_player_until_turn=False)
    state, events = committed((1, 2, 1, 1), (2, 4, 3, 2), rules=rules)
    assert events[-5:] == [
        E.CardRevealed(RED, 3, 1),
        E.CardRevealed(RED, 4, 1),
        E.CardRevealed(BLUE, 3, 3),
        E.CardRevealed(BLUE, 4, 2),
        E.TurnStarted(RED, 1, 0, 1),
    ]
    assert view(state, RED).blue.cartouches == (2, 4, 3, 2)
    assert play(state, (RED, Place(1, 0)))[1:] == [E.TurnStarted(BLUE, 3, 2, 2)]


def test_by_default_the_second_players_c3_c4_stay_hidden_during_the_first_turn():
    state, _ = committed((1, 2, 1, 1), (2, 4, 3, 2))
    assert view(state, RED).blue.cartouches == (2, 4, None, None)
    assert view(state, None).blue.cartouches == (2, 4, None, None)


# ---------------------------------------------------------------- exchange_reshuffle_excludes_hand

def test_switched_off_the_exchanged_hand_is_shuffled_into_the_new_deck():
    rules = Rules(exchange_reshuffle_excludes_hand=False)
    state, _ = start(hands((1, 1, 2, 2)), hands((1, 2, 3, 4)), seed=5, rules=rules)
    discards = deck_top_first(state, RED)
    state.discard_public[RED] = list(discards)
    state.decks[RED] = []
    events = play(state, (RED, Exchange()))
    new_deck = shuffled([*discards, 1, 1, 2, 2], 5, 0, 1)
    assert events == [
        E.Exchanged(RED),
        E.DeckShuffled(RED, 36),
        E.CardsDrawn(RED, tuple(new_deck[:4])),
    ]
    assert deck_top_first(state, RED) == new_deck[4:]
    assert state.discard_public[RED] == state.discard_hidden[RED] == []


# ---------------------------------------------------------------- scoring_tie_nobody_scores

def test_switched_off_both_players_score_a_tied_category():
    rules = Rules(scoring_tie_nobody_scores=False)
    _, events = scoring_round(*TIES, rules=rules)
    assert of_type(events, E.CategoryScored) == [
        E.CategoryScored(1, "temple 1", 2, 2, 0, 0),  # the difference is 0
        E.CategoryScored(2, "temple 2", 1, 1, 5, 5),
        E.CategoryScored(3, "temple 3", 1, 2, 0, 2),
        E.CategoryScored(4, "temple 4", 2, 1, 3, 0),
        E.CategoryScored(5, "black squares", 1, 1, 8, 8),
        E.CategoryScored(6, "bonus squares", 1, 1, 2, 1),
    ]


def test_switched_off_an_empty_category_still_scores_nothing():
    _, events = scoring_round([], [], rules=Rules(scoring_tie_nobody_scores=False))
    points = [(e.red_points, e.blue_points) for e in of_type(events, E.CategoryScored)]
    assert points == [(0, 0)] * 6


def test_a_tie_in_temple_4_scores_each_players_blue_squares_when_switched_off():
    rules = Rules(scoring_tie_nobody_scores=False)
    _, events = scoring_round([(4, 0), (1, 7), (2, 7)], [(4, 1), (4, 7)], rules=rules)
    assert of_type(events, E.CategoryScored)[3] == E.CategoryScored(4, "temple 4", 1, 2, 0, 3)
    _, events = scoring_round([(4, 0), (1, 7), (2, 7)], [(4, 7)], rules=rules)
    assert of_type(events, E.CategoryScored)[3] == E.CategoryScored(4, "temple 4", 1, 1, 6, 3)


# ---------------------------------------------------------------- dead_return_to_supply

def test_switched_off_the_dead_leave_the_game():
    rules = Rules(dead_return_to_supply=False)
    state, events = scoring_round(RED_STONES, BLUE_STONES, rules=rules)
    assert E.StonesReturned(18, 18, False) in events
    assert state.supply == [0, 0] and state.dead == [0, 0] and state.retired == [18, 18]
    assert state.stones[RED].bit_count() + state.retired[RED] == 29


# ---------------------------------------------------------------- equal_points_draw

def test_switched_off_equal_points_after_scoring_play_on():
    rules = Rules(equal_points_draw=False)
    state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(30, 35), rules=rules)
    assert state.scores == [47, 47]
    assert of_type(events, E.GameOver) == [] and state.phase is COMMIT and state.round == 2


def test_switched_off_the_next_points_at_cartouche_1_then_win():
    rules = Rules(equal_points_draw=False)
    state, _ = committed((2, 2, 1, 1), (1, 3, 1, 1), scores=(45, 45), rules=rules)
    assert state.phase is OVER and state.outcome() == Outcome(Termination.POINTS, RED)


def test_switched_off_unequal_points_still_end_the_game():
    rules = Rules(equal_points_draw=False)
    _state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(23, 20), rules=rules)
    assert events[-1] == E.GameOver(RED, Termination.SCORING, 40, 32)


# ---------------------------------------------------------------- max_rounds

def test_the_round_limit_ends_the_game_on_points():
    state, _ = start(hands(*[(2, 3, 4, 1)] * 9), hands(*[(1, 4, 3, 2)] * 9),
                     rules=Rules(max_rounds=2))
    play_round(state)
    assert state.round == 2 and state.phase is COMMIT
    events, _ = play_round(state)
    assert events[-1] == E.GameOver(RED, Termination.ROUND_LIMIT, 4, 0)
    assert state.phase is OVER and state.round == 2


def test_equal_points_at_the_round_limit_are_a_draw():
    state, _ = start(hands((2, 3, 4, 1)), hands((2, 4, 3, 1)), rules=Rules(max_rounds=1))
    events, _ = play_round(state)
    assert events[-1] == E.GameOver(None, Termination.ROUND_LIMIT, 0, 0)
    assert state.outcome() == Outcome(Termination.ROUND_LIMIT, None) and state.outcome().is_draw


def test_the_round_limit_comes_after_a_scoring_round_in_the_last_round():
    _state, events = scoring_round(RED_STONES, BLUE_STONES, rules=Rules(max_rounds=1))
    assert events[-2:] == [E.StonesReturned(18, 18, True), E.GameOver(RED, Termination.ROUND_LIMIT, 17, 12)]
