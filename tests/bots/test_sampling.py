"""aton.sampling: sampled states agree with everything the view shows, and hold real decks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from aton import BLUE, PLAYERS, RED, Termination
from aton.game import new_game
from aton.options import DEFAULT_RULES, Rules
from aton.sampling import Sampler, sample_state
from aton.views import view
from tests.aton.engine_helpers import cards_of

FULL = Counter({1: 9, 2: 9, 3: 9, 4: 9})


def random_positions(games: int, seed: int, rules: Rules | None = None):
    """Every position of ``games`` random games (the state, before each move)."""
    rng = random.Random(seed)
    for g in range(games):
        state, _ = new_game(seed * 1000 + g, rules=rules or DEFAULT_RULES)
        while not state.is_over:
            yield state
            player = state.pending()[rng.randrange(len(state.pending()))]
            moves = state.legal_moves(player, resign=False)
            state.play(player, rng.choice(moves))


def test_sampled_views_equal_the_original_for_both_players():
    rng = random.Random(7)
    checked = 0
    for state in random_positions(12, 1):
        for p in PLAYERS:
            v = view(state, p)
            sampled = sample_state(v, rng)
            assert view(sampled, p) == v
            checked += 1
    assert checked > 1000


def test_sampled_states_hold_nine_of_each_card_per_player():
    rng = random.Random(8)
    for state in random_positions(8, 2):
        for p in PLAYERS:
            sampled = sample_state(view(state, p), rng)
            for q in PLAYERS:
                assert cards_of(sampled, q) == FULL
                assert len(sampled.decks[q]) == len(state.decks[q])
                assert sampled.supply[q] + sampled.stones[q].bit_count() + sampled.dead[q] \
                    + sampled.retired[q] == 29


def test_the_viewers_own_hand_and_the_public_facts_are_kept():
    rng = random.Random(9)
    for state in random_positions(6, 3):
        for p in PLAYERS:
            s = sample_state(view(state, p), rng)
            assert sorted(s.hands[p]) == sorted(state.hands[p])
            assert s.stones == state.stones
            assert s.scores == state.scores and s.dead == state.dead and s.supply == state.supply
            assert s.exchange_used == state.exchange_used
            assert s.round == state.round and s.phase is state.phase
            assert s.pending() == state.pending()
            assert s.revealed == state.revealed
            for q in PLAYERS:
                if (cards := state.cartouches[q]) is not None:
                    shown = state.revealed[q]
                    sampled = s.cartouches[q]
                    assert sampled is not None and sampled[:shown] == cards[:shown]
                assert sorted(s.discard_public[q]) == sorted(state.discard_public[q])
            if view(state, p).decision is not None:
                assert s.legal_moves(p) == state.legal_moves(p)


def test_hidden_cards_really_vary_between_samples():
    rng = random.Random(10)
    state, _ = new_game(5)
    sampler = Sampler(view(state, RED))
    hands = {sampler.sample(rng).hands[BLUE] for _ in range(50)}
    decks = {tuple(sampler.sample(rng).decks[RED]) for _ in range(50)}
    assert len(hands) > 5 and len(decks) > 40


def test_sampled_states_play_on_to_the_end():
    rng = random.Random(11)
    for i, state in enumerate(random_positions(4, 4)):
        if i % 7:
            continue
        for p in PLAYERS:
            s = sample_state(view(state, p), rng)
            while not s.is_over:
                player = s.pending()[0]
                s.play(player, rng.choice(s.legal_moves(player, resign=False)))


def test_other_rule_switches_are_honoured():
    rules = Rules(hide_second_player_until_turn=False)
    rng = random.Random(12)
    for state in random_positions(4, 5, rules):
        for p in PLAYERS:
            v = view(state, p)
            assert view(sample_state(v, rng, rules), p) == v


def test_spectator_views_and_finished_games_are_refused():
    state, _ = new_game(1)
    with pytest.raises(ValueError):
        sample_state(view(state, None), random.Random(1))
    state.forfeit(RED, Termination.TIME)
    with pytest.raises(ValueError):
        sample_state(view(state, RED), random.Random(1))
