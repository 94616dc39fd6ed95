"""Hypothesis: random games, with the invariants of the rules page checked after every move.

A game is a seed, a set of rule switches and a list of choices; each choice picks who moves
(while both may) and which legal move they make.  Resignations are rare but possible.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aton import BLUE, PLAYERS, RED, GameRecord, Resign, Rules, new_game, view
from aton.board import ALL_SQUARES, index_of, square_set, square_tuple
from aton.cards import FULL_DECK, starting_deck
from aton.game import OVER
from aton.record import replay, summary

from .engine_helpers import cards_of, redeal_hidden, snapshot, stone_total

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rule_sets = st.one_of(
    st.just(Rules()),
    st.builds(
        Rules,
        hide_second_player_until_turn=st.booleans(),
        exchange_reshuffle_excludes_hand=st.booleans(),
        scoring_tie_nobody_scores=st.booleans(),
        dead_return_to_supply=st.booleans(),
        equal_points_draw=st.booleans(),
        max_rounds=st.sampled_from([1, 4, 25, 200]),
    ),
)
games = st.tuples(
    st.integers(0, 2**40),
    rule_sets,
    st.lists(st.integers(0, 2**16 - 1), min_size=1, max_size=400),
)


def choose(state, choice: int):
    """The player and move that ``choice`` picks among everything legal now."""
    pending = state.pending()
    player = pending[choice % len(pending)]
    if choice % 997 == 0:
        return player, Resign()
    legal = state.legal_moves(player, resign=False)
    return player, legal[(choice >> 1) % len(legal)]


class PublicLog:
    """The public position rebuilt from the events alone: they must be complete and in order."""

    def __init__(self, events) -> None:
        self.round = 0
        self.scores = [0, 0]
        self.supply = [29, 29]
        self.dead = [0, 0]
        self.stones = [0, 0]
        self.exchanged = [False, False]
        self.over = None
        self.feed(events)

    def feed(self, events) -> None:
        for e in events:
            handler = getattr(self, "on_" + e.kind, None)
            if handler:
                handler(e)

    def on_round_started(self, e):
        assert e.round == self.round + 1
        self.round = e.round
        self.faces: tuple[dict[int, int], dict[int, int]] = ({}, {})  # cartouche number -> value, revealed
        self.war = None

    def on_card_revealed(self, e):
        assert e.cartouche not in self.faces[e.player]
        assert e.cartouche in (1, 2) or {1, 2} <= set(self.faces[e.player])
        self.faces[e.player][e.cartouche] = e.value

    def on_war_cards_turned(self, e):
        c1, c2 = ([f[c] for f in self.faces] for c in (1, 2))
        assert c1[0] == c1[1] and c2[0] == c2[1]
        self.war = (e.red, e.blue)

    def on_turn_order_decided(self, e):
        by = {"cartouche2": [f[2] for f in self.faces], "cartouche1": [f[1] for f in self.faces],
              "war": list(self.war or (0, 0))}[e.reason]
        assert [e.red, e.blue] == by and e.red != e.blue
        assert e.first == (RED if e.red < e.blue else BLUE)
        if e.reason != "cartouche2":
            assert self.faces[0][2] == self.faces[1][2]

    def on_turn_started(self, e):
        faces = self.faces[e.player]
        assert (e.range, e.placement) == (faces[3], faces[4])
        assert e.removal == (0 if self.round == 1 else faces[2] - 2)

    def on_exchanged(self, e):
        assert not self.exchanged[e.player]
        self.exchanged[e.player] = True

    def on_points_scored(self, e):
        assert e.points == 2 * (e.higher - e.lower) > 0
        self.scores[e.player] += e.points
        assert e.total == self.scores[e.player]

    def on_stone_removed(self, e):
        bit = 1 << index_of(e.temple, e.square)
        assert self.stones[e.owner] & bit
        self.stones[e.owner] ^= bit
        self.dead[e.owner] += 1

    def on_stone_placed(self, e):
        bit = 1 << index_of(e.temple, e.square)
        assert not (self.stones[0] | self.stones[1]) & bit
        self.stones[e.player] |= bit
        self.supply[e.player] -= 1

    def on_stones_to_kingdom(self, e):
        self.supply[e.player] -= e.count
        self.dead[e.player] += e.count

    def on_scoring_started(self, e):
        assert e.dead == sum(self.dead) >= 8

    def on_category_scored(self, e):
        self.scores[0] += e.red_points
        self.scores[1] += e.blue_points

    def on_stones_returned(self, e):
        assert [e.red, e.blue] == self.dead
        if e.to_supply:
            self.supply = [self.supply[p] + self.dead[p] for p in PLAYERS]
        self.dead = [0, 0]

    def on_game_over(self, e):
        assert self.over is None
        self.over = e
        assert [e.red_score, e.blue_score] == self.scores

    def check(self, state) -> None:
        assert self.round == state.round
        assert self.scores == state.scores
        assert self.stones == state.stones
        assert self.dead == state.dead
        assert self.supply == state.supply
        assert self.exchanged == state.exchange_used
        if self.over is None:
            assert state.phase is not OVER
        else:
            assert self.over.outcome == state.outcome()


def check_invariants(state, previous_scores) -> None:
    for p in PLAYERS:
        assert stone_total(state, p) == 29
        assert min(state.supply[p], state.dead[p], state.retired[p]) >= 0
        cards = cards_of(state, p)
        assert cards == Counter(FULL_DECK)
        assert state.scores[p] >= previous_scores[p]
    assert state.stones[RED] & state.stones[BLUE] == 0
    assert (state.stones[RED] | state.stones[BLUE]) & ~ALL_SQUARES == 0
    assert len(state.decks[RED]) % 4 == 0 and len(state.decks[BLUE]) % 4 == 0
    pending = state.pending()
    for p in PLAYERS:
        legal = state.legal_moves(p, resign=False)
        assert bool(legal) == (p in pending)


def check_views(state) -> None:
    for viewer in (RED, BLUE, None):
        v = view(state, viewer)
        for p in PLAYERS:
            pv = v.player(p)
            assert pv.deck == len(state.decks[p])  # a count, never an order
            if viewer is None or p != viewer:
                assert pv.hand is None
            else:
                assert pv.hand == tuple(sorted(state.hands[p]))
            cartouches = state.cartouches[p]
            shown = 4 if p == viewer else state.revealed[p]  # one's own cards are never hidden
            for c in range(4):
                if cartouches is None or c >= shown:
                    assert pv.cartouches[c] is None
                else:
                    assert pv.cartouches[c] == cartouches[c]
            assert sorted(pv.discard_seen) == sorted(state.discard_public[p])


def check_hidden_information_does_not_show(state, choice: int) -> None:
    """Dealing anew what a viewer may not know changes nothing in the view or its dict form."""
    rng = random.Random(choice)
    for viewer in (RED, BLUE, None):
        data = view(state, viewer).to_dict()
        assert view(redeal_hidden(state, viewer, rng), viewer).to_dict() == data
        assert "seed" not in json.dumps(data)


def play_game(seed: int, rules: Rules, choices, *, checks: bool, complete: bool = True):
    """Play the choices; the final state and the game's record.

    With ``complete`` the game goes on past the end of ``choices`` (which are then
    reused, varied by the move number) until it is over.
    """
    state, events = new_game(seed, rules=rules)
    record = GameRecord(seed=seed, rules=rules)
    log = PublicLog(events)
    n = 0
    while not state.is_over and (complete or n < len(choices)):
        choice = choices[n % len(choices)] ^ (n // len(choices) * 40503 & 0xFFFF)
        player, move = choose(state, choice)
        record.add(player, move)
        before = state.scores[:]
        new_events: list = []
        state.play(player, move, new_events)
        if checks:
            log.feed(new_events)
            log.check(state)
            check_invariants(state, before)
            check_views(state)
            if n % 7 == 0:
                check_hidden_information_does_not_show(state, choice)
        n += 1
    return state, record


@SETTINGS
@given(games)
def test_the_invariants_hold_after_every_move(game):
    seed, rules, choices = game
    play_game(seed, rules, choices, checks=True)


@SETTINGS
@given(games)
def test_the_same_seed_and_moves_give_the_same_game(game):
    seed, rules, choices = game
    first, _ = play_game(seed, rules, choices, checks=False)
    second, _ = play_game(seed, rules, choices, checks=False)
    assert snapshot(first) == snapshot(second)


@SETTINGS
@given(games, st.booleans())
def test_replaying_the_record_reproduces_the_game(game, complete):
    seed, rules, choices = game
    state, record = play_game(seed, rules, choices, checks=False, complete=complete)
    data = json.loads(json.dumps(record.to_dict()))
    replayed = replay(GameRecord.from_dict(data))
    assert summary(replayed) == summary(state)
    assert snapshot(replayed) == snapshot(state)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**40), st.lists(st.integers(0, 2**16 - 1), min_size=1, max_size=400))
def test_a_record_with_the_seeds_decks_written_out_replays_the_same(seed, choices):
    state, record = play_game(seed, Rules(), choices, checks=False)
    record.decks = (starting_deck(seed, RED), starting_deck(seed, BLUE))
    assert summary(replay(GameRecord.from_dict(record.to_dict()))) == summary(state)


@given(st.integers(0, ALL_SQUARES))
def test_a_square_set_from_its_temples_rows_is_the_same_squares_in_the_same_order(mask):
    assert square_tuple(mask) == tuple(square_set(mask))
