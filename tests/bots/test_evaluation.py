"""bots.evaluation: the class deltas are exact differences of the board value, and the
fast square picker agrees with them."""

from __future__ import annotations

import random

from aton import BLUE, RED, Termination
from aton.game import PLACE, REMOVE, new_game
from bots.evaluation import CLASS_MASKS, board_value, class_deltas, evaluate, greedy_square, win_probability


def _boards(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        own = opp = 0
        for i in rng.sample(range(48), rng.randrange(0, 40)):
            if rng.random() < 0.5:
                own |= 1 << i
            else:
                opp |= 1 << i
        yield own, opp


def _class_of(index: int) -> int:
    return next(c for c, mask in enumerate(CLASS_MASKS) if mask >> index & 1)


def test_the_board_value_is_zero_sum():
    for own, opp in _boards(200, 1):
        assert abs(board_value(own, opp) + board_value(opp, own)) < 1e-9


def test_class_deltas_are_differences_of_the_board_value():
    for own, opp in _boards(200, 2):
        add = class_deltas(own, opp, 1)
        remove = class_deltas(own, opp, -1)
        base = board_value(own, opp)
        for i in range(48):
            bit = 1 << i
            if not (own | opp) & bit:
                assert abs(board_value(own | bit, opp) - base - add[_class_of(i)]) < 1e-9
            elif own & bit:
                assert abs(board_value(own ^ bit, opp) - base - remove[_class_of(i)]) < 1e-9


def test_the_fast_square_picker_chooses_a_best_class():
    rng = random.Random(3)
    checked = 0
    for g in range(40):
        state, _ = new_game(g)
        while not state.is_over:
            if state.phase in (PLACE, REMOVE):
                index = greedy_square(state)
                legal = state.legal_mask()
                assert legal >> index & 1
                active = state.active
                assert active is not None
                if state.phase is PLACE:
                    deltas = class_deltas(state.stones[active], state.stones[active.other], 1)
                    sign = 1.0
                else:
                    target = state.target
                    deltas = class_deltas(state.stones[target], state.stones[target.other], -1)
                    sign = 1.0 if target is active else -1.0
                best = max(sign * deltas[c] for c in range(20) if legal & CLASS_MASKS[c])
                assert abs(sign * deltas[_class_of(index)] - best) < 1e-9
                checked += 1
            player = state.pending()[0]
            moves = state.legal_moves(player, resign=False)
            state.play(player, rng.choice(moves))
    assert checked > 500


def test_finished_games_evaluate_to_their_result():
    state, _ = new_game(1)
    state.forfeit(RED, Termination.TIME)
    assert evaluate(state, BLUE) > 100 > -100 > evaluate(state, RED)
    assert win_probability(state, BLUE) == 1.0 and win_probability(state, RED) == 0.0
    fresh, _ = new_game(2)
    assert evaluate(fresh, RED) == 0.0 and win_probability(fresh, BLUE) == 0.5
