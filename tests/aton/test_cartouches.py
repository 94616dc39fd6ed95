"""Cartouche 1 (points, the 40-point win) and cartouche 2 (who plays first, wars)."""

from aton import BLUE, RED, Outcome, Termination
from aton import events as E
from aton.game import OVER, PLACE

from .engine_helpers import commit, deck_top_first, hands, of_type, start

# ---------------------------------------------------------------- cartouche 1: points

def test_higher_c1_scores_twice_the_difference_and_the_reveals_come_in_order():
    state, _ = start(red=(4, 1, 2, 3), blue=(1, 2, 3, 4))
    events = commit(state, (4, 1, 2, 3), (1, 2, 3, 4))
    assert events == [
        E.Committed(RED),
        E.Committed(BLUE),
        E.CardRevealed(RED, 1, 4),
        E.CardRevealed(BLUE, 1, 1),
        E.PointsScored(RED, 6, 4, 1, 6),
        E.CardRevealed(RED, 2, 1),
        E.CardRevealed(BLUE, 2, 2),
        E.TurnOrderDecided(RED, "cartouche2", 1, 2),
        E.CardRevealed(RED, 3, 2),
        E.CardRevealed(RED, 4, 3),
        E.TurnStarted(RED, 2, 0, 3),
        E.RemovalSkipped(RED, -1),
    ]
    assert state.scores == [6, 0]


def test_blue_can_score_too():
    state, _ = start(red=(2, 1, 3, 4), blue=(3, 2, 1, 4))
    events = commit(state, (2, 1, 3, 4), (3, 2, 1, 4))
    assert of_type(events, E.PointsScored) == [E.PointsScored(BLUE, 2, 3, 2, 2)]
    assert state.scores == [0, 2]


def test_equal_c1_cards_score_nothing():
    state, _ = start(red=(3, 1, 2, 4), blue=(3, 2, 1, 4))
    events = commit(state, (3, 1, 2, 4), (3, 2, 1, 4))
    assert of_type(events, E.PointsScored) == []
    assert state.scores == [0, 0]


def test_reaching_40_at_cartouche_1_wins_at_once():
    state, _ = start(red=(4, 1, 2, 3), blue=(2, 1, 3, 4))
    state.scores = [36, 39]
    events = commit(state, (4, 1, 2, 3), (2, 1, 3, 4))
    assert events == [
        E.Committed(RED),
        E.Committed(BLUE),
        E.CardRevealed(RED, 1, 4),
        E.CardRevealed(BLUE, 1, 2),
        E.PointsScored(RED, 4, 4, 2, 40),
        E.GameOver(RED, Termination.POINTS, 40, 39),
    ]
    assert state.phase is OVER and state.outcome() == Outcome(Termination.POINTS, RED)
    assert state.revealed == [1, 1]  # cartouche 2 is never turned up


def test_39_points_is_not_a_win():
    state, _ = start(red=(4, 1, 2, 3), blue=(3, 1, 2, 4))
    state.scores = [37, 0]
    commit(state, (4, 1, 2, 3), (3, 1, 2, 4))
    assert state.scores == [39, 0]
    assert state.phase is not OVER


def test_the_count_goes_past_40():
    state, _ = start(red=(1, 1, 2, 3), blue=(4, 1, 2, 3))
    state.scores = [0, 38]
    events = commit(state, (1, 1, 2, 3), (4, 1, 2, 3))
    assert events[-1] == E.GameOver(BLUE, Termination.POINTS, 0, 44)


# ---------------------------------------------------------------- cartouche 2: order

def test_the_lower_c2_plays_first():
    state, _ = start(red=(1, 4, 2, 3), blue=(1, 2, 3, 4))
    events = commit(state, (1, 4, 2, 3), (1, 2, 3, 4))
    assert of_type(events, E.TurnOrderDecided) == [E.TurnOrderDecided(BLUE, "cartouche2", 4, 2)]
    assert state.first == BLUE and state.active == BLUE


def test_on_a_c2_tie_the_lower_c1_plays_first():
    # red's higher C1 scores, but blue's lower C1 plays first
    state, _ = start(red=(4, 2, 1, 3), blue=(3, 2, 1, 4))
    events = commit(state, (4, 2, 1, 3), (3, 2, 1, 4))
    assert of_type(events, E.TurnOrderDecided) == [E.TurnOrderDecided(BLUE, "cartouche1", 4, 3)]
    assert state.active == BLUE


def test_a_war_turns_up_deck_tops_until_they_differ_then_puts_them_under_the_deck():
    # both hands (1, 2, 3, 4) tie C1 and C2; the next cards are the war cards
    red_deck = hands((1, 2, 3, 4), (4, 4, 2), (1, 1, 1, 1))
    blue_deck = hands((1, 2, 3, 4), (4, 3, 1), (2, 2, 2, 2))
    state, _ = start(red_deck, blue_deck)
    events = commit(state, (1, 2, 3, 4), (1, 2, 3, 4))
    war = events[events.index(E.CardRevealed(BLUE, 2, 2)) + 1:]
    assert war[:4] == [
        E.WarCardsTurned(4, 4),
        E.WarCardsTurned(4, 3),
        E.WarCardsReturned((4, 4), (4, 3)),
        E.TurnOrderDecided(BLUE, "war", 4, 3),
    ]
    # not drawn: the next hand is the cards after the war cards, which now lie at the bottom
    assert deck_top_first(state, RED) == [*red_deck[6:], 4, 4]
    assert deck_top_first(state, BLUE) == [*blue_deck[6:], 4, 3]
    assert deck_top_first(state, RED)[-2:] == red_deck[4:6]  # in the order turned up


def test_war_cards_return_in_the_order_they_were_turned_up():
    red_deck = hands((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 4))
    blue_deck = hands((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3))
    state, _ = start(red_deck, blue_deck)
    events = commit(state, (1, 2, 3, 4), (1, 2, 3, 4))
    turned = of_type(events, E.WarCardsTurned)
    assert [(e.red, e.blue) for e in turned] == [(1, 1), (2, 2), (3, 3), (4, 4), (1, 1), (2, 2),
                                                 (3, 3), (4, 4), (1, 1), (2, 2), (4, 3)]
    assert of_type(events, E.WarCardsReturned) == [
        E.WarCardsReturned((1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 4), (1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3))
    ]
    assert deck_top_first(state, RED) == red_deck[15:] + red_deck[4:15]
    assert state.first == BLUE


def test_the_round_goes_on_normally_after_a_war():
    state, _ = start(hands((1, 2, 3, 4), (2, 2, 2, 2)), hands((1, 2, 3, 4), (1, 1, 1, 1)))
    commit(state, (1, 2, 3, 4), (1, 2, 3, 4))
    assert state.phase is PLACE and state.active == BLUE


def test_a_deck_that_runs_out_during_a_war_is_refilled_from_the_discard_pile():
    state, _ = start(red=(1, 2, 3, 4), blue=(1, 2, 3, 4))
    # red's whole deck has gone to the discard pile (as after eight rounds)
    state.discard_public[RED] = deck_top_first(state, RED)
    state.decks[RED] = []
    events = commit(state, (1, 2, 3, 4), (1, 2, 3, 4))
    i = events.index(E.DeckShuffled(RED, 32))
    assert isinstance(events[i + 1], E.WarCardsTurned)
    assert len(state.decks[RED]) == 32 and state.discard_public[RED] == []


def test_when_deck_and_discard_are_both_empty_the_turned_up_war_cards_are_reshuffled():
    # identical decks tie all 32 remaining cards; then each player reshuffles their own
    # turned-up cards (their shuffles differ, so the war ends)
    same = hands((1, 2, 3, 4))
    state, _ = start(same, same)
    events = commit(state, (1, 2, 3, 4), (1, 2, 3, 4))
    shuffles = of_type(events, E.DeckShuffled)
    assert shuffles == [E.DeckShuffled(RED, 32), E.DeckShuffled(BLUE, 32)]
    first_shuffle = events.index(shuffles[0])
    assert len(of_type(events[:first_shuffle], E.WarCardsTurned)) == 32
    assert all(e.red == e.blue for e in of_type(events, E.WarCardsTurned)[:-1])
    returned = of_type(events, E.WarCardsReturned)[0]
    assert len(state.decks[RED]) == len(state.decks[BLUE]) == 32
    assert deck_top_first(state, RED)[-len(returned.red):] == list(returned.red)
    last = of_type(events, E.WarCardsTurned)[-1]
    assert of_type(events, E.TurnOrderDecided) == [
        E.TurnOrderDecided(RED if last.red < last.blue else BLUE, "war", last.red, last.blue)
    ]
