"""Moves as small immutable values, and their plain-dict form used by records and the wire.

Moves do not name their player: the engine's ``apply(state, player, move)`` does.
Place and remove moves for every square exist once (``place_move``/``remove_move``),
so that generating legal moves allocates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations
from typing import TypeVar

from .board import BOARD_SQUARES, SQUARES_PER_TEMPLE, TEMPLES, index_of, temple_square

#: A move's plain form, as in records and on the wire: ``{"move": kind, ...its fields}``.
PlainMove = dict[str, str | int | list[int]]


@dataclass(frozen=True, slots=True)
class Commit:
    """The four card values put on cartouches 1-4, in that order."""

    cards: tuple[int, int, int, int]

    def to_dict(self) -> PlainMove:
        return {"move": "commit", "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Exchange:
    """Spend the exchange token: discard the hand and draw four new cards."""

    def to_dict(self) -> PlainMove:
        return {"move": "exchange"}


@dataclass(frozen=True, slots=True)
class _SquareMove:
    """A move naming one square; ``index`` is its bit index on the board (computed)."""

    temple: int
    square: int
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        valid = type(self.temple) is int and type(self.square) is int and \
            1 <= self.temple <= 4 and 0 <= self.square < SQUARES_PER_TEMPLE
        object.__setattr__(self, "index", index_of(self.temple, self.square) if valid else -1)


@dataclass(frozen=True, slots=True)
class Remove(_SquareMove):

    def to_dict(self) -> PlainMove:
        return {"move": "remove", "temple": self.temple, "square": self.square}


@dataclass(frozen=True, slots=True)
class Place(_SquareMove):
    def to_dict(self) -> PlainMove:
        return {"move": "place", "temple": self.temple, "square": self.square}


@dataclass(frozen=True, slots=True)
class Resign:
    def to_dict(self) -> PlainMove:
        return {"move": "resign"}


Move = Commit | Exchange | Remove | Place | Resign

EXCHANGE = Exchange()
RESIGN = Resign()

_PLACE_MOVES = tuple(Place(*temple_square(i)) for i in range(BOARD_SQUARES))
_REMOVE_MOVES = tuple(Remove(*temple_square(i)) for i in range(BOARD_SQUARES))


def place_move(index: int) -> Place:
    """The (shared) place move for a bit index."""
    return _PLACE_MOVES[index]


def remove_move(index: int) -> Remove:
    return _REMOVE_MOVES[index]


_M = TypeVar("_M", Place, Remove)
#: For each temple, the moves for every 12-bit occupancy pattern of that temple.
_Table = tuple[tuple[tuple[_M, ...], ...], ...]


def _by_temple_chunk(moves: tuple[_M, ...]) -> _Table[_M]:
    """For each temple, the moves for every 12-bit occupancy pattern of that temple.

    Built incrementally (a pattern's moves are its lowest square's move followed by
    the moves of the pattern without that square), so importing the engine stays fast.
    """
    tables = []
    for t in TEMPLES:
        base = index_of(t, 0)
        table: list[tuple[_M, ...]] = [()]
        for pattern in range(1, 1 << SQUARES_PER_TEMPLE):
            lowest = pattern & -pattern
            table.append((moves[base + lowest.bit_length() - 1],) + table[pattern ^ lowest])
        tables.append(tuple(table))
    return tuple(tables)


_PLACE_TABLE = _by_temple_chunk(_PLACE_MOVES)
_REMOVE_TABLE = _by_temple_chunk(_REMOVE_MOVES)
_CHUNK = (1 << SQUARES_PER_TEMPLE) - 1


def _moves_in(mask: int, table: _Table[_M]) -> list[Move]:
    """A new list of the moves of ``table`` for the squares in ``mask`` (typed as any moves:
    no one else holds it, so ``legal_moves`` may add others)."""
    return [
        *table[0][mask & _CHUNK],
        *table[1][mask >> 12 & _CHUNK],
        *table[2][mask >> 24 & _CHUNK],
        *table[3][mask >> 36 & _CHUNK],
    ]


def place_moves(mask: int) -> list[Move]:
    """Place moves for every square in ``mask``, in board order (a new list)."""
    return _moves_in(mask, _PLACE_TABLE)


def remove_moves(mask: int) -> list[Move]:
    """Remove moves for every square in ``mask``, in board order (a new list)."""
    return _moves_in(mask, _REMOVE_TABLE)


_COMMITS_BY_HAND: dict[tuple[int, ...], tuple[Commit, ...]] = {}


def commit_moves(hand: tuple[int, ...]) -> tuple[Commit, ...]:
    """Every distinct assignment of a four-card hand to the cartouches (at most 24)."""
    key = tuple(sorted(hand))
    moves = _COMMITS_BY_HAND.get(key)
    if moves is None:
        moves = tuple(Commit(p) for p in sorted(set(permutations(key, 4))))
        _COMMITS_BY_HAND[key] = moves
    return moves


def move_from_dict(data: object) -> Move:
    """Parse the plain-dict form of a move; ValueError says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"a move must be an object, got {type(data).__name__}")
    kind = data.get("move")
    if kind == "commit":
        cards = data.get("cards")
        if not isinstance(cards, (list, tuple)) or len(cards) != 4:
            raise ValueError("commit needs 'cards': a list of four card values")
        for i, value in enumerate(cards):
            if type(value) is not int or not 1 <= value <= 4:
                raise ValueError(f"cards[{i}]: expected an integer 1–4, got {value!r}")
        c1, c2, c3, c4 = cards
        return Commit((c1, c2, c3, c4))
    if kind == "exchange":
        return EXCHANGE
    if kind == "resign":
        return RESIGN
    if kind in ("remove", "place"):
        temple, square = data.get("temple"), data.get("square")
        if type(temple) is not int or temple not in TEMPLES:
            raise ValueError(f"temple: expected an integer 1–4, got {temple!r}")
        if type(square) is not int or not 0 <= square < SQUARES_PER_TEMPLE:
            raise ValueError(f"square: expected an integer 0–11, got {square!r}")
        cls = Remove if kind == "remove" else Place
        return cls(temple, square)
    raise ValueError(f"unknown move {kind!r} (expected commit, exchange, remove, place or resign)")
