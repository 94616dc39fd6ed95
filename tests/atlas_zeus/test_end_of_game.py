"""§7 end of game: last survivor, both at once = draw, max_rounds, resigning and forfeits."""

import pytest

from atlas_zeus import BLUE, RED, Card, Harpoon, IllegalMove, Outcome, Resign, Termination, new_game, view
from atlas_zeus.events import GameOver
from atlas_zeus.game import Phase
from atlas_zeus.options import Options

from .helpers import of, play, position, resolve


def test_the_last_survivor_wins():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.HARPOON)})
    resolve(state)
    events = play(state, RED, Harpoon("B1"))
    assert of(events, GameOver) == [GameOver(RED, Termination.ELIMINATED)]
    assert state.outcome() == Outcome(Termination.ELIMINATED, RED)
    assert state.pending() == () and state.phase is Phase.OVER and state.is_over


def test_both_clans_sinking_together_is_a_draw():
    state = position({"R1": 5, "B1": 5}, flood=5, track={1: (RED, Card.WEAKNESS)})
    resolve(state)
    assert state.outcome() == Outcome(Termination.BOTH_ELIMINATED, None)
    assert state.outcome().to_dict() == {"winner": "draw", "reason": "both_eliminated"}  # type: ignore[union-attr]


def test_max_rounds_passed_is_a_draw_checked_after_the_end_of_round():
    """§11.17: the round limit is checked after the sinking, the draw and the initiative."""
    state = position({"R1": 2, "B1": 3}, flood=16, round=2, track={1: (RED, Card.WEAKNESS)},
                     options=Options(max_rounds=2))
    events = resolve(state)
    kinds = [e.kind for e in events]
    assert kinds.index("cards_drawn") < kinds.index("initiative_passed") < kinds.index("game_over")
    assert state.outcome() == Outcome(Termination.ROUND_LIMIT, None)


def test_a_default_game_ends_by_round_16():
    for seed in range(10):
        state = new_game(seed)
        while not state.is_over:
            (player,) = state.pending()
            state.play(player, state.legal_moves(player)[0])
        assert state.round <= 16 and state.outcome().termination is not Termination.ROUND_LIMIT  # type: ignore[union-attr]


def test_resign_loses_at_any_time_by_either_player():
    state = new_game(1)
    waiting = state.pending()[0].other
    events = play(state, waiting, Resign())
    assert state.outcome() == Outcome(Termination.RESIGN, waiting.other)
    assert of(events, GameOver)[0].to_dict() == {"type": "game_over", "winner": str(waiting.other),
                                                 "reason": "resign"}
    with pytest.raises(IllegalMove, match="The game is over"):
        state.check(waiting.other, Resign())


def test_forfeit_on_time():
    state = new_game(1)
    state.forfeit(BLUE, Termination.TIME)
    assert state.outcome() == Outcome(Termination.TIME, RED)
    assert view(state, None).outcome == Outcome(Termination.TIME, RED)
    assert state.legal_moves(RED) == [] and state.decision(RED) is None
