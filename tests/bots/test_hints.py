"""bots.hints: the search bot's suggestion and one line of why, on positions built for it.

The search runs a fixed number of evaluations with a fixed seed: the same hint on any
machine, and no test waits for a time."""

from __future__ import annotations

from aton import BLUE, RED, Commit, Place
from aton.game import PLACE
from aton.views import view
from bots.evaluation import evaluate, evaluation_terms
from bots.hints import Hint, hint
from tests.aton.engine_helpers import commit, play_round, position, put_stones, squares_of, start

ITERATIONS = 200  # enough for these positions; a hint in play uses HINT_ITERATIONS


def red_places_one(red_stones, blue_stones, *, range_: int):
    """Red to place one stone in temples 1..``range_`` in round 2; blue then places one stone in
    any temple (both play cartouche 2 = 2: nobody removes; red first by the lower cartouche 1)."""
    red, blue = (2, 2, range_, 1), (3, 2, 4, 1)
    state = position(red, blue, red_stones=red_stones, blue_stones=blue_stones)
    commit(state, red, blue)
    assert state.phase is PLACE and state.active is RED and state.remaining == 1
    return state


def test_a_placement_in_temple_1_is_explained_by_temple_1s_majority():
    # temple 1 holds 4 stones of each player, temple 2 five; their yellow squares are the only
    # ones empty: red's stone decides a majority, and blue's answer may take the other
    red = squares_of(2, 2, 3, 6, 7, 8) + squares_of(1, 4, 6, 8, 9)
    blue = squares_of(2, 4, 5, 9, 10, 11) + squares_of(1, 5, 7, 10, 11)
    state = red_places_one(red, blue, range_=2)
    suggestion = hint(view(state, RED), seed=1, iterations=ITERATIONS)
    assert isinstance(suggestion.move, Place) and suggestion.move.temple == 1
    assert suggestion.term == "temple 1"
    assert suggestion.reason == "temple 1 majority: yours by 1 (even after a yellow square in temple 2)"
    assert suggestion.headline == "temple 1 majority: yours by 1"
    assert suggestion.alternative == Place(2, 0)


def test_a_stone_on_the_last_green_square_blocks_blues_green_squares():
    greens = [(t, s) for t in (1, 2, 3, 4) for s in (8, 9, 10, 11) if (t, s) not in ((3, 11), (4, 11))]
    blue_greens = [sq for sq in greens if sq != (4, 10)]  # 12 of blue's, one green left empty
    state = red_places_one([(1, 0)], blue_greens, range_=4)
    suggestion = hint(view(state, RED), seed=2, iterations=ITERATIONS)
    assert suggestion.move == Place(4, 10)
    assert suggestion.term == "their green"
    assert suggestion.headline == "blocks Blue's green squares: 1 of your stones in the way"


def test_four_on_cartouche_1_is_explained_by_its_points_when_nothing_else_can_happen():
    # no stone anywhere and no supply: the round can change only the points (cartouche 1)
    state = position((4, 1, 1, 1), (2, 2, 2, 2), dead=(29, 29))
    state.exchange_used[RED] = True
    suggestion = hint(view(state, RED), seed=3, iterations=ITERATIONS)
    assert isinstance(suggestion.move, Commit) and suggestion.move.cards[0] == 4
    assert suggestion.term == "points"
    assert suggestion.headline.startswith("4 on cartouche 1: +")
    assert suggestion.headline.endswith(" against Blue, on average")
    assert suggestion.reason.endswith(", on average after the round")


def test_a_hint_is_the_same_for_the_same_view_and_seed():
    state, _ = start(seed=5)
    play_round(state)
    seen = view(state, BLUE)
    first = hint(seen, seed=9, iterations=ITERATIONS)
    assert isinstance(first, Hint) and first.reason
    assert hint(seen, seed=9, iterations=ITERATIONS) == first


def test_a_hint_uses_only_the_players_view_not_the_opponents_hidden_cards():
    """Two games that differ only in cards red cannot see (blue's hand, sealed commitment and
    deck): red's views are the same, and so are red's hints."""
    hints = []
    for blue_hand in ((4, 4, 1, 1), (1, 2, 3, 3)):
        state, _ = start(red=(2, 3, 4, 1), blue=blue_hand, seed=11)
        state.play(BLUE, Commit(blue_hand))  # sealed: red sees only that blue has committed
        hints.append((view(state, RED), hint(view(state, RED), seed=4, iterations=ITERATIONS)))
    (red_view_a, hint_a), (red_view_b, hint_b) = hints
    assert red_view_a == red_view_b
    assert hint_a == hint_b


def test_a_decision_with_one_kind_of_square_says_any_one_does():
    state = red_places_one([], [], range_=1)
    taken = [(1, s) for s in range(12) if s not in (8, 9)]  # only two green squares of temple 1 left
    put_stones(state, BLUE, taken)
    suggestion = hint(view(state, RED), seed=1, iterations=ITERATIONS)
    assert suggestion.move in (Place(1, 8), Place(1, 9))
    assert suggestion.term is None
    assert suggestion.reason == "every square you may choose is a green square in temple 1: any one does the same"


def test_the_evaluation_is_the_sum_of_its_terms():
    for seed in range(30):
        state, _ = start(seed=seed)
        for _ in range(seed % 6 + 1):
            if state.is_over:
                break
            play_round(state)
        for player in (RED, BLUE):
            terms = evaluation_terms(state, player)
            assert abs(sum(terms.values()) - evaluate(state, player)) < 1e-9
