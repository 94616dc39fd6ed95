"""Islands and the ring (§2): kinds, sizes, neighbours, distance and the flood marker's advance.

The ring is a sequence of island numbers in clockwise order.  Neighbours and distances come
from positions in that sequence, never from the numbers; the numbers serve only the flood
marker (``next_flood``).
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    ORDINARY = "ordinary"
    VOLCANIC = "volcanic"
    HOLY = "holy"


class Direction(StrEnum):
    """Along the ring: clockwise (to the next position) or counter-clockwise."""

    CW = "cw"
    CCW = "ccw"


@dataclass(frozen=True, slots=True)
class Island:
    """One island of the table: its number, kind and size (large: any number of people)."""

    number: int
    kind: Kind
    large: bool


#: The island table of §2 **[choice]**: (numbers, kind, large).
_TABLE = (
    ((1, 4, 7, 10, 13, 16), Kind.ORDINARY, False),
    ((2, 3, 5, 8), Kind.ORDINARY, True),
    ((6, 9, 12, 15), Kind.VOLCANIC, True),
    ((11, 14), Kind.HOLY, True),
)
#: The sixteen islands by number.
ISLANDS: tuple[Island, ...] = tuple(sorted(
    (Island(n, kind, large) for numbers, kind, large in _TABLE for n in numbers), key=lambda i: i.number))
#: Island numbers run 1..ISLAND_COUNT.
ISLAND_COUNT = 16


def step(ring: Sequence[int], island: int, direction: Direction) -> int | None:
    """The neighbour of ``island`` in ``direction``; None on a ring of one island."""
    n = len(ring)
    if n < 2:
        return None
    i = ring.index(island)
    return ring[(i + 1) % n] if direction is Direction.CW else ring[(i - 1) % n]


def neighbours(ring: Sequence[int], island: int) -> tuple[int, ...]:
    """The islands touching ``island``: counter-clockwise first; one on a ring of two, none on one."""
    n = len(ring)
    if n < 2:
        return ()
    i = ring.index(island)
    ccw, cw = ring[(i - 1) % n], ring[(i + 1) % n]
    return (ccw,) if ccw == cw else (ccw, cw)


def distance(ring: Sequence[int], a: int, b: int) -> int:
    """The ring distance between two islands of the ring: min(|i−j|, n−|i−j|)."""
    d = abs(ring.index(a) - ring.index(b))
    return min(d, len(ring) - d)


def way_round(ring: Sequence[int], a: int, b: int, blocked: Container[int | None]) -> int | None:
    """The length of the shorter way from ``a`` to ``b`` along the ring that passes no island of
    ``blocked`` (the two ends do not count); None when both ways are blocked.  With nothing
    blocked it is the distance."""
    n = len(ring)
    i, j = ring.index(a), ring.index(b)
    open_ways = [length for length, sign in (((j - i) % n, 1), ((i - j) % n, -1))
                 if all(ring[(i + sign * k) % n] not in blocked for k in range(1, length))]
    return min(open_ways, default=None)


def next_flood(ring: Sequence[int], number: int) -> int:
    """Where the flood marker goes from ``number`` (§4.3): the remaining island with the next
    higher number, or the lowest one if none is higher.  ``ring`` must not be empty."""
    higher = [n for n in ring if n > number]
    return min(higher) if higher else min(ring)
