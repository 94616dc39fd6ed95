"""Shared helpers for the engine tests: decks in a chosen order, board positions, moves.

Positions are built the way a real game reaches them (``new_game`` with explicit decks),
then board, supply, Kingdom, scores and round are set directly on the state where a test
needs a particular situation.  Every helper keeps the stone count of each player at 29.
"""

from __future__ import annotations

import copy
from collections import Counter

from aton import BLUE, PLAYERS, RED, Commit, Exchange, GameState, IllegalMove, Place, Remove, new_game
from aton.board import mask_of
from aton.cards import CARD_VALUES, COPIES_PER_VALUE, FULL_DECK
from aton.game import PLACE, REMOVE
from aton.options import DEFAULT_RULES

STONES = 29


# ---------------------------------------------------------------- decks and new games


def deck(*top: int) -> list[int]:
    """A legal 36-card deck, top card first, that starts with ``top``.

    The rest of the deck is the remaining cards in ascending order.
    """
    rest = Counter(FULL_DECK)
    rest.subtract(top)
    if any(n < 0 for n in rest.values()):
        raise ValueError(f"more than {COPIES_PER_VALUE} cards of one value in {top}")
    return list(top) + [v for v in CARD_VALUES for _ in range(rest[v])]


def hands(*rounds: tuple[int, ...]) -> list[int]:
    """A deck whose successive hands are ``rounds`` (each in cartouche order C1-C4; a last,
    shorter one gives only the next cards)."""
    return deck(*[card for hand in rounds for card in hand])


def start(red=(), blue=(), *, seed: int = 0, rules=DEFAULT_RULES):
    """A new game whose decks start with the given cards (``deck`` fills up the rest)."""
    return new_game(seed, (deck(*red), deck(*blue)), rules)


def deck_top_first(state: GameState, player) -> list[int]:
    """A player's deck as a list, top card first (the state keeps the top card last)."""
    return list(reversed(state.decks[player]))


# ---------------------------------------------------------------- positions


def position(red, blue, *, round: int = 2, red_stones=(), blue_stones=(), dead=(0, 0),
             scores=(0, 0), seed: int = 0, rules=DEFAULT_RULES) -> GameState:
    """A game at the commit of round ``round``: hands ``red`` and ``blue`` (4 cards each,
    drawn from the top of the decks), stones on the given (temple, square) pairs, ``dead``
    stones of each player in the Kingdom of the Dead (taken from the supply) and ``scores``."""
    state, _ = start(red=red, blue=blue, seed=seed, rules=rules)
    state.round = round
    put_stones(state, RED, red_stones)
    put_stones(state, BLUE, blue_stones)
    send_to_kingdom(state, RED, dead[0])
    send_to_kingdom(state, BLUE, dead[1])
    state.scores = list(scores)
    return state


def committed(red, blue, **position_args) -> tuple[GameState, list]:
    """``position(red, blue, ...)`` after both players committed their hands as given
    (cartouches 1-4 in order); the state and the events of the reveal and the first turn."""
    state = position(red, blue, **position_args)
    return state, commit(state, red, blue)


def put_stones(state: GameState, player, squares) -> None:
    """Stand ``player``'s stones on ``squares`` [(temple, square), ...], taken from the supply."""
    mask = mask_of(squares)
    if mask & (state.stones[0] | state.stones[1]):
        raise ValueError("square already occupied")
    state.stones[player] |= mask
    state.supply[player] -= mask.bit_count()
    assert state.supply[player] >= 0


def send_to_kingdom(state: GameState, player, count: int) -> None:
    """Move ``count`` of ``player``'s stones from the supply to the Kingdom of the Dead."""
    state.supply[player] -= count
    state.dead[player] += count
    assert state.supply[player] >= 0


def squares_of(temple: int, *squares: int) -> list[tuple[int, int]]:
    """[(temple, s), ...]; every square of the temple when none are given."""
    return [(temple, s) for s in (squares or range(12))]


# ---------------------------------------------------------------- moves


def play(state: GameState, *moves) -> list:
    """Play (player, move) pairs in place; the events they caused, in order."""
    events: list = []
    for player, move in moves:
        state.play(player, move, events)
    return events


def commit(state: GameState, red, blue) -> list:
    """Both players commit (red first); the events, including the round's automatic steps."""
    return play(state, (RED, Commit(tuple(red))), (BLUE, Commit(tuple(blue))))


def places(*squares) -> list[Place]:
    return [Place(t, s) for t, s in squares]


def removes(*squares) -> list[Remove]:
    return [Remove(t, s) for t, s in squares]


def finish_turn(state: GameState) -> list:
    """Play the active player's remaining removals and placements on the lowest legal squares."""
    events: list = []
    player = state.active
    assert player is not None, "a turn is being played"
    while state.active == player and state.phase in (REMOVE, PLACE):
        state.play(player, state.legal_moves(player, resign=False)[0], events)
    return events


def play_round(state: GameState, exchange=()) -> tuple[list, tuple]:
    """One whole round: the players in ``exchange`` exchange first, both commit their hands
    in the order drawn, and every removal and placement takes the lowest legal square.

    Returns the events and the two commitments (red's, blue's).
    """
    events: list = []
    for player in exchange:
        state.play(player, Exchange(), events)
    cards = (state.hands[RED], state.hands[BLUE])
    events += commit(state, *cards)
    while state.phase in (REMOVE, PLACE):
        events += finish_turn(state)
    return events, cards


def scoring_round(red_stones, blue_stones, *, scores=(0, 0), rules=DEFAULT_RULES):
    """Play a round in which nothing moves and a scoring round follows: round 1 (no removal),
    both supplies empty (every other stone is in the Kingdom), C1 tied, red first by C2.

    Returns the state and the events from ``ScoringStarted`` on.
    """
    dead = (STONES - len(red_stones), STONES - len(blue_stones))
    state = position((1, 1, 1, 1), (1, 2, 1, 1), round=1, red_stones=red_stones,
                     blue_stones=blue_stones, dead=dead, scores=scores, rules=rules)
    events = commit(state, (1, 1, 1, 1), (1, 2, 1, 1))
    start = next(i for i, e in enumerate(events) if e.kind == "scoring_started")
    return state, events[start:]


# ---------------------------------------------------------------- checks


def of_type(events, cls) -> list:
    return [e for e in events if isinstance(e, cls)]


def snapshot(state: GameState) -> dict:
    """Every field of the state, deep-copied, to check that nothing changed."""
    return {name: copy.deepcopy(getattr(state, name)) for name in GameState.__slots__}


def assert_illegal(state: GameState, player, move, message: str) -> None:
    """``move`` by ``player`` raises IllegalMove with exactly ``message`` and changes nothing."""
    before = snapshot(state)
    try:
        state.play(player, move)
    except IllegalMove as exc:
        assert str(exc) == message
    else:
        raise AssertionError(f"{move!r} by {player} was accepted")
    assert snapshot(state) == before


def stone_total(state: GameState, player) -> int:
    return (state.supply[player] + state.stones[player].bit_count()
            + state.dead[player] + state.retired[player])


def cards_of(state: GameState, player) -> Counter:
    """Every card a player owns, wherever it is (deck, hand, cartouches, discard)."""
    cards = Counter(state.decks[player])
    cards.update(state.hands[player])
    cards.update(state.cartouches[player] or ())
    cards.update(state.discard_public[player])
    cards.update(state.discard_hidden[player])
    return cards


def redeal_hidden(state: GameState, viewer, rng) -> GameState:
    """A copy of ``state`` that differs only in what ``viewer`` (None: a spectator) may not know.

    Every player's deck is dealt in a new order, but for the war cards at its bottom (everyone
    saw them).  For each player other than the viewer, the cards whose values the viewer has
    not seen (hand, face-down cartouches, exchanged discards and deck above the war cards) are
    dealt anew over the same places.  The seed changes too.
    """
    new = state.copy()
    new.seed = state.seed + 1 + rng.randrange(1000)
    for p in PLAYERS:
        known = new.war_bottom[p]
        bottom, above = new.decks[p][:known], new.decks[p][known:]
        if p is viewer:
            rng.shuffle(above)
            new.decks[p] = bottom + above
            continue
        hand, cartouches = list(new.hands[p]), new.cartouches[p]
        face_down = [] if cartouches is None else list(cartouches[new.revealed[p]:])
        pool = hand + face_down + new.discard_hidden[p] + above
        rng.shuffle(pool)
        new.hands[p] = tuple(pool[:len(hand)])
        del pool[:len(hand)]
        if cartouches is not None:
            shown = new.revealed[p]
            c1, c2, c3, c4 = (*cartouches[:shown], *pool[:4 - shown])
            new.cartouches[p] = (c1, c2, c3, c4)
            del pool[:4 - shown]
        hidden = len(new.discard_hidden[p])
        new.discard_hidden[p] = pool[:hidden]
        new.decks[p] = bottom + pool[hidden:]
    return new


# A board for the scoring round, used with scoring_round(RED_STONES, BLUE_STONES):
# Red: temple 1 x4 (one black), temple 2 x1, temple 3 x4 (+1 bonus, one black),
#      temple 4 x2 (+2 bonus, the blue square);  2 black, bonus points 1 + 2
RED_STONES = (squares_of(1, 0, 1, 2, 4) + squares_of(2, 0)
              + squares_of(3, 0, 1, 3, 5) + squares_of(4, 3, 7))
# Blue: temple 1 x2 (the blue square), temple 2 x3 (the blue square), temple 3 x3 (+1 bonus,
#       one black), temple 4 x3;  1 black, bonus points 1, blue squares 2
BLUE_STONES = (squares_of(1, 7, 8) + squares_of(2, 7, 8, 9)
               + squares_of(3, 6, 8, 11) + squares_of(4, 8, 9, 10))
