"""aton.sampling: sampled states agree with everything the view shows, and hold real decks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from aton import BLUE, PLAYERS, RED, Exchange, Termination
from aton import events as E
from aton.game import new_game
from aton.options import DEFAULT_RULES, Rules
from aton.sampling import Sampler, sample_state
from aton.views import view
from tests.aton.engine_helpers import cards_of, deck_top_first

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


class Memory:
    """What one player has seen, followed from its own events alone (the events as that player
    receives them): its exchanged hand while it lies in its discard pile, and the war cards
    under each deck (top first) with each deck's size.  An independent model of what the
    player's view should tell it."""

    def __init__(self, me, rules: Rules) -> None:
        self.me, self.rules = me, rules
        self.deck = [36, 36]
        self.bottom: list[list[int]] = [[], []]
        self.hand: tuple[int, ...] = ()
        self.exchanged: list[int] = []
        self.exchanging = False  # between its Exchanged and the new hand's CardsDrawn

    def follow(self, events) -> None:
        for e in events:
            if isinstance(e, E.CardsDrawn):
                self.deck[e.player] -= 4
                self._shrink(e.player)
                if e.player is self.me:
                    assert e.cards is not None
                    self.hand, self.exchanging = e.cards, False
            elif isinstance(e, E.Exchanged) and e.player is self.me:
                self.exchanged, self.exchanging = list(self.hand), True
            elif isinstance(e, E.DeckShuffled):
                self.deck[e.player], self.bottom[e.player] = e.size, []
                if e.player is self.me and not (self.exchanging and self.rules.exchange_reshuffle_excludes_hand):
                    self.exchanged = []  # shuffled into the new deck
            elif isinstance(e, E.WarCardsTurned):
                for p in PLAYERS:
                    self.deck[p] -= 1
                    self._shrink(p)
            elif isinstance(e, E.WarCardsReturned):
                for p, cards in zip(PLAYERS, (e.red, e.blue), strict=True):
                    self.deck[p] += len(cards)
                    self.bottom[p] += cards

    def _shrink(self, p) -> None:
        """Cards left the top of p's deck: the known ones drawn are no longer in it."""
        known = self.bottom[p]
        if len(known) > self.deck[p]:
            del known[:len(known) - self.deck[p]]


def games_with_memories(seeds, rules: Rules):
    """Each position of random games (exchanges often) with both players' memories of it."""
    for seed in seeds:
        rng = random.Random(seed)
        state, events = new_game(seed, rules=rules)
        memories = [Memory(p, rules) for p in PLAYERS]
        while True:
            for memory in memories:
                memory.follow([e.for_viewer(memory.me) for e in events])
            if state.is_over:
                break
            yield state, memories
            player = state.pending()[rng.randrange(len(state.pending()))]
            moves = state.legal_moves(player, resign=False)
            exchange = [m for m in moves if isinstance(m, Exchange)]
            move = exchange[0] if exchange and rng.random() < 0.3 else rng.choice(moves)
            events = []
            state.play(player, move, events)


@pytest.mark.parametrize("excludes_hand", [True, False])
def test_no_sample_contradicts_what_the_player_saw_its_exchanged_hand_and_the_war_cards(excludes_hand):
    """The player's view tells it (and nothing more than its own events told it) where its exchanged
    hand and every war card are; every sample puts them exactly there."""
    rules = Rules(exchange_reshuffle_excludes_hand=excludes_hand)
    rng = random.Random(13)
    knew: Counter[int] = Counter()
    for state, memories in games_with_memories(range(40), rules):
        for memory in memories:
            p = memory.me
            v = view(state, p)
            for q in PLAYERS:
                assert v.player(q).deck == memory.deck[q]
                assert v.player(q).deck_bottom == tuple(memory.bottom[q])
                assert deck_top_first(state, q)[len(state.decks[q]) - len(memory.bottom[q]):] == memory.bottom[q]
            assert v.player(p).exchanged == tuple(sorted(memory.exchanged))
            assert v.player(p.other).exchanged is None
            assert sorted(memory.exchanged) == sorted(state.discard_hidden[p])
            known = bool(memory.exchanged) + 2 * any(memory.bottom)
            if not known:
                continue
            knew[known] += 1
            sampler = Sampler(v, rules)
            for _ in range(20):
                s = sampler.sample(rng)
                assert sorted(s.discard_hidden[p]) == sorted(memory.exchanged)
                for q in PLAYERS:
                    top_first = deck_top_first(s, q)
                    assert top_first[len(top_first) - len(memory.bottom[q]):] == memory.bottom[q]
                assert view(s, p) == v
    assert knew[1] > 1000 and knew[2] > 200 and knew[3] > 200  # the exchanged hand, war cards, both
