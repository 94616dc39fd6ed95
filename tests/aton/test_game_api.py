"""The engine's API: pending decisions, legal moves, apply/play/copy, resign and forfeit."""

from aton import (
    BLUE,
    RED,
    Commit,
    Exchange,
    Move,
    Outcome,
    Place,
    Player,
    Remove,
    Resign,
    Termination,
    apply,
    move_from_dict,
)
from aton import events as E
from aton.game import OVER, decision_sentence
from aton.moves import commit_moves

from .engine_helpers import committed, play, position, snapshot, start


def test_both_players_decide_during_the_commit_then_one_at_a_time():
    state, _ = start(red=(1, 2, 1, 1), blue=(2, 4, 1, 1))
    assert state.pending() == (RED, BLUE)
    play(state, (BLUE, Commit((2, 4, 1, 1))))
    assert state.pending() == (RED,)
    play(state, (RED, Commit((1, 2, 1, 1))))
    assert state.pending() == (RED,) and state.active == RED


def test_the_legal_moves_of_the_commit_phase():
    state, _ = start(red=(1, 2, 2, 1), blue=(3, 3, 3, 3))
    red = state.legal_moves(RED)
    assert red[-2:] == [Exchange(), Resign()]
    assert red[:-2] == [Commit(p) for p in [
        (1, 1, 2, 2), (1, 2, 1, 2), (1, 2, 2, 1), (2, 1, 1, 2), (2, 1, 2, 1), (2, 2, 1, 1)]]
    assert state.legal_moves(BLUE) == [Commit((3, 3, 3, 3)), Exchange(), Resign()]
    assert state.legal_moves(BLUE, resign=False) == [Commit((3, 3, 3, 3)), Exchange()]
    assert len(commit_moves((1, 2, 3, 4))) == 24
    play(state, (RED, Commit((1, 2, 2, 1))))
    assert state.legal_moves(RED) == [Resign()]


def test_the_player_not_to_move_may_only_resign():
    state, _ = committed((1, 2, 1, 2), (2, 4, 1, 1))
    assert state.legal_moves(BLUE) == [Resign()]
    assert state.legal_moves(RED, resign=False) == [Place(1, s) for s in range(12)]


def test_resigning_ends_the_game_for_the_other_player_at_any_time():
    state, _ = committed((1, 2, 1, 2), (2, 4, 1, 1))
    events = play(state, (BLUE, Resign()))  # not blue's decision: resigning is always allowed
    assert events == [E.Resigned(BLUE), E.GameOver(RED, Termination.RESIGN, 0, 2)]
    assert state.phase is OVER and state.outcome() == Outcome(Termination.RESIGN, RED)
    assert state.pending() == () and state.legal_moves(RED) == []


def test_a_forfeit_ends_the_game_with_the_reason_given():
    state, _ = start()
    events: list[E.Event] = []
    state.forfeit(RED, Termination.TIME, events)
    assert events == [E.GameOver(BLUE, Termination.TIME, 0, 0)]
    assert state.outcome() == Outcome(Termination.TIME, BLUE)


def test_apply_returns_a_new_state_and_leaves_the_old_one_alone():
    state, _ = start(red=(1, 2, 1, 2), blue=(2, 4, 1, 1))
    before = snapshot(state)
    new, events = apply(state, RED, Commit((1, 2, 1, 2)))
    assert events == [E.Committed(RED)]
    assert snapshot(state) == before
    assert new.cartouches[RED] == (1, 2, 1, 2) and state.cartouches[RED] is None


def test_play_and_apply_agree():
    state = position((1, 2, 1, 2), (2, 4, 1, 1))
    moves: list[tuple[Player, Move]] = [(RED, Commit((1, 2, 1, 2))), (BLUE, Commit((2, 4, 1, 1))),
             (RED, Place(1, 0)), (RED, Place(1, 1)), (BLUE, Remove(1, 1)), (BLUE, Remove(1, 0)),
             (BLUE, Place(1, 4))]
    applied, applied_events = state, []
    for player, move in moves:
        applied, events = apply(applied, player, move)
        applied_events += events
    played = state.copy()
    assert play(played, *moves) == applied_events
    assert snapshot(played) == snapshot(applied)
    assert played.round == 3


def test_a_copy_is_independent():
    state, _ = committed((1, 2, 1, 2), (2, 4, 1, 1))
    copy = state.copy()
    before = snapshot(state)
    play(copy, (RED, Place(1, 0)), (RED, Place(1, 1)), (BLUE, Remove(1, 0)))
    assert snapshot(state) == before
    assert snapshot(copy) != before


def test_the_decision_in_one_sentence():
    state, _ = committed((1, 4, 3, 2), (2, 4, 1, 1), blue_stones=[(1, 0), (2, 0)])
    assert decision_sentence(state, RED) == "Remove 2 of Blue's stones from temples 1–3"
    assert decision_sentence(state, BLUE) is None
    play(state, (RED, Remove(1, 0)))
    assert decision_sentence(state, RED) == "Remove 1 of Blue's stones from temples 1–3"
    play(state, (RED, Remove(2, 0)))
    assert decision_sentence(state, RED) == "Place 2 stones in temples 1–3"
    state, _ = committed((1, 1, 1, 1), (2, 4, 1, 1), red_stones=[(1, 0)])
    assert decision_sentence(state, RED) == "Remove one of your own stones from temple 1"
    state, _ = start()
    assert decision_sentence(state, RED) == "Put one card on each of your four cartouches"


def test_moves_round_trip_through_their_dict_form():
    moves: list[Move] = [Commit((1, 2, 3, 4)), Exchange(), Resign(), Place(4, 11), Remove(1, 0)]
    for move in moves:
        assert move_from_dict(move.to_dict()) == move
    assert Place(2, 3).to_dict() == {"move": "place", "temple": 2, "square": 3}
    assert Commit((4, 1, 2, 3)).to_dict() == {"move": "commit", "cards": [4, 1, 2, 3]}
