"""Hypothesis: the invariants of §9 hold through whole games of arbitrary legal moves."""

import copy
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_zeus import PEOPLE, PLAYERS, GameState, Player, new_game, view
from atlas_zeus.cards import Card
from atlas_zeus.events import Event, InitiativePassed, IslandErupted, RoundStarted
from atlas_zeus.game import Phase
from atlas_zeus.moves import PAIRS, Program
from atlas_zeus.options import FLEE_CHOOSERS, Options

from .helpers import total_cards

#: Every option that keeps the §9 invariants as written (not eruption_advances_flood=False: a
#: flood marker waiting off the ring sinks nothing that round).
options = st.builds(Options, fog_own_cards=st.booleans(), flee_chooser=st.sampled_from(FLEE_CHOOSERS),
                    reshuffle_keeps_rest_first=st.booleans(), no_target_returns_to_hand=st.booleans(),
                    transfer_may_pass=st.booleans(), nets_block_passing=st.booleans(),
                    room_checked_per_step=st.booleans(), turtle_ends_when_moved=st.booleans(),
                    end_check_at_any_point=st.booleans())
games = st.tuples(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 10**6), min_size=200, max_size=200), options)


def play_out(seed: int, picks: list[int], opts: Options):
    """The game of ``seed`` with the ``picks``-th legal move each time (cycling), yielding the
    state before and after each move with the move and its events."""
    state = new_game(seed, opts)
    i = 0
    while not state.is_over:
        (player,) = state.pending()
        moves = state.legal_moves(player)
        move = moves[picks[i % len(picks)] % len(moves)]
        i += 1
        before = state.copy()
        events: list[Event] = []
        state.play(player, move, events)
        yield before, player, move, events, state


def check_state(state: GameState) -> None:
    for p in PLAYERS:
        assert total_cards(state, p) == 25
        on_track = [s.card for s in state.track if s.owner is p and s.holds_card]
        piles = state.decks[p] + state.hands[p] + state.discards[p] + state.set_aside[p] + on_track
        assert Counter(piles) == Counter(state.options.deck)
        turtle = state.turtles[p]
        in_play = {Card.NET: state.nets[p] in state.ring, Card.PILEHOUSE: state.pilehouses[p] in state.ring,
                   Card.TURTLE: turtle is not None and state.location[turtle] is not None}
        assert all((card in state.set_aside[p]) == out for card, out in in_play.items())
        assert len(state.set_aside[p]) == sum(in_play.values())
    for island in state.ring:
        capacity = state.capacity(island)
        assert capacity is None or len(state.people_on(island)) <= capacity
    for person in PEOPLE:
        assert state.location[person] is None or state.location[person] in state.ring
    if not state.is_over:
        assert state.flood in state.ring
        assert state.round <= 16


def check_views(state: GameState) -> None:
    """No receiver's view dict shows another player's hand or face-down cards."""
    for viewer in (None, *PLAYERS):
        plain = view(state, viewer).to_dict()
        for p in PLAYERS:
            hand = plain["players"][str(p)]["hand"]
            assert hand == ([c.value for c in state.hands[p]] if viewer is p else None)
        for slot, shown in zip(state.track, plain["track"], strict=True):
            if slot.card is not None and not slot.face_up and viewer is not slot.owner:
                assert shown["card"] is None
        if viewer is not None:
            assert plain["decision"] is None or viewer in state.pending()


@settings(max_examples=30, deadline=None)
@given(games)
def test_invariants_hold_through_a_game(game):
    seed, picks, opts = game
    alive = set(PEOPLE)
    ring = None
    erupted = 0
    initiative: Player | None = None
    for before, player, move, events, state in play_out(seed, picks, opts):
        check_state(state)
        now_alive = {p for p in PEOPLE if state.location[p] is not None}
        assert now_alive <= alive, "people are never added"
        alive = now_alive
        if isinstance(move, Program) and player is before.initiative:
            mine = {s for s in range(1, 7) if state.track[s - 1].owner is player}
            assert all(len(mine & set(pair)) == 1 for pair in PAIRS)
        ring = len(before.ring) if ring is None else ring
        erupted += sum(1 for e in events if isinstance(e, IslandErupted))
        for event in events:
            if isinstance(event, InitiativePassed):
                assert event.player is before.initiative.other
            if isinstance(event, RoundStarted):
                assert initiative is None or event.initiative is initiative.other
                initiative = event.initiative
                assert len(state.ring) == ring - 1 - erupted, "one island a round, one per eruption"
                ring, erupted = len(state.ring), 0
    assert state.is_over


@settings(max_examples=15, deadline=None)
@given(games)
def test_views_never_show_hidden_cards(game):
    seed, picks, opts = game
    for _before, _player, _move, _events, state in play_out(seed, picks, opts):
        check_views(state)


def snapshot(state: GameState) -> tuple:
    """The state's contents at this moment (copied: the state goes on changing)."""
    return copy.deepcopy((state.ring, state.location, state.hands, state.decks, state.discards, state.set_aside,
                          state.track, state.flood, state.round, state.phase, state.outcome()))


@settings(max_examples=15, deadline=None)
@given(games)
def test_same_seed_and_moves_same_game(game):
    seed, picks, opts = game
    first = [(player, move, [e.to_dict() for e in events], snapshot(state))
             for _b, player, move, events, state in play_out(seed, picks, opts)]
    state = new_game(seed, opts)
    for player, move, plain_events, snap in first:
        events: list[Event] = []
        state.play(player, move, events)
        assert [e.to_dict() for e in events] == plain_events
        assert snapshot(state) == snap
    assert state.phase is Phase.OVER


@settings(max_examples=15, deadline=None)
@given(games)
def test_copy_is_independent(game):
    seed, picks, opts = game
    for before, player, move, _events, state in play_out(seed, picks, opts):
        original = snapshot(before)
        again = before.copy()
        again.play(player, move)
        assert snapshot(again) == snapshot(state), "a copy plays as the original"
        assert snapshot(before) == original, "playing on a copy leaves the original alone"
