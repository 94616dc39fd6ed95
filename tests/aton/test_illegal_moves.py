"""Illegal moves of every kind: one error type, a message in a player's words, no change."""

import pytest

from aton import BLUE, RED, Commit, Exchange, IllegalMove, Place, Remove, Resign, Termination, apply
from aton.game import COMMIT, PLACE, REMOVE

from .engine_helpers import assert_illegal, committed, play, snapshot, start

BLUE_STONES = [(1, 0), (3, 5), (4, 0)]


@pytest.fixture
def commit_phase():
    """Round 1: red holds 4, 3, 2, 1 (sorted: 1, 2, 3, 4), blue 1, 1, 2, 2."""
    state, _ = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    return state


@pytest.fixture
def red_removes():
    """Round 2, red first (C2 tied, lower C1) with range 3: red removes two blue stones."""
    state, _ = committed((1, 4, 3, 2), (2, 4, 1, 1), blue_stones=BLUE_STONES, red_stones=[(2, 2)])
    assert state.phase is REMOVE and state.active == RED
    return state


@pytest.fixture
def red_places():
    """Round 2, red to place 2 stones in temples 1-2; blue's stone stands on (1, 0)."""
    state, _ = committed((1, 2, 2, 2), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert state.phase is PLACE and state.active == RED
    return state


@pytest.fixture
def game_over():
    state, _ = start(red=(1, 2, 3, 4), blue=(1, 2, 3, 4))
    play(state, (BLUE, Resign()))
    return state


# ---------------------------------------------------------------- the messages of the issue

def test_a_temple_outside_the_range(red_places):
    assert_illegal(red_places, RED, Place(4, 1),
                   "temple 4 is outside your range (cartouche 3 shows 2)")


def test_a_temple_outside_the_range_for_a_removal(red_removes):
    assert_illegal(red_removes, RED, Remove(4, 0),
                   "temple 4 is outside your range (cartouche 3 shows 3)")


def test_an_occupied_square():
    state, _ = committed((1, 2, 3, 2), (2, 4, 1, 1), blue_stones=BLUE_STONES)
    assert_illegal(state, RED, Place(3, 5), "square 5 of temple 3 is occupied")


def test_an_own_stone_is_an_occupied_square_too(red_places):
    play(red_places, (RED, Place(2, 3)))
    assert_illegal(red_places, RED, Place(2, 3), "square 3 of temple 2 is occupied")


def test_the_wrong_player_places(red_places):
    assert_illegal(red_places, BLUE, Place(2, 3), "it is red's decision, not blue's")


def test_the_wrong_player_removes():
    state, _ = committed((2, 4, 1, 1), (1, 4, 3, 2), red_stones=[(1, 0)])
    assert state.active == BLUE
    assert_illegal(state, RED, Remove(1, 0), "it is blue's decision, not red's")


def test_a_commit_that_is_not_a_permutation_of_the_hand(commit_phase):
    assert_illegal(commit_phase, RED, Commit((1, 1, 2, 3)),
                   "[1, 1, 2, 3] is not a permutation of your hand [1, 2, 3, 4]")


@pytest.mark.parametrize("cards", [(1, 2, 3), (1, 2, 3, 4, 4), (1, 2, 3, 5), ()])
def test_a_commit_of_the_wrong_cards_or_number_of_cards(commit_phase, cards):
    assert_illegal(commit_phase, RED, Commit(cards),
                   f"{list(cards)} is not a permutation of your hand [1, 2, 3, 4]")


# ---------------------------------------------------------------- the commit phase

def test_a_second_commit(commit_phase):
    play(commit_phase, (RED, Commit((1, 2, 3, 4))))
    assert_illegal(commit_phase, RED, Commit((1, 2, 3, 4)), "you have already committed this round")


def test_a_second_exchange(commit_phase):
    play(commit_phase, (RED, Exchange()))
    assert_illegal(commit_phase, RED, Exchange(), "you have already used your exchange token")


def test_an_exchange_after_the_commit(commit_phase):
    play(commit_phase, (RED, Commit((1, 2, 3, 4))))
    assert_illegal(commit_phase, RED, Exchange(), "you have already committed this round")


@pytest.mark.parametrize("move", [Place(1, 0), Remove(1, 0)])
def test_a_square_move_in_the_commit_phase(commit_phase, move):
    assert_illegal(commit_phase, RED, move,
                   "it is the commit phase: put your four cards on the cartouches first")


# ---------------------------------------------------------------- moves in the wrong phase

def test_a_commit_during_a_turn(red_places):
    assert_illegal(red_places, RED, Commit((1, 2, 2, 2)),
                   "committing cards is only possible in the commit phase; "
                   "it is red's decision to place a stone")


def test_an_exchange_during_a_turn(red_removes):
    assert_illegal(red_removes, BLUE, Exchange(),
                   "the exchange is only possible in the commit phase; "
                   "it is red's decision to remove a stone")


def test_a_placement_before_the_removal(red_removes):
    assert_illegal(red_removes, RED, Place(1, 5), "you must remove a stone before placing")


def test_a_removal_after_the_removal(red_places):
    assert_illegal(red_places, RED, Remove(1, 0), "the removal is over: place a stone")


# ---------------------------------------------------------------- removing the wrong stone

def test_removing_an_empty_square(red_removes):
    assert_illegal(red_removes, RED, Remove(1, 3),
                   "square 3 of temple 1 holds none of blue's stones")


def test_removing_ones_own_stone_instead_of_the_opponents(red_removes):
    assert_illegal(red_removes, RED, Remove(2, 2),
                   "square 2 of temple 2 holds none of blue's stones")


def test_removing_an_opponents_stone_instead_of_ones_own():
    state, _ = committed((1, 1, 3, 2), (2, 4, 1, 1), blue_stones=BLUE_STONES, red_stones=[(2, 2)])
    assert state.phase is REMOVE and state.target == RED
    assert_illegal(state, RED, Remove(1, 0), "square 0 of temple 1 holds none of your own stones")


# ---------------------------------------------------------------- squares that do not exist

@pytest.mark.parametrize("move, message", [
    (Place(5, 0), "there is no square 0 in temple 5 (temples 1–4, squares 0–11)"),
    (Place(1, 12), "there is no square 12 in temple 1 (temples 1–4, squares 0–11)"),
    (Place(0, -1), "there is no square -1 in temple 0 (temples 1–4, squares 0–11)"),
    (Place("1", 0),  # type: ignore[arg-type]  # a wrong type on purpose: the engine must refuse it
     "there is no square 0 in temple '1' (temples 1–4, squares 0–11)"),
])
def test_a_square_that_does_not_exist(red_places, move, message):
    assert_illegal(red_places, RED, move, message)


def test_a_removal_on_a_square_that_does_not_exist(red_removes):
    assert_illegal(red_removes, RED, Remove(1, 12),
                   "there is no square 12 in temple 1 (temples 1–4, squares 0–11)")


def test_something_that_is_not_a_move(commit_phase):
    assert_illegal(commit_phase, RED, "commit", "unknown move 'commit'")


# ---------------------------------------------------------------- after the end

@pytest.mark.parametrize("player, move", [
    (RED, Commit((1, 2, 3, 4))),
    (RED, Exchange()),
    (RED, Place(1, 0)),
    (RED, Remove(1, 0)),
    (RED, Resign()),
    (BLUE, Resign()),
])
def test_any_move_after_the_game_is_over(game_over, player, move):
    assert_illegal(game_over, player, move, "the game is over")


def test_no_forfeit_after_the_game_is_over(game_over):
    before = snapshot(game_over)
    with pytest.raises(IllegalMove, match=r"^the game is over$"):
        game_over.forfeit(RED, Termination.TIME)
    assert snapshot(game_over) == before


# ---------------------------------------------------------------- apply

def test_apply_raises_the_same_error_and_leaves_the_state_alone(red_places):
    before = snapshot(red_places)
    with pytest.raises(IllegalMove, match=r"^square 0 of temple 1 is occupied$"):
        apply(red_places, RED, Place(1, 0))
    assert snapshot(red_places) == before


def test_every_illegal_move_is_missing_from_the_legal_moves(red_places, red_removes, commit_phase):
    for state in (red_places, red_removes, commit_phase):
        for player in (RED, BLUE):
            legal = state.legal_moves(player)
            for move in [Place(t, s) for t in range(1, 5) for s in range(12)] + \
                    [Remove(t, s) for t in range(1, 5) for s in range(12)]:
                if move in legal:
                    apply(state, player, move)
                else:
                    with pytest.raises(IllegalMove):
                        apply(state, player, move)
    assert commit_phase.phase is COMMIT
