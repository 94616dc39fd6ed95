"""The board: four temples of 3 x 4 squares, their colours, and square sets as bitmasks.

A square is addressed by the players as (temple 1-4, square 0-11), with
``square = row * 4 + column``.  Inside the engine every square is one bit of a
48-bit integer: bit ``(temple - 1) * 12 + square``.  A set of squares is then a
plain ``int`` and set algebra is ``&``, ``|`` and ``~``; ``mask.bit_count()``
counts the squares in a set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from functools import lru_cache

TEMPLES = (1, 2, 3, 4)
SQUARES_PER_TEMPLE = 12
ROWS, COLUMNS = 3, 4
BOARD_SQUARES = len(TEMPLES) * SQUARES_PER_TEMPLE
ALL_SQUARES = (1 << BOARD_SQUARES) - 1


class SquareKind(StrEnum):
    """The printed colour (or bonus) of a square; a bonus square has no other colour."""

    YELLOW = "yellow"
    GREEN = "green"
    BLACK = "black"
    BLUE = "blue"
    BONUS1 = "+1"
    BONUS2 = "+2"


_Y, _G, _K, _B = SquareKind.YELLOW, SquareKind.GREEN, SquareKind.BLACK, SquareKind.BLUE
_P1, _P2 = SquareKind.BONUS1, SquareKind.BONUS2

#: The printed layout, one 12-tuple per temple, square 0 first (rules, section 2).
LAYOUT: tuple[tuple[SquareKind, ...], ...] = (
    (_Y, _Y, _Y, _Y, _K, _K, _P1, _B, _G, _G, _G, _G),
    (_Y, _Y, _Y, _Y, _K, _K, _P1, _B, _G, _G, _G, _G),
    (_Y, _Y, _Y, _P1, _K, _K, _K, _B, _G, _G, _G, _P1),
    (_Y, _Y, _Y, _P2, _K, _K, _K, _B, _G, _G, _G, _P2),
)


def index_of(temple: int, square: int) -> int:
    """Bit index of (temple 1-4, square 0-11)."""
    return (temple - 1) * SQUARES_PER_TEMPLE + square


def temple_square(index: int) -> tuple[int, int]:
    """(temple 1-4, square 0-11) of a bit index."""
    return index // SQUARES_PER_TEMPLE + 1, index % SQUARES_PER_TEMPLE


def _mask_where(predicate: Callable[[int, int], bool]) -> int:
    mask = 0
    for t in TEMPLES:
        for s in range(SQUARES_PER_TEMPLE):
            if predicate(t, s):
                mask |= 1 << index_of(t, s)
    return mask


def _kind_mask(kind: SquareKind) -> int:
    return _mask_where(lambda t, s: LAYOUT[t - 1][s] is kind)


def _temple_mask(temple: int) -> int:
    return _mask_where(lambda t, s: t == temple)


def _range_mask(value: int) -> int:
    return _mask_where(lambda t, s: t <= value)


#: Squares of each temple, indexed by temple number (index 0 is unused and empty).
TEMPLE_MASK: tuple[int, ...] = (0, *(_temple_mask(t) for t in TEMPLES))
#: Squares allowed by a cartouche-3 card of value v: temples 1..v (index 0 is empty).
RANGE_MASK: tuple[int, ...] = tuple(_range_mask(v) for v in range(5))

YELLOW_MASK = _kind_mask(SquareKind.YELLOW)
GREEN_MASK = _kind_mask(SquareKind.GREEN)
BLACK_MASK = _kind_mask(SquareKind.BLACK)
BLUE_MASK = _kind_mask(SquareKind.BLUE)
BONUS1_MASK = _kind_mask(SquareKind.BONUS1)
BONUS2_MASK = _kind_mask(SquareKind.BONUS2)

def iter_indices(mask: int) -> Iterator[int]:
    """The bit indices set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: (temple, square) of each bit index, made once (``square_set`` runs for every view with a decision).
_SQUARE_OF: tuple[tuple[int, int], ...] = tuple(temple_square(i) for i in range(BOARD_SQUARES))


def square_set(mask: int) -> list[tuple[int, int]]:
    """A square set as a sorted list of (temple, square) pairs."""
    return [_SQUARE_OF[i] for i in iter_indices(mask)]


_ROW = (1 << SQUARES_PER_TEMPLE) - 1


def square_tuple(mask: int) -> tuple[tuple[int, int], ...]:
    """``square_set`` as a tuple, temple by temple from a table of each temple's 4,096 rows (the
    server lists a decision's squares in a view for every move)."""
    width = SQUARES_PER_TEMPLE
    return (_temple_squares(1, mask & _ROW) + _temple_squares(2, mask >> width & _ROW)
            + _temple_squares(3, mask >> 2 * width & _ROW) + _temple_squares(4, mask >> 3 * width & _ROW))


@lru_cache(maxsize=len(TEMPLES) << SQUARES_PER_TEMPLE)  # every row of every temple: the cache never evicts
def _temple_squares(temple: int, row: int) -> tuple[tuple[int, int], ...]:
    return tuple((temple, square) for square in range(SQUARES_PER_TEMPLE) if row >> square & 1)


def mask_of(squares: Iterable[tuple[int, int]]) -> int:
    """The bitmask of an iterable of (temple, square) pairs."""
    mask = 0
    for temple, square in squares:
        mask |= 1 << index_of(temple, square)
    return mask


def describe_temples(range_value: int) -> str:
    """'temple 1' or 'temples 1–3' for a cartouche-3 value."""
    return "temple 1" if range_value == 1 else f"temples 1–{range_value}"
