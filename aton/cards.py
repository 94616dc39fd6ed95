"""Card decks: composition, validation and the game's seeded shuffles.

Every shuffle a game needs is driven by a stream derived from the game's seed,
the player and how many times that player has shuffled.  The state therefore
carries no generator object (copying a state is cheap) and any game can be
replayed from its seed, in any implementation that follows docs/records.md.
"""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from collections.abc import Iterable

from .players import Player

CARD_VALUES = (1, 2, 3, 4)
COPIES_PER_VALUE = 9
DECK_SIZE = len(CARD_VALUES) * COPIES_PER_VALUE
HAND_SIZE = 4
FULL_DECK: tuple[int, ...] = tuple(v for v in CARD_VALUES for _ in range(COPIES_PER_VALUE))


def check_deck(cards: object) -> tuple[int, ...]:
    """Validate a full starting deck (36 cards, nine of each value 1-4); ValueError if not."""
    if not isinstance(cards, (list, tuple)):
        raise ValueError(f"a deck must be a list of card values, got {type(cards).__name__}")
    for i, value in enumerate(cards):
        if type(value) is not int or value not in CARD_VALUES:
            raise ValueError(f"card {i} must be an integer 1–4, got {value!r}")
    counts = Counter(cards)
    if len(cards) != DECK_SIZE or any(counts[v] != COPIES_PER_VALUE for v in CARD_VALUES):
        shown = ", ".join(f"{counts[v]}×{v}" for v in CARD_VALUES)
        raise ValueError(f"a deck must hold nine of each value 1–4 (36 cards), got {shown}")
    return tuple(cards)


def shuffled(cards: Iterable[int], seed: int, player: int, shuffle_number: int) -> list[int]:
    """The cards in the order of a player's n-th shuffle of a game (0: the starting deck).

    A Fisher-Yates shuffle driven by SHAKE-256 of ``"aton:{seed}:{player}:{n}"``
    (player 0 red, 1 blue): for i from len-1 down to 1, swap positions i and
    ``u16[i] mod (i + 1)``, where u16[i] is the big-endian 16-bit word at byte 2i of
    the digest.  It is spelled out in docs/records.md, so that a record's seed
    gives the same decks in any implementation and any Python version.
    """
    deck = list(cards)
    n = len(deck)
    key = f"aton:{seed}:{int(player)}:{shuffle_number}"  # int(): a Player would format as "red"
    digest = hashlib.shake_256(key.encode()).digest(2 * n)
    words = struct.unpack(f">{n}H", digest)
    for i in range(n - 1, 0, -1):
        j = words[i] % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def starting_deck(seed: int, player: Player) -> tuple[int, ...]:
    """The seeded starting deck of a player, top card first."""
    return tuple(shuffled(FULL_DECK, seed, player, 0))
