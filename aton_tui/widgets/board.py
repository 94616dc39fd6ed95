"""The four temples, drawn as tiles that keep their colour and kind letter under a stone.

Each square is a tile: its top line names the kind (Y yellow, G green, K black,
B blue, +1, +2; full names when there is room) on the kind's colour, and a stone
stands below as a chip: red ● or blue ■, told apart by shape as well as colour.
While a square must be chosen, squares that are not legal are muted and the
cursor's tile is lit.  A replay lights the square an analysis preferred (``better``,
its tag after a ★).  The tiles grow with the widget.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from aton.board import COLUMNS, LAYOUT, ROWS, SquareKind
from aton.players import Player

from .symbols import SEAT_SYMBOL

Square = tuple[int, int]
EMPTY_BOARD: tuple[tuple[Player | None, ...], ...] = ((None,) * 12,) * 4

SHORT_TAG = {SquareKind.YELLOW: "Y", SquareKind.GREEN: "G", SquareKind.BLACK: "K",
             SquareKind.BLUE: "B", SquareKind.BONUS1: "+1", SquareKind.BONUS2: "+2"}
KIND_CLASS = {SquareKind.YELLOW: "yellow", SquareKind.GREEN: "green", SquareKind.BLACK: "black",
              SquareKind.BLUE: "blue", SquareKind.BONUS1: "bonus", SquareKind.BONUS2: "bonus"}
#: How each temple scores in a scoring round, in a few characters (the help screen says more).
TEMPLE_HINTS = ("diff", "5 pts", "1 each", "3/blue")
HINTS_FIT = len("Temple 1 · ") + max(len(h) for h in TEMPLE_HINTS)
TEMPLE_GAP = 2
#: the sign before a lit tile's tag: the cursor's, the better square's
LIT_SIGN = {"cursor": "▶", "better": "★"}
TITLE_LINES = 1


@dataclass(frozen=True)
class Geometry:
    """Tile size and placement for a widget of a given size."""

    tile_w: int
    tile_h: int
    row_gap: int
    left: int

    @classmethod
    def fit(cls, width: int, height: int) -> Geometry:
        rows_height = height - TITLE_LINES
        if rows_height >= 3 * 3 + 2:
            tile_h, row_gap = 3, 1
        elif rows_height >= 6:
            tile_h, row_gap = 2, 0
        else:
            tile_h, row_gap = 1, 0
        tile_w = max(2, min(9, (width - 3 * TEMPLE_GAP + 1) // 16 - 1))
        total = 16 * (tile_w + 1) - 1 + 3 * TEMPLE_GAP
        return cls(tile_w, tile_h, row_gap, max(0, (width - total) // 2))

    @property
    def mark_column(self) -> int:
        """The column of a tile where a stone's symbol or a free square's "·" stands."""
        return (self.tile_w - 1) // 2

    @property
    def mark_line(self) -> int:
        """The line of a tile (below its kind's tag) where a stone's symbol or a "·" stands."""
        return 1 + (self.tile_h - 2) // 2

    @property
    def temple_width(self) -> int:
        return COLUMNS * (self.tile_w + 1) - 1

    def temple_x(self, temple: int) -> int:
        return self.left + (temple - 1) * (self.temple_width + TEMPLE_GAP)

    def row_y(self, row: int) -> int:
        return TITLE_LINES + row * (self.tile_h + self.row_gap)

    def square_at(self, x: int, y: int) -> Square | None:
        """The square under a point of the widget, if any."""
        for temple in range(1, 5):
            dx = x - self.temple_x(temple)
            if 0 <= dx < self.temple_width and dx % (self.tile_w + 1) < self.tile_w:
                for row in range(ROWS):
                    dy = y - self.row_y(row)
                    if 0 <= dy < self.tile_h:
                        return temple, row * COLUMNS + dx // (self.tile_w + 1)
        return None


@lru_cache(maxsize=64)
def faded(style: Style, background: RichColor | None) -> Style:
    """``style`` faded towards ``background`` (something that cannot be chosen now)."""
    back = Color.from_rich_color(background)
    bg = Color.from_rich_color(style.bgcolor).blend(back, 0.65) if style.bgcolor else back
    fg = Color.from_rich_color(style.color).blend(back, 0.55) if style.color else None
    return Style(bgcolor=bg.rich_color, color=fg.rich_color if fg else None)


class Board(Widget):
    """The temples; posts ``Board.SquareClicked`` when a tile is clicked."""

    COMPONENT_CLASSES = {
        "board--yellow", "board--green", "board--black", "board--blue", "board--bonus",
        "board--red-stone", "board--blue-stone", "board--cursor", "board--title", "board--hint",
        "board--legal", "board--better",
    }

    temples: reactive[tuple[tuple[Player | None, ...], ...]] = reactive(EMPTY_BOARD)
    legal: reactive[frozenset[Square]] = reactive(frozenset())
    choosing: reactive[bool] = reactive(False)
    cursor: reactive[Square | None] = reactive(None)
    better: reactive[Square | None] = reactive(None)  # the analysis's preferred square (a replay)

    class SquareClicked(Message):
        def __init__(self, square: Square) -> None:
            super().__init__()
            self.square = square

    def geometry(self) -> Geometry:
        return Geometry.fit(self.size.width, self.size.height)

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        square = None if at is None else self.geometry().square_at(at.x, at.y)
        if square is not None:
            event.stop()
            self.post_message(self.SquareClicked(square))

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        geo = self.geometry()
        width = self.size.width
        base = self.rich_style
        segments: list[Segment] = [Segment(" " * geo.left, base)]
        for temple in range(1, 5):
            if temple > 1:
                segments.append(Segment(" " * TEMPLE_GAP, base))
            segments.extend(self._temple_line(temple, y, geo, base))
        return Strip(segments).adjust_cell_length(width, base)

    def _temple_line(self, temple: int, y: int, geo: Geometry, base: Style) -> list[Segment]:
        if y < TITLE_LINES:
            return self._title(temple, geo)
        for row in range(ROWS):
            line = y - geo.row_y(row)
            if 0 <= line < geo.tile_h:
                segments: list[Segment] = []
                for column in range(COLUMNS):
                    if column:
                        segments.append(Segment(" ", base))
                    segments.extend(self._tile_line((temple, row * COLUMNS + column), line, geo))
                return segments
        return [Segment(" " * geo.temple_width, base)]

    def _title(self, temple: int, geo: Geometry) -> list[Segment]:
        name = f"Temple {temple}"
        hint = f" · {TEMPLE_HINTS[temple - 1]}" if geo.temple_width >= HINTS_FIT else ""
        return [
            Segment(name, self.get_component_rich_style("board--title")),
            Segment(hint.ljust(geo.temple_width - len(name)), self.get_component_rich_style("board--hint")),
        ]

    def _kind_style(self, kind: SquareKind, muted: bool) -> Style:
        style = self.get_component_rich_style(f"board--{KIND_CLASS[kind]}")
        return self._mute(style) if muted else style

    def _mute(self, style: Style) -> Style:
        """The style faded towards the board's background (a square not choosable now)."""
        return faded(style, self.rich_style.bgcolor)

    def _tile_line(self, square: Square, line: int, geo: Geometry) -> list[Segment]:
        temple, index = square
        kind = LAYOUT[temple - 1][index]
        owner = self.temples[temple - 1][index]
        muted = self.choosing and square not in self.legal
        kind_style = self._kind_style(kind, muted)
        tag = self._tag(kind, geo)
        w = geo.tile_w
        if geo.tile_h == 1:
            return self._single_line(square, kind, owner, kind_style, muted, w)
        if line == 0:
            lit = self._lit(square)
            style = self.get_component_rich_style(f"board--{lit}") if lit else kind_style
            text = (tag if len(tag) > 1 or w < 5 else " " + tag).ljust(w)[:w]
            if lit and len(tag) < w:
                text = (LIT_SIGN[lit] + tag).ljust(w)
            return [Segment(text, style)]
        middle = line == geo.mark_line
        if owner is None:
            mark = "·" if middle and self.choosing and square in self.legal else " "
            legal_style = kind_style + self.get_component_rich_style("board--legal", partial=True)
            column = geo.mark_column
            return [Segment(" " * column + mark + " " * (w - column - 1), legal_style)]
        return self._chip_line(owner, middle, geo, kind_style, muted)

    def _chip_line(self, owner: Player, middle: bool, geo: Geometry, kind_style: Style, muted: bool) -> list[Segment]:
        """A line of a stone's chip: centred on the tile's mark column, the symbol on the middle line."""
        w, column = geo.tile_w, geo.mark_column
        pad_left = 1 if w >= 5 else 0
        half = column - pad_left
        chip_style = self.get_component_rich_style(f"board--{owner}-stone")
        if muted:
            chip_style = self._mute(chip_style)
        symbol = SEAT_SYMBOL[owner] if middle else " "
        return [
            Segment(" " * pad_left, kind_style),
            Segment(" " * half + symbol + " " * half, chip_style),
            Segment(" " * (w - pad_left - 2 * half - 1), kind_style),
        ]

    def _single_line(self, square: Square, kind: SquareKind, owner: Player | None, kind_style: Style,
                     muted: bool, w: int) -> list[Segment]:
        """Tiles one line high: the kind's tag, then the stone chip."""
        tag = SHORT_TAG[kind]
        lit = self._lit(square)
        if lit:
            kind_style = self.get_component_rich_style(f"board--{lit}")
        if owner is None:
            return [Segment(tag.center(w), kind_style)]
        chip_w = 2 if w >= 3 else 1  # the stone and a space, or the stone alone
        tag = tag if len(tag) <= w - chip_w else tag[-1]
        chip_style = self.get_component_rich_style(f"board--{owner}-stone")
        if muted:
            chip_style = self._mute(chip_style)
        return [Segment(tag.ljust(w - chip_w), kind_style), Segment((SEAT_SYMBOL[owner] + " ")[:chip_w], chip_style)]

    def _lit(self, square: Square) -> str | None:
        """Whether the tile is lit: "cursor" (being chosen), "better" (an analysis's choice)."""
        return "cursor" if square == self.cursor else "better" if square == self.better else None

    @staticmethod
    def _tag(kind: SquareKind, geo: Geometry) -> str:
        return kind.value if geo.tile_w >= 7 else SHORT_TAG[kind]
