"""The square cursor of removal and placement: it only ever rests on a legal square.

The board is read as one grid of 3 rows × 16 columns (the four temples side by
side).  An arrow moves to the nearest legal square in that direction, preferring
the same row (or column); a temple number jumps into that temple.
"""

from __future__ import annotations

from aton.board import COLUMNS

Square = tuple[int, int]  # (temple 1-4, square 0-11)


def grid_position(square: Square) -> tuple[int, int]:
    """(row, column) of a square on the 3 × 16 grid."""
    temple, index = square
    return index // COLUMNS, (temple - 1) * COLUMNS + index % COLUMNS


def _distance(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int, int]:
    """Nearest first; on a tie, the same row, then the one further right."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]), abs(a[0] - b[0]), -a[1]


class BoardCursor:
    def __init__(self) -> None:
        self.legal: tuple[Square, ...] = ()
        self.square: Square | None = None

    def offer(self, legal: tuple[Square, ...]) -> None:
        """New legal squares: stay put if still legal, else go to the nearest (or the first)."""
        self.legal = tuple(sorted(legal))
        if not self.legal:
            self.square = None
        elif self.square is None:
            self.square = self.legal[0]
        elif self.square not in self.legal:
            here = grid_position(self.square)
            self.square = min(self.legal, key=lambda s: _distance(grid_position(s), here))

    def clear(self) -> None:
        """Nothing to choose now; the square is kept to start from next time."""
        self.legal = ()

    @property
    def active(self) -> bool:
        return bool(self.legal)

    def move(self, rows: int, columns: int) -> None:
        """Step towards (rows, columns), e.g. (0, 1) for right, to the nearest legal square."""
        if self.square is None:
            return
        row, col = grid_position(self.square)
        best: tuple[tuple[int, int], Square] | None = None
        for square in self.legal:
            r, c = grid_position(square)
            along, across = (c - col, abs(r - row)) if columns else (r - row, abs(c - col))
            step = columns or rows
            if along * step <= 0:
                continue
            key = (abs(along) + 2 * across, across)
            if best is None or key < best[0]:
                best = (key, square)
        if best is not None:
            self.square = best[1]

    def jump(self, temple: int) -> bool:
        """Go to the first legal square of ``temple``; False if it has none."""
        for square in self.legal:
            if square[0] == temple:
                self.square = square
                return True
        return False
