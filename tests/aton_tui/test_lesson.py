"""The lesson's script (aton_tui/lesson.py), played through the engine: it still meets every rule it teaches.

A change of the rules or of a move of the script that breaks the lesson fails here, naming
the rule the lesson no longer shows."""

from __future__ import annotations

import textwrap

import pytest

from aton import events as E
from aton.board import TEMPLE_MASK
from aton.moves import Commit, Place, Remove
from aton.players import BLUE, RED, Player
from aton_tui.guided_game import GuidedGame, ScriptBroken
from aton_tui.lesson import DECKS, LEARNER, STEPS, Step, correction
from aton_tui.sizes import MINIMUM
from protocol import events as A
from protocol.game_frames import GameEvent


def play_the_lesson() -> tuple[GuidedGame, list[GameEvent]]:
    """The whole script, the learner's moves as expected; every event the learner received."""
    game = GuidedGame("Ada")
    while not game.finished:
        game.play(game.expected[0])
    return game, [n.event for n in game.log]


def turns(events: list) -> list[tuple[E.TurnStarted, list]]:
    """Each turn with the events of it (up to the next turn or round)."""
    found: list[tuple[E.TurnStarted, list]] = []
    for event in events:
        if isinstance(event, E.TurnStarted):
            found.append((event, []))
        elif isinstance(event, E.RoundStarted):
            found.append((None, []))  # type: ignore[arg-type]
        elif found:
            found[-1][1].append(event)
    return [(turn, inside) for turn, inside in found if turn is not None]


def test_the_decks_are_whole_decks_and_the_script_plays_to_its_end_without_a_game_over():
    game, events = play_the_lesson()
    assert all(sorted(deck) == sorted(DECKS[RED]) for deck in DECKS)
    assert game.state.round == 6 and not game.state.is_over
    assert not any(isinstance(e, E.GameOver) for e in events)
    assert game.step is STEPS[-1] and not game.step.moves  # the last step: words only


def test_cartouche_1_scores_twice_the_difference_for_either_player():
    _, events = play_the_lesson()
    scored = [(e.player, e.points, e.higher, e.lower) for e in events if isinstance(e, E.PointsScored)]
    assert scored[0] == (RED, 6, 4, 1)  # round 1: the learner's 4 against 1
    assert (BLUE, 2, 2, 1) in scored


def test_the_order_by_cartouche_2_and_a_war_of_deck_cards():
    _, events = play_the_lesson()
    orders = [e for e in events if isinstance(e, E.TurnOrderDecided)]
    assert orders[0].reason == "cartouche2" and orders[0].first is RED
    assert any(o.reason == "cartouche2" and o.first is BLUE for o in orders)
    war = next(o for o in orders if o.reason == "war")
    assert (war.red, war.blue, war.first) == (1, 4, RED)
    turned = [e for e in events if isinstance(e, E.WarCardsTurned)]
    assert [(t.red, t.blue) for t in turned] == [(1, 4)]
    assert any(isinstance(e, E.WarCardsReturned) for e in events)


def test_nobody_removes_in_round_1_though_cartouche_2_says_own_and_two():
    _, events = play_the_lesson()
    skipped = {(e.player, e.would_remove) for e in events if isinstance(e, E.RemovalSkipped)}
    assert skipped == {(RED, -1), (BLUE, 2)}


def test_removals_of_two_one_and_own_stones():
    _, events = play_the_lesson()
    removed: dict[tuple[Player, object], int] = {}
    for turn, inside in turns(events):
        stones = [e for e in inside if isinstance(e, E.StoneRemoved)]
        if stones:
            own = all(s.owner is turn.player for s in stones)
            removed.setdefault((turn.player, "own" if own else len(stones)), 0)
    assert (RED, 2) in removed  # the learner takes two
    assert (BLUE, 1) in removed
    assert (RED, "own") in removed and (BLUE, "own") in removed


def test_the_range_of_cartouche_3_bounds_every_placement_and_a_range_of_1_is_met():
    _, events = play_the_lesson()
    ranges = set()
    for turn, inside in turns(events):
        ranges.add(turn.range)
        for e in inside:
            if isinstance(e, (E.StonePlaced, E.StoneRemoved)):
                assert e.temple <= turn.range
    assert {1, 2} <= ranges


def test_a_placement_overflows_into_the_kingdom_and_a_scoring_round_follows_category_by_category():
    _, events = play_the_lesson()
    overflow = [e for e in events if isinstance(e, E.StonesToKingdom)]
    assert [(e.player, e.count) for e in overflow] == [(LEARNER, 3)]
    assert any(isinstance(e, E.ScoringStarted) and e.dead >= 8 for e in events)
    categories = [e for e in events if isinstance(e, E.CategoryScored)]
    assert [c.category for c in categories] == [1, 2, 3, 4, 5, 6]
    by_number = {c.category: c for c in categories}
    assert by_number[1].red_points == by_number[1].red_count - by_number[1].blue_count > 0  # the difference
    assert by_number[2].blue_points == 5
    tie = by_number[5]
    assert tie.red_count == tie.blue_count > 0 and tie.red_points == tie.blue_points == 0  # a tie scores nothing
    assert any(isinstance(e, E.StonesReturned) for e in events)


def test_an_area_threat_is_met_and_blocked():
    """Before the learner's last placement, Blue owns all of temple 2 but squares one placement
    can fill; after it, Blue cannot fill temple 2 and does not win."""
    game = GuidedGame("Ada")
    blocking = next(i for i, s in enumerate(STEPS) if s.moves and all(
        isinstance(m, Place) and m.temple == 2 for m in s.moves) and s.player is LEARNER)
    while game.index < blocking:
        game.play(game.expected[0])
    state = game.state
    temple = TEMPLE_MASK[2]
    blue_there = (state.stones[BLUE] & temple).bit_count()
    empty = temple & ~(state.stones[RED] | state.stones[BLUE])
    assert state.stones[RED] & temple == 0 and blue_there >= 8 and empty.bit_count() <= 4
    assert set(game.expected_squares) == {
        (2, s) for s in range(12) if empty >> (12 + s) & 1}  # the learner fills every empty square
    while not game.finished:
        game.play(game.expected[0])
    assert game.state.stones[RED] & temple and not game.state.is_over


#: The guide's room at the smallest size while the cards are chosen (the board folds away then):
#: its lines, and its width (the terminal's, less a border and the padding).
GUIDE_LINES, GUIDE_WIDTH = 5, MINIMUM.width - 3


def test_every_learner_step_says_what_to_do_in_one_line_and_why_in_the_guides_room_at_the_smallest_size():
    corrections = [correction(step.moves) for step in STEPS if step.player is LEARNER and step.moves]
    for step in STEPS:
        if step.player is LEARNER:
            assert step.do and step.why
            assert len(step.do) + 4 <= MINIMUM.width, step.do  # "▶ " and the decision line's padding
            assert len(textwrap.wrap(step.why, GUIDE_WIDTH)) <= GUIDE_LINES, step.why
    for said in corrections:
        assert len(textwrap.wrap(said, GUIDE_WIDTH)) <= GUIDE_LINES, said


def test_a_move_the_step_does_not_expect_is_corrected_gently_and_nothing_is_played():
    game = GuidedGame("Ada")
    version, state = game.version, game.state.copy()
    wrong = Commit((1, 2, 3, 4))
    said = game.correction(wrong)
    assert said == correction((Commit((4, 1, 2, 3)),)) and "4 1 2 3" in said
    with pytest.raises(ValueError):
        game.play(wrong)
    assert game.version == version and game.state.scores == state.scores and game.state.cartouches == state.cartouches
    game.play(Commit((4, 1, 2, 3)))
    assert "cursor" in (game.correction(Place(1, 5)) or "")
    assert game.correction(Place(1, 2)) is None  # the step's squares, in any order
    game.play(Place(1, 2))
    assert set(game.expected) == {Place(1, 0), Place(1, 1)}


def test_the_learner_receives_what_a_server_would_send_red():
    _, events = play_the_lesson()
    drawn = [e for e in events if isinstance(e, E.CardsDrawn)]
    assert all(e.cards is None for e in drawn if e.player is BLUE)  # the bot's hands stay hidden
    assert all(e.cards is not None for e in drawn if e.player is RED)
    assert not any(isinstance(e, E.Committed) for e in events)  # announced by the arbiter instead
    assert sum(isinstance(e, A.Committed) for e in events) == 2 * 5  # five rounds, both players
    assert sum(isinstance(e, A.OpenRequested) for e in events) == 5


def test_a_script_the_rules_refuse_is_said_at_once():
    broken = (Step(BLUE, (Commit((1, 4, 3, 4)),)), Step(RED, (Commit((4, 1, 2, 3)),), "do", "why"),
              Step(RED, (Remove(1, 0),), "do", "why"))
    game = GuidedGame("Ada", broken)
    with pytest.raises(ScriptBroken, match="cannot play"):
        game.play(Commit((4, 1, 2, 3)))
        game.play(Remove(1, 0))
