"""Decks (seeded or explicit, top card first), the draw, reshuffles, and the exchange."""

import hashlib

import pytest

from aton import BLUE, RED, Commit, Exchange, new_game
from aton import events as E
from aton.cards import FULL_DECK, shuffled, starting_deck
from aton.game import COMMIT

from .engine_helpers import assert_illegal, commit, deck_top_first, hands, of_type, play, play_round, start

# red always commits (2, 3, 4, 1), blue (2, 4, 3, 1): red first, one stone each per round,
# so that nine rounds pass without a win
RED_ROUNDS = hands(*[(2, 3, 4, 1)] * 9)
BLUE_ROUNDS = hands(*[(2, 4, 3, 1)] * 9)


# ---------------------------------------------------------------- decks and the draw

def test_explicit_decks_are_drawn_from_the_top():
    red, blue = hands((4, 3, 2, 1), (1, 1, 2, 2)), hands((2, 2, 3, 3))
    state, events = new_game(7, (red, blue))
    assert events == [
        E.RoundStarted(1),
        E.CardsDrawn(RED, (4, 3, 2, 1)),
        E.CardsDrawn(BLUE, (2, 2, 3, 3)),
    ]
    assert state.hands == [(4, 3, 2, 1), (2, 2, 3, 3)]
    assert deck_top_first(state, RED) == red[4:] and deck_top_first(state, BLUE) == blue[4:]
    assert state.round == 1 and state.phase is COMMIT and state.pending() == (RED, BLUE)


def test_decks_may_be_any_sequences_red_then_blue():
    red, blue = hands((4, 3, 2, 1)), hands((2, 2, 3, 3))
    state, _ = new_game(7, (tuple(red), blue))
    assert state.hands == [(4, 3, 2, 1), (2, 2, 3, 3)]


def test_without_decks_the_seed_deals_them():
    state, events = new_game(42)
    assert deck_top_first(state, RED) == list(starting_deck(42, RED)[4:])
    assert events[1] == E.CardsDrawn(RED, starting_deck(42, RED)[:4])
    assert events[2] == E.CardsDrawn(BLUE, starting_deck(42, BLUE)[:4])
    assert sorted(starting_deck(42, RED)) == list(FULL_DECK)
    assert starting_deck(42, RED) != starting_deck(42, BLUE) != starting_deck(43, BLUE)


def test_the_seeded_shuffle_is_fixed_for_all_time():
    # the values docs/records.md shows; any change breaks every stored record
    assert starting_deck(42, RED)[:12] == (1, 4, 3, 4, 3, 4, 1, 4, 3, 3, 4, 1)
    assert starting_deck(42, BLUE)[:12] == (1, 1, 2, 1, 3, 4, 3, 3, 4, 4, 2, 3)
    digest = hashlib.shake_256(b"aton:42:0:0").digest(72)
    assert digest[:6].hex() == "a8d656d98684" and digest[-6:].hex() == "3b457d9073ac"


def docs_shuffle(cards, seed, player, n):
    """The shuffle exactly as docs/records.md words it, written independently."""
    cards = list(cards)
    stream = hashlib.shake_256(f"aton:{seed}:{player}:{n}".encode("ascii")).digest(2 * len(cards))
    words = [int.from_bytes(stream[2 * k:2 * k + 2], "big") for k in range(len(cards))]
    for i in range(len(cards) - 1, 0, -1):
        j = words[i] % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("seed", [0, 42, -7, 2**70])
def test_the_shuffle_follows_the_documented_algorithm(seed):
    for player, number in ((RED, 0), (BLUE, 1)):  # the documented stream names red 0 and blue 1
        assert list(starting_deck(seed, player)) == docs_shuffle(FULL_DECK, seed, number, 0)
        for n, cards in enumerate([[4, 4, 1, 2, 3, 3, 2, 1], FULL_DECK[5:]], start=1):
            assert shuffled(cards, seed, player, n) == docs_shuffle(cards, seed, number, n)


@pytest.mark.parametrize("bad", [
    FULL_DECK[:-1],
    (*FULL_DECK[:-1], 1),
    (*FULL_DECK[:-1], 5),
    (*FULL_DECK[:-1], "4"),
])
def test_a_deck_that_is_not_nine_of_each_value_is_refused(bad):
    with pytest.raises(ValueError):
        new_game(1, (list(bad), list(FULL_DECK)))


# ---------------------------------------------------------------- reshuffles

def test_an_empty_deck_is_refilled_from_the_discard_pile_at_the_draw():
    state, _ = start(RED_ROUNDS, BLUE_ROUNDS)
    discarded = []
    for _ in range(9):
        events, (red, _) = play_round(state)
        discarded += red
    assert state.round == 10
    assert of_type(events, E.DeckShuffled) == [E.DeckShuffled(RED, 36), E.DeckShuffled(BLUE, 36)]
    assert events[-5:] == [
        E.RoundStarted(10),
        E.DeckShuffled(RED, 36),
        E.CardsDrawn(RED, state.hands[RED]),
        E.DeckShuffled(BLUE, 36),
        E.CardsDrawn(BLUE, state.hands[BLUE]),
    ]
    # the discard pile, in the order the cards were discarded, shuffled as docs/records.md says
    new_deck = shuffled(discarded, 0, 0, 1)
    assert list(state.hands[RED]) == new_deck[:4]
    assert deck_top_first(state, RED) == new_deck[4:]
    assert state.discard_public == [[], []] and state.shuffles == [1, 1]


def test_exchanged_cards_are_shuffled_in_after_the_public_discards():
    state, _ = start(RED_ROUNDS, BLUE_ROUNDS)
    public, exchanged = [], []
    for n in range(8):
        if n == 2:
            exchanged = list(state.hands[RED])
        events, (red, _) = play_round(state, exchange=(RED,) if n == 2 else ())
        public += red
    # the exchange drew four extra cards: red's deck runs out one round early
    assert of_type(events, E.DeckShuffled) == [E.DeckShuffled(RED, 36)]
    assert list(state.hands[RED]) == shuffled(public + exchanged, 0, 0, 1)[:4]
    assert state.discard_hidden == [[], []]


# ---------------------------------------------------------------- the exchange

def test_an_exchange_discards_the_hand_and_draws_four_new_cards():
    state, _ = start(hands((1, 1, 2, 2), (3, 3, 4, 4)), hands((1, 2, 3, 4)))
    assert Exchange() in state.legal_moves(RED)
    events = play(state, (RED, Exchange()))
    assert events == [E.Exchanged(RED), E.CardsDrawn(RED, (3, 3, 4, 4))]
    assert state.hands[RED] == (3, 3, 4, 4) and state.discard_hidden[RED] == [1, 1, 2, 2]
    assert state.exchange_used == [True, False]
    assert len(state.decks[RED]) == 28
    assert Exchange() not in state.legal_moves(RED) and Exchange() in state.legal_moves(BLUE)
    assert state.pending() == (RED, BLUE)
    assert_illegal(state, RED, Commit((1, 1, 2, 2)),
                   "[1, 1, 2, 2] is not a permutation of your hand [3, 3, 4, 4]")
    commit(state, (3, 4, 3, 4), (1, 2, 3, 4))
    assert state.cartouches[RED] == (3, 4, 3, 4)


def test_a_player_may_exchange_after_the_opponent_has_committed():
    state, _ = start(hands((1, 1, 2, 2), (3, 3, 4, 4)), hands((1, 2, 3, 4)))
    play(state, (BLUE, Commit((1, 2, 3, 4))))
    assert state.pending() == (RED,)
    assert play(state, (RED, Exchange())) == [E.Exchanged(RED), E.CardsDrawn(RED, (3, 3, 4, 4))]
    assert state.pending() == (RED,)
    events = play(state, (RED, Commit((4, 3, 3, 4))))
    assert events[:3] == [E.Committed(RED), E.CardRevealed(RED, 1, 4), E.CardRevealed(BLUE, 1, 1)]


def test_the_exchange_token_is_used_once_per_game():
    state, _ = start(RED_ROUNDS, BLUE_ROUNDS)
    play(state, (RED, Exchange()))
    assert_illegal(state, RED, Exchange(), "you have already used your exchange token")
    play_round(state)
    assert state.round == 2 and state.exchange_used == [True, False]
    assert_illegal(state, RED, Exchange(), "you have already used your exchange token")
    assert Exchange() not in state.legal_moves(RED)


def test_an_exchange_with_an_empty_deck_reshuffles_the_discards_without_the_hand():
    state, _ = start(hands((1, 1, 2, 2)), hands((1, 2, 3, 4)), seed=5)
    # as after eight rounds: the rest of red's deck is in the discard pile
    discards = deck_top_first(state, RED)
    state.discard_public[RED] = list(discards)
    state.decks[RED] = []
    events = play(state, (RED, Exchange()))
    new_deck = shuffled(discards, 5, 0, 1)
    assert events == [
        E.Exchanged(RED),
        E.DeckShuffled(RED, 32),
        E.CardsDrawn(RED, tuple(new_deck[:4])),
    ]
    assert deck_top_first(state, RED) == new_deck[4:]
    assert state.discard_public[RED] == [] and state.discard_hidden[RED] == [1, 1, 2, 2]


def test_the_reshuffle_is_the_same_whether_the_player_is_given_as_int_or_player():
    states = []
    for player in (0, RED):
        state, _ = start(hands((1, 1, 2, 2)), hands((1, 2, 3, 4)), seed=5)
        state.discard_public[0] = deck_top_first(state, 0)
        state.decks[0] = []
        state.play(player, Exchange())
        states.append(state)
    assert states[0].decks == states[1].decks and states[0].hands == states[1].hands
    assert shuffled([1, 2, 3, 4], 5, RED, 1) == shuffled([1, 2, 3, 4], 5, 0, 1)
