"""Atlas & Zeus bots: only legal moves over many seeded games (every decision kind met),
reproducible for a seed, decided from the view alone; the determinization and the
evaluation they stand on."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from atlas_zeus.game import GameState, Phase, new_game
from atlas_zeus.moves import Move, Program
from atlas_zeus.players import BLUE, PLAYERS, RED, Player
from atlas_zeus.views import View, view
from bots.atlas_zeus import STRATEGY_NAMES, Strategy, strategy_named
from bots.atlas_zeus.determinize import determinize, legal_moves
from bots.atlas_zeus.evaluation import WIN, evaluate, sinking_order
from bots.atlas_zeus.greedy import RESOLUTION_ORDER
from bots.atlas_zeus.play import play_game

#: Every kind of decision of the rules page's §8.
ALL_KINDS = {"program", "transfer", "harpoon", "turtle", "fog", "surge", "flood", "net", "pilehouse",
             "volcano", "fish", "flee"}


def checked_game(red: Strategy, blue: Strategy, seed: int, kinds: Counter[str]) -> list[tuple[Player, Move]]:
    """Play a game, checking each answer against the engine's complete list of legal moves
    before it is played; count the decision kinds; return the moves."""
    state = new_game(seed)
    bots = (red, blue)
    moves = []
    while not state.is_over:
        (player,) = state.pending()
        seen = view(state, player)
        assert seen.decision is not None
        move = bots[player].choose(seen)
        assert move in state.legal_moves(player), (seen.decision.kind, move)
        kinds[seen.decision.kind] += 1
        state.play(player, move)
        moves.append((player, move))
    return moves


def test_strategy_named_knows_random_and_greedy_and_refuses_others():
    assert set(STRATEGY_NAMES) == {"random", "greedy"}
    for name in STRATEGY_NAMES:
        assert strategy_named(name, 1).name == name
    with pytest.raises(ValueError, match="unknown Atlas & Zeus strategy 'mcts'"):
        strategy_named("mcts", 1)
    with pytest.raises(TypeError):
        strategy_named("random", 1, samples=3)
    with pytest.raises(ValueError):
        strategy_named("greedy", 1, samples=0)


def test_random_plays_only_legal_moves_and_meets_every_kind_of_decision():
    kinds: Counter[str] = Counter()
    for seed in range(60):
        checked_game(strategy_named("random", seed), strategy_named("random", seed + 1000), seed, kinds)
    assert set(kinds) == ALL_KINDS, ALL_KINDS - set(kinds)


def test_greedy_plays_only_legal_moves_and_meets_every_kind_of_decision():
    kinds: Counter[str] = Counter()
    for seed in range(16):
        greedy = strategy_named("greedy", seed, samples=1)
        # against itself in even games, against random in odd ones; red and blue in turn
        other = strategy_named("greedy", seed + 1000, samples=1) if seed % 2 == 0 else strategy_named("random", seed)
        red, blue = (greedy, other) if seed % 4 < 2 else (other, greedy)
        checked_game(red, blue, seed, kinds)
    assert set(kinds) == ALL_KINDS, ALL_KINDS - set(kinds)


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_a_game_is_reproducible_for_a_seed(name):
    def moves(seed: int) -> list[tuple[Player, Move]]:
        return checked_game(strategy_named(name, seed), strategy_named(name, seed + 1), 7, Counter())

    assert moves(3) == moves(3)
    assert moves(3) != moves(4)  # the seed is the bot's: other seeds, another game


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_a_strategy_decides_from_the_view_alone(name):
    """The same view, whether built from the state or read back from its wire form, and the
    same seed: the same answer."""
    state = new_game(11)
    direct, wired = strategy_named(name, 5), strategy_named(name, 5)
    for _ in range(40):
        if state.is_over:
            break
        (player,) = state.pending()
        seen = view(state, player)
        move = direct.choose(seen)
        assert wired.choose(View.from_dict(seen.to_dict())) == move
        state.play(player, move)


def positions(seeds: range) -> list[tuple[GameState, Player]]:
    """Positions of random games at every decision (but a flee), with the deciding player."""
    found = []
    for seed in seeds:
        state, bot = new_game(seed), strategy_named("random", seed)
        while not state.is_over:
            (player,) = state.pending()
            if state.decision_kind(player) != "flee":
                found.append((state.copy(), player))
            state.play(player, bot.choose(view(state, player)))
    return found


def test_a_determinization_shows_the_view_it_was_built_from():
    rng = random.Random(1)
    for state, player in positions(range(6)):
        seen = view(state, player)
        sample = determinize(seen, rng)
        assert view(sample, player) == seen
        assert sample.legal_moves(player) == state.legal_moves(player)


def test_a_determinization_of_a_sealed_programming_deals_cards_on_its_slots():
    """On a server the second player programs while the first one's programming is sealed: its
    view shows the slots taken, face down, and the first player's hand still whole.  A sample
    holds three of the first player's unseen cards on those slots (as once they are opened)."""
    state = new_game(2)
    first = state.initiative
    program = random.Random(0).choice(state.legal_moves(first))
    assert isinstance(program, Program)
    slots = program.slots
    seen = view(state, first.other, sealed={first: slots})
    assert seen.decision is not None and seen.decision.slots == (tuple(s for s in range(1, 7) if s not in slots),)
    sample = determinize(seen, random.Random(3))
    assert tuple(i + 1 for i, s in enumerate(sample.track) if s.owner is first and s.card is not None) == slots
    assert len(sample.hands[first]) == 3
    programs = sample.legal_moves(first.other)
    assert all(isinstance(m, Program) for m in programs)
    assert {m.slots for m in programs if isinstance(m, Program)} == set(seen.decision.slots)
    move = strategy_named("greedy", 1).choose(seen)
    assert isinstance(move, Program) and move.slots == seen.decision.slots[0]


def test_a_determinization_deals_what_the_viewer_cannot_see():
    state = new_game(5)
    seen = view(state, RED)
    hands = {tuple(sorted(determinize(seen, random.Random(k)).hands[BLUE])) for k in range(20)}
    assert len(hands) > 1  # blue's hand is not known to red: it varies from sample to sample
    for k in range(20):
        sample = determinize(seen, random.Random(k))
        assert sample.hands[RED] == state.hands[RED]  # red's own hand is as it is
        assert sorted(sample.decks[RED]) == sorted(state.decks[RED])  # in another order


def test_legal_moves_of_a_view_are_the_engines():
    for state, player in positions(range(3)):
        assert sorted(map(repr, legal_moves(view(state, player), random.Random(0)))) == \
            sorted(map(repr, state.legal_moves(player)))


def test_the_sinking_order_follows_the_flood_marker_as_the_rulebook_says():
    """The rulebook's example: with 2, 3, 7, 9, 13 left, the marker goes 9 → 13 → 2 → 3 → 7."""
    assert sinking_order([7, 2, 13, 9, 3], 9) == [9, 13, 2, 3, 7]
    assert sinking_order([7, 2, 13, 9, 3], 2) == [2, 3, 7, 9, 13]


def test_the_evaluation_is_zero_sum_and_knows_the_end():
    for state, _ in positions(range(2)):
        seen = view(state, None)
        assert evaluate(seen, RED) == pytest.approx(-evaluate(seen, BLUE))
    red, blue = strategy_named("greedy", 1, samples=1), strategy_named("random", 2)
    finished: list[GameState] = []
    play_game(red, blue, 4, on_move=lambda state, p, m: finished.append(state) if state.is_over else None)
    final = view(finished[0], None)
    winner = final.outcome.winner if final.outcome else None
    assert winner is not None
    assert evaluate(final, winner) == WIN and evaluate(final, winner.other) == -WIN


def test_the_evaluation_prefers_the_opponent_dead():
    """Killing an opponent person (as a Harpoon does) is better for the killer."""
    state = new_game(8)
    before = evaluate(view(state, None), RED)
    victim = state.alive(BLUE)[0]
    state.location[victim] = None
    assert evaluate(view(state, None), RED) > before


def test_greedy_beats_random_in_a_few_seeded_games():
    """A sanity check, not the measurement (docs/bots.md: 400 games)."""
    wins = 0
    for seed in range(4):
        greedy, rand = strategy_named("greedy", seed, samples=1), strategy_named("random", seed)
        colour = PLAYERS[seed % 2]
        red, blue = (greedy, rand) if colour is RED else (rand, greedy)
        result = play_game(red, blue, seed)
        wins += result.winner == colour
    assert wins >= 3


def test_programming_under_greedy_follows_its_order():
    """Greedy's programming puts its cards in its order of resolution (Weakness, Fog … Flood,
    Tidal surge last) on slots the decision offers."""
    state = new_game(9)
    player = state.initiative
    seen = view(state, player)
    assert seen.phase is Phase.PROGRAM
    move = strategy_named("greedy", 0).choose(seen)
    assert isinstance(move, Program) and seen.decision is not None
    assert move.slots in seen.decision.slots
    orders = [RESOLUTION_ORDER[card] for _, card in move.cards]
    assert orders == sorted(orders)
