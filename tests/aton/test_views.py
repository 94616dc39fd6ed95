"""Views: what a player or a spectator may know, and nothing more."""

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aton import BLUE, RED, Commit, Exchange, Outcome, Phase, Place, Player, Resign, Termination, View, new_game, view
from aton import events as E
from aton.board import SQUARES_PER_TEMPLE, TEMPLES, index_of, mask_of
from aton.views import Decision, PlayerView, plain_views, stones_of, temple_names, temple_owners, unseen_cards

from .engine_helpers import (
    BLUE_STONES,
    RED_STONES,
    commit,
    committed,
    deck_top_first,
    hands,
    play,
    position,
    redeal_hidden,
    scoring_round,
    start,
)

EMPTY_BOARD = ((None,) * 12,) * 4


def test_a_players_view_at_the_first_commit():
    state, _ = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    v = view(state, RED)
    assert v == View(
        viewer=RED, round=1, phase=Phase.COMMIT, pending=(RED, BLUE), first=None, active=None,
        range=None,
        red=PlayerView(score=0, supply=29, dead=0, on_board=0, deck=32, discard=0,
                       discard_seen=(), hand=(1, 2, 3, 4), hand_size=4, committed=False,
                       cartouches=(None,) * 4, revealed=0, exchange_used=False, exchanged=()),
        blue=PlayerView(score=0, supply=29, dead=0, on_board=0, deck=32, discard=0,
                        discard_seen=(), hand=None, hand_size=4, committed=False,
                        cartouches=(None,) * 4, revealed=0, exchange_used=False),
        stones=(0, 0), outcome=None,
        decision=Decision(kind="commit", sentence="Put one card on each of your four cartouches",
                          hand=(1, 2, 3, 4), can_exchange=True),
    )
    assert v.temples == EMPTY_BOARD
    plain = v.to_dict()
    assert {key: plain[key] for key in ("viewer", "phase", "pending", "first", "temples", "winner", "reason")} == {
        "viewer": "red", "phase": "commit", "pending": ("red", "blue"), "first": None,
        "temples": EMPTY_BOARD, "winner": None, "reason": None}
    assert type(plain["phase"]) is str and all(type(p) is str for p in plain["pending"])


def test_a_spectator_sees_no_hand_and_has_no_decision():
    state, _ = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    v = view(state, None)
    assert v.viewer is None and v.decision is None
    assert v.red.hand is None and v.blue.hand is None
    assert v.red.hand_size == v.blue.hand_size == 4


def test_a_commitment_is_public_its_cards_are_not():
    state, _ = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    play(state, (RED, Commit((4, 3, 2, 1))))
    for viewer in (BLUE, None):
        red = view(state, viewer).red
        assert red.committed and red.cartouches == (None,) * 4 and red.hand_size == 0
    assert view(state, BLUE).pending == (BLUE,)
    assert view(state, RED).decision is None


def test_the_exchange_is_public_the_cards_are_not():
    state, _ = start(red=(4, 3, 2, 1, 1, 1, 2, 2), blue=(1, 1, 2, 2))
    play(state, (RED, Exchange()))
    for viewer in (RED, BLUE, None):
        red = view(state, viewer).red
        assert red.exchange_used and red.discard == 4 and red.discard_seen == () and red.deck == 28
    assert view(state, RED).red.hand == (1, 1, 2, 2)
    decision = view(state, RED).decision
    assert decision is not None and decision.can_exchange is False


def test_the_exchanged_hand_is_known_to_its_owner_only_until_it_is_shuffled_in():
    state, _ = start(red=(4, 3, 2, 1, 1, 1, 2, 2), blue=(1, 1, 2, 2))
    play(state, (RED, Exchange()))
    assert view(state, RED).red.exchanged == (1, 2, 3, 4)
    assert view(state, BLUE).red.exchanged is None and view(state, None).red.exchanged is None
    assert view(state, BLUE).blue.exchanged == () and view(state, RED).blue.exchanged is None
    data = view(state, BLUE).to_dict()
    assert data["red"]["exchanged"] is None and View.from_dict(data) == view(state, BLUE)
    assert View.from_dict(view(state, RED).to_dict()) == view(state, RED)
    state.decks[RED] = []  # the next draw shuffles the discard pile, the exchanged hand with it
    play(state, (RED, Commit((1, 1, 2, 2))), (BLUE, Commit((1, 1, 2, 2))))
    while state.round == 1:
        player = state.pending()[0]
        play(state, (player, state.legal_moves(player, resign=False)[0]))
    assert view(state, RED).red.exchanged == () and view(state, RED).red.hand == (1, 2, 3, 4)


def test_war_cards_are_known_to_everyone_at_the_bottom_of_their_decks_until_drawn():
    red_deck = hands((1, 2, 3, 4), (4, 4, 2), (1, 1, 1, 1))
    blue_deck = hands((1, 2, 3, 4), (4, 3, 1), (2, 2, 2, 2))
    state, _ = start(red_deck, blue_deck)
    assert view(state, RED).red.deck_bottom == ()
    commit(state, (1, 2, 3, 4), (1, 2, 3, 4))  # a war: red turns up 4 4, blue 4 3
    for viewer in (RED, BLUE, None):
        v = view(state, viewer)
        assert (v.red.deck_bottom, v.blue.deck_bottom) == ((4, 4), (4, 3))  # in the order drawn
        assert View.from_dict(json.loads(json.dumps(v.to_dict()))) == v
    assert deck_top_first(state, BLUE)[-2:] == [4, 3]
    state.decks[BLUE][2:] = state.decks[BLUE][-2:]  # blue's deck down to four: 2 unknown cards, then 4 3
    while state.round == 1:
        player = state.pending()[0]
        play(state, (player, state.legal_moves(player, resign=False)[0]))
    assert view(state, RED).blue.deck_bottom == () and view(state, RED).red.deck_bottom == (4, 4)
    assert sorted(state.hands[BLUE])[-2:] == [3, 4]  # drawn: in blue's hand now


def test_during_the_first_turn_the_second_players_c3_c4_are_face_down():
    state, _ = committed((1, 2, 3, 2), (2, 4, 1, 1), blue_stones=[(1, 0)])
    for viewer in (RED, None):
        v = view(state, viewer)
        assert v.red.cartouches == (1, 2, 3, 2)
        assert v.blue.cartouches == (2, 4, None, None)
        assert (v.red.revealed, v.blue.revealed) == (4, 2)
    own = view(state, BLUE)  # blue knows its own face-down cards; everyone sees they are face down
    assert own.blue.cartouches == (2, 4, 1, 1) and own.blue.revealed == 2
    for viewer in (RED, BLUE, None):
        v = view(state, viewer)
        assert (v.first, v.active, v.range) == (RED, RED, 3)
        assert (v.phase, v.pending) == (Phase.PLACE, (RED,))
        assert v.temples[0][0] is BLUE and v.blue.on_board == 1
        assert v.stones == (0, mask_of([(1, 0)])) and v.to_dict()["temples"][0][0] == "blue"


def test_the_acting_players_decision_names_the_legal_squares():
    state, _ = committed((1, 4, 2, 2), (2, 4, 1, 1), blue_stones=[(1, 0), (2, 11), (3, 0)])
    assert view(state, RED).decision == Decision(
        kind="remove", sentence="Remove 2 of Blue's stones from temples 1–2", count=2, range=2,
        owner=BLUE, squares=((1, 0), (2, 11)))
    assert view(state, RED).to_dict()["decision"]["owner"] == "blue"
    assert view(state, BLUE).decision is None
    play(state, (RED, state.legal_moves(RED)[0]))
    play(state, (RED, state.legal_moves(RED)[0]))
    decision = view(state, RED).decision
    assert decision is not None
    assert decision.kind == "place" and decision.count == 2 and decision.owner is None
    assert decision.squares == tuple((t, s) for t in (1, 2) for s in range(12))


def test_revealed_discards_are_seen_exchanged_ones_are_only_counted():
    state = position((1, 2, 1, 1), (2, 3, 1, 1), round=2)
    play(state, (BLUE, Exchange()))
    blue_hand = b1, b2, b3, b4 = state.hands[BLUE]
    play(state, (RED, Commit((1, 2, 1, 1))), (BLUE, Commit((b1, b2, b3, b4))))
    while state.round == 2:
        player = state.pending()[0]
        play(state, (player, state.legal_moves(player, resign=False)[0]))
    v = view(state, RED)
    assert v.red.discard_seen == (1, 1, 1, 2) and v.red.discard == 4
    assert v.blue.discard_seen == tuple(sorted(blue_hand)) and v.blue.discard == 8


def test_a_finished_game():
    state, _ = start()
    play(state, (RED, Resign()))
    v = view(state, None)
    assert (v.phase, v.outcome) == (Phase.OVER, Outcome(Termination.RESIGN, BLUE))
    assert (v.to_dict()["winner"], v.to_dict()["reason"]) == ("blue", "resign")
    assert v.pending == () and v.active is None
    state, _ = start()
    state.forfeit(BLUE, Termination.ABANDONED)
    assert view(state, BLUE).outcome == Outcome(Termination.ABANDONED, RED)
    assert (view(state, BLUE).to_dict()["winner"], view(state, BLUE).to_dict()["reason"]) == ("red", "abandoned")


def test_a_draw_shows_as_draw():
    state, _ = scoring_round(RED_STONES, BLUE_STONES, scores=(30, 35))
    assert view(state, RED).outcome == Outcome(Termination.SCORING, None)
    plain = view(state, RED).to_dict()
    assert plain["winner"] == "draw" and plain["reason"] == "scoring"
    assert View.from_dict(plain).outcome == Outcome(Termination.SCORING, None)


def test_views_contain_no_seed_and_no_deck_order():
    state, _ = committed((1, 2, 3, 2), (2, 4, 1, 1), seed=123456789)
    for viewer in (RED, BLUE, None):
        data = view(state, viewer).to_dict()
        text = json.dumps(data)
        assert "123456789" not in text and "seed" not in text
        assert data["red"]["deck"] == 32 and data["blue"]["deck"] == 32


def test_changing_only_hidden_information_leaves_every_view_unchanged():
    rng = random.Random(3)
    state, _ = committed((1, 2, 3, 2), (2, 4, 1, 1))
    play(state, (RED, Place(1, 0)))  # blue is in the middle of their turn
    state_before_commit, _ = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    play(state_before_commit, (BLUE, Commit((2, 1, 2, 1))))
    for s in (state, state_before_commit):
        for viewer in (RED, BLUE, None):
            for _ in range(5):
                other = redeal_hidden(s, viewer, rng)
                assert view(other, viewer) == view(s, viewer)
    # and the helper does change something
    assert any(redeal_hidden(state_before_commit, RED, rng).cartouches[BLUE] != (2, 1, 2, 1)
               for _ in range(10))


def test_a_view_survives_its_dict_form():
    state, _ = committed((1, 4, 2, 2), (2, 4, 1, 1), blue_stones=[(1, 0), (2, 11)])
    for viewer in (RED, BLUE, None):
        v = view(state, viewer)
        data = json.loads(json.dumps(v.to_dict()))
        assert View.from_dict(data) == v


def test_a_plain_board_gives_the_stone_masks_and_a_malformed_one_is_refused():
    state, _ = committed((1, 4, 2, 2), (2, 4, 1, 1), red_stones=[(4, 11)], blue_stones=[(1, 0), (2, 11)])
    plain = view(state, None).to_dict()["temples"]
    assert stones_of(plain) == (state.stones[RED], state.stones[BLUE])
    assert stones_of(plain) == (mask_of([(4, 11)]), mask_of([(1, 0), (2, 11)]))
    for bad in (plain[:3], [row[:11] for row in plain], [["green"] * 12] * 4):
        with pytest.raises(ValueError):
            stones_of(bad)


@given(st.integers(0, 2**48 - 1), st.integers(0, 2**48 - 1))
def test_the_board_square_by_square(red, blue):
    """``temple_owners`` and ``temple_names`` (built from tables of half rows) say, for each square
    of each temple, whose stone stands on it, as the stone masks do bit by bit."""
    blue &= ~red  # a square holds one stone at most
    owners, names = temple_owners(red, blue), temple_names(red, blue)
    for temple in TEMPLES:
        for square in range(SQUARES_PER_TEMPLE):
            bit = 1 << index_of(temple, square)
            expected = RED if red & bit else BLUE if blue & bit else None
            assert owners[temple - 1][square] is expected
            assert names[temple - 1][square] == (None if expected is None else str(expected))
    assert stones_of(names) == (red, blue)


def test_the_unseen_cards_of_a_player():
    state, _ = committed((1, 2, 3, 2), (2, 4, 1, 1))
    v = view(state, RED)
    # blue: 36 cards minus the two face-up cartouches 2 and 4
    assert unseen_cards(v, BLUE) == {1: 9, 2: 8, 3: 9, 4: 8}
    # red sees all four of their cartouches
    assert unseen_cards(v, RED) == {1: 8, 2: 7, 3: 8, 4: 9}


def test_drawn_cards_are_shown_to_their_owner_only():
    _, events = start(red=(4, 3, 2, 1), blue=(1, 1, 2, 2))
    drawn = events[1]
    assert drawn == E.CardsDrawn(RED, (4, 3, 2, 1))
    assert drawn.for_viewer(RED) == drawn
    assert drawn.for_viewer(BLUE) == E.CardsDrawn(RED, None)
    assert drawn.for_viewer(None) == E.CardsDrawn(RED, None)
    assert drawn.for_viewer(BLUE).to_dict() == {
        "type": "cards_drawn", "player": "red", "cards": None}
    assert events[0].for_viewer(BLUE) == E.RoundStarted(1)


def test_events_serialise_to_plain_dicts():
    assert E.TurnOrderDecided(BLUE, "war", 4, 3).to_dict() == {
        "type": "turn_order_decided", "first": "blue", "reason": "war", "red": 4, "blue": 3}
    assert E.WarCardsReturned((4, 4), (4, 3)).to_dict() == {
        "type": "war_cards_returned", "red": [4, 4], "blue": [4, 3]}
    assert E.GameOver(None, Termination.SCORING, 47, 47).to_dict() == {
        "type": "game_over", "winner": None, "reason": "scoring", "red_score": 47, "blue_score": 47}
    assert set(E.EVENT_TYPES) >= {"round_started", "cards_drawn", "category_scored", "game_over"}


def test_from_dict_ignores_fields_a_newer_server_may_add():
    state, _ = new_game(3)
    data = view(state, RED).to_dict()
    data["added_later"] = 1
    data["red"]["added_later"] = 2
    data["decision"]["added_later"] = 3
    assert View.from_dict(data) == view(state, RED)


def _plain(value):
    """The plain form of a view's value, spelled out field by field (the reference for ``to_dict``)."""
    import dataclasses

    if value is None or type(value) in (int, str, bool):
        return value
    if isinstance(value, (Player, Phase)):
        return str(value)
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    assert dataclasses.is_dataclass(value), value
    return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}


def test_to_dict_is_every_field_in_plain_form():
    state, _ = new_game(5)
    rng = random.Random(1)
    for _ in range(60):
        for viewer in (RED, BLUE, None):
            v = view(state, viewer)
            expected = {**_plain(v), "temples": _plain(v.temples), "winner": None, "reason": None}
            del expected["stones"], expected["outcome"]
            if v.outcome is not None:
                expected.update(v.outcome.to_dict())
            assert v.to_dict() == expected
            assert [[state.owner(t, s) for s in range(12)] for t in (1, 2, 3, 4)] == [list(r) for r in v.temples]
        if state.is_over:
            break
        player = state.pending()[0]
        state.play(player, rng.choice(state.legal_moves(player, resign=False)))


def test_views_built_together_are_each_receivers_own_view():
    """The server builds the views of a move's receivers together (``plain_views``), sharing what
    they have in common: each is exactly that receiver's ``view(...).to_dict()``, key order too, over
    whole games (commitments, face-down cartouches, removals, the end)."""
    for seed in range(4):
        state, _ = new_game(seed)
        rng = random.Random(seed)
        while True:
            for receivers in ((None, RED, BLUE), (RED, BLUE), (BLUE,), (None,), (RED, None)):
                together = plain_views(state, receivers)
                assert list(together) == list(receivers)
                for receiver in receivers:
                    alone = view(state, receiver).to_dict()
                    assert together[receiver] == alone
                    assert list(together[receiver]) == list(alone)
                    assert list(together[receiver]["red"]) == list(alone["red"])
            if state.is_over:
                break
            player = rng.choice(state.pending())
            state.play(player, rng.choice(state.legal_moves(player, resign=False)))
