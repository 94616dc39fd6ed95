"""The end of a game as one value: ``GameState.outcome()`` gives ``Outcome(termination, winner)``."""

import pytest

from aton import BLUE, PLAYERS, RED, Outcome, Place, Resign, Rules, Termination, apply
from aton import events as E
from aton.outcome import FORFEITS

from .engine_helpers import (
    BLUE_STONES,
    RED_STONES,
    commit,
    committed,
    hands,
    play,
    play_round,
    scoring_round,
    squares_of,
    start,
)

YELLOW = (squares_of(1, 0, 1, 2, 3) + squares_of(2, 0, 1, 2, 3)
          + squares_of(3, 0, 1, 2) + squares_of(4, 0, 1, 2))
GREEN = (squares_of(1, 8, 9, 10, 11) + squares_of(2, 8, 9, 10, 11)
         + squares_of(3, 8, 9, 10) + squares_of(4, 8, 9, 10))


def _all_but(squares, missing):
    return [sq for sq in squares if sq != missing]


def _points():
    state, _ = start(red=(4, 1, 2, 3), blue=(2, 1, 3, 4))
    state.scores = [36, 39]
    return state, commit(state, (4, 1, 2, 3), (2, 1, 3, 4))


def _area(stones, last):
    def end():
        state, _ = committed((1, 2, 4, 1), (2, 4, 1, 1), red_stones=_all_but(stones, last))
        return state, play(state, (RED, Place(*last)))
    return end


def _scoring():
    return scoring_round(RED_STONES, BLUE_STONES, scores=(23, 20))


def _round_limit():
    state, _ = start(hands((2, 3, 4, 1)), hands((1, 4, 3, 2)), rules=Rules(max_rounds=1))
    return state, play_round(state)[0]


def _resign():
    state, _ = start(red=(1, 2, 3, 4), blue=(1, 2, 3, 4))
    return state, play(state, (BLUE, Resign()))


def _forfeit(termination):
    def end():
        state, _ = start()
        events: list = []
        state.forfeit(BLUE, termination, events)
        return state, events
    return end


#: every way a game ends, and the outcome it must give
ENDINGS = {
    Termination.POINTS: (_points, RED),
    Termination.TEMPLE: (_area(squares_of(3), (3, 5)), RED),
    Termination.YELLOW: (_area(YELLOW, (4, 0)), RED),
    Termination.GREEN: (_area(GREEN, (2, 9)), RED),
    Termination.SCORING: (_scoring, RED),
    Termination.ROUND_LIMIT: (_round_limit, RED),
    Termination.RESIGN: (_resign, RED),
    Termination.TIME: (_forfeit(Termination.TIME), RED),
    Termination.ABANDONED: (_forfeit(Termination.ABANDONED), RED),
}


def test_every_termination_has_a_way_to_be_reached():
    assert set(ENDINGS) == set(Termination)


@pytest.mark.parametrize("termination", list(Termination), ids=str)
def test_every_termination_is_reached_and_reported_once(termination):
    end, winner = ENDINGS[termination]
    state, events = end()
    assert state.is_over and state.outcome() == Outcome(termination, winner)
    over = [e for e in events if isinstance(e, E.GameOver)]
    assert len(over) == 1 and over[0] is events[-1]
    assert over[0].outcome == state.outcome()
    assert over[0].to_dict()["reason"] == termination.value and type(over[0].to_dict()["reason"]) is str


def test_the_outcome_is_none_while_the_game_goes_on_and_survives_a_copy():
    state, _ = start(red=(1, 2, 3, 4), blue=(1, 2, 3, 4))
    assert state.outcome() is None
    ended, _ = apply(state, BLUE, Resign())
    assert state.outcome() is None and ended.outcome() == ended.copy().outcome() == Outcome(Termination.RESIGN, RED)


@pytest.mark.parametrize("termination", [Termination.SCORING, Termination.ROUND_LIMIT], ids=str)
def test_equal_points_at_the_end_are_a_draw_without_a_winner(termination):
    if termination is Termination.SCORING:
        state, events = scoring_round(RED_STONES, BLUE_STONES, scores=(30, 35))
    else:
        state, _ = start(hands((2, 3, 4, 1)), hands((2, 4, 3, 1)), rules=Rules(max_rounds=1))
        events, _ = play_round(state)
    outcome = state.outcome()
    assert outcome == Outcome(termination, None) and outcome.winner is None and outcome.is_draw
    assert events[-1] == E.GameOver(None, termination, *state.scores)
    assert outcome.to_dict() == {"winner": "draw", "reason": termination.value}


def test_the_forfeits_are_resigning_time_and_abandoning():
    assert {Termination.RESIGN, Termination.TIME, Termination.ABANDONED} == FORFEITS
    assert [t for t in Termination if t.is_forfeit] == [Termination.RESIGN, Termination.TIME, Termination.ABANDONED]


@pytest.mark.parametrize("loser", PLAYERS, ids=str)
@pytest.mark.parametrize("termination", sorted(FORFEITS), ids=str)
def test_a_forfeit_gives_the_game_to_the_other_player(termination, loser):
    state, _ = start()
    events: list = []
    state.forfeit(loser, termination, events)
    assert state.outcome() == Outcome(termination, loser.other) and not state.outcome().is_draw
    resigned = [E.Resigned(loser)] if termination is Termination.RESIGN else []
    assert events == [*resigned, E.GameOver(loser.other, termination, 0, 0)]


def test_resigning_by_move_and_by_forfeit_are_the_same():
    by_move, _ = start(red=(1, 2, 3, 4), blue=(1, 2, 3, 4))
    by_forfeit = by_move.copy()
    move_events = play(by_move, (RED, Resign()))
    forfeit_events: list = []
    by_forfeit.forfeit(RED, Termination.RESIGN, forfeit_events)
    assert move_events == forfeit_events and by_move.outcome() == by_forfeit.outcome()


@pytest.mark.parametrize("termination", sorted(set(Termination) - FORFEITS), ids=str)
def test_only_a_forfeit_can_be_forfeited(termination):
    state, _ = start()
    with pytest.raises(ValueError, match="not a forfeit"):
        state.forfeit(RED, termination)
    assert state.outcome() is None and not state.is_over


def test_the_reasons_are_the_strings_of_the_wire_and_the_records():
    assert [t.value for t in Termination] == [
        "points", "temple", "yellow", "green", "scoring", "round_limit", "resign", "time", "abandoned"]
    assert str(Termination.ROUND_LIMIT) == f"{Termination.ROUND_LIMIT}" == "round_limit"


@pytest.mark.parametrize("winner", [RED, BLUE, None], ids=str)
@pytest.mark.parametrize("termination", list(Termination), ids=str)
def test_an_outcome_goes_to_its_plain_form_and_back(termination, winner):
    outcome = Outcome(termination, winner)
    plain = outcome.to_dict()
    assert plain == {"winner": "draw" if winner is None else str(winner), "reason": termination.value}
    assert Outcome.from_dict(plain) == outcome


@pytest.mark.parametrize("plain", [
    {"winner": "red", "reason": "bored"},
    {"winner": "green", "reason": "time"},
    {"winner": None, "reason": "time"},
    {"reason": "time"},
])
def test_a_malformed_outcome_is_refused(plain):
    with pytest.raises(ValueError):
        Outcome.from_dict(plain)
