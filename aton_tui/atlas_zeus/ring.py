"""The ring of islands, laid out as a loop: clockwise along the top row, down the right side,
back along the bottom row and up the left side.

Each island is a tile.  Its first line says its number, its kind (``▲`` volcanic, ``✚``
holy, nothing for ordinary) and its size (``s`` small: one person; ``L`` large), then the
markers on it: ``≈`` the flood marker, ``#`` a net and ``⌂`` a pilehouse in their owner's
colour.  The lines below hold the people: the clan's shape and colour (``●`` red, ``■``
blue; a turtle ``◉`` / ``▣``) and their strength.  While a target must be chosen, what may be
chosen is lit, the rest faded, and the cursor's target stands out.  The loop shrinks as
islands leave the ring.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from rich.segment import Segment
from rich.style import Style
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ..widgets.board import faded as fade
from .choosing import Target

#: a clan's shape: plain, and as a turtle
CLAN_SYMBOL = {"red": "●", "blue": "■"}
TURTLE_SYMBOL = {"red": "◉", "blue": "▣"}
KIND_SYMBOL = {"ordinary": "", "volcanic": "▲", "holy": "✚"}
FLOOD, NET, PILEHOUSE = "≈", "#", "⌂"
#: the widest and narrowest tile (columns), and the columns between two tiles (an arrow and a space)
MAX_TILE, MIN_TILE, GAP = 16, 5, 2
#: what the signs mean, said between the rows where it fits (the longest that fits)
LEGENDS = ("▲ volcanic   ✚ holy   s small   L large   ≈ flood   # net   ⌂ pilehouse   ◉ ▣ turtle",
           "▲ volcanic  ✚ holy  s small  L large  ≈ flood  # net  ⌂ pilehouse  ◉▣ turtle",
           "▲ volcano ✚ holy s small L large ≈ flood # net ⌂ pilehouse ◉▣ turtle")
#: from this tile width on, the size is a word ("large") rather than a letter
WORDY_TILE = 12
#: a person's token on a tile: shape and strength ("●40")
TOKEN = 3


@dataclass(frozen=True)
class PersonMark:
    person: str  # "R3"
    clan: str  # "red" or "blue"
    strength: int
    turtle: bool = False
    moved: bool = False  # moved by the Transfer being chosen (drawn at its destination)


@dataclass(frozen=True)
class IslandFace:
    number: int
    kind: str  # "ordinary", "volcanic" or "holy"
    large: bool
    people: tuple[PersonMark, ...] = ()
    flood: bool = False
    net: str | None = None  # the clan whose net lies here
    pilehouse: str | None = None


@dataclass(frozen=True)
class Layout:
    """Where the tiles go for a widget of a size and a ring of ``count`` islands."""

    count: int
    tile_w: int
    tile_h: int
    left: int

    @classmethod
    def fit(cls, count: int, width: int, height: int) -> Layout:
        columns = max(1, ceil(count / 2))
        tile_w = max(MIN_TILE, min(MAX_TILE, (width - 2 - GAP * (columns - 1)) // columns))
        total = columns * tile_w + GAP * (columns - 1) + 2
        tile_h = max(1, (height - 1) // 2)
        return cls(count, tile_w, tile_h, max(0, (width - total) // 2))

    @property
    def columns(self) -> int:
        return max(1, ceil(self.count / 2))

    @property
    def right(self) -> int:
        """The column of the loop's right side."""
        return self.left + 1 + self.columns * self.tile_w + GAP * (self.columns - 1)

    def place(self, position: int) -> tuple[int, int]:
        """The (x, y) of the tile of the ring's ``position`` (0: top left, clockwise)."""
        if position < self.columns:
            column, row = position, 0
        else:
            column, row = self.columns - 1 - (position - self.columns), 1
        return self.left + 1 + column * (self.tile_w + GAP), row * (self.tile_h + 1)

    def position_at(self, x: int, y: int) -> tuple[int, int] | None:
        """The ring position of the tile under (x, y), and the line of the tile."""
        for position in range(self.count):
            tx, ty = self.place(position)
            if tx <= x < tx + self.tile_w and ty <= y < ty + self.tile_h:
                return position, y - ty
        return None

    @property
    def per_line(self) -> int:
        """People tokens on one line of a tile."""
        return max(1, (self.tile_w + 1) // (TOKEN + 1))


def token_lines(people: tuple[PersonMark, ...], layout: Layout) -> list[list[PersonMark | int]]:
    """The tile's lines of people; when they do not all fit, the last token says how many more."""
    room = layout.per_line * max(0, layout.tile_h - 1)
    shown: list[PersonMark | int] = list(people)
    if len(people) > room > 0:
        shown = [*people[:room - 1], len(people) - room + 1]
    return [shown[i:i + layout.per_line] for i in range(0, len(shown), layout.per_line)]


class Ring(Widget):
    """The islands; posts ``Ring.Clicked`` with the target under a click (a person or an island)."""

    COMPONENT_CLASSES = {
        "ring--ordinary", "ring--volcanic", "ring--holy", "ring--flood", "ring--red", "ring--blue",
        "ring--loop", "ring--target", "ring--cursor", "ring--moved", "ring--empty", "ring--legend",
    }

    islands: reactive[tuple[IslandFace, ...]] = reactive(())
    targets: reactive[tuple[Target, ...]] = reactive(())
    cursor: reactive[Target | None] = reactive(None)

    class Clicked(Message):
        def __init__(self, target: Target) -> None:
            super().__init__()
            self.target = target

    def layout_now(self) -> Layout:
        return Layout.fit(len(self.islands), self.size.width, self.size.height)

    def target_at(self, x: int, y: int, layout: Layout | None = None) -> Target | None:
        """The person (on a people line) or the island under a point of the widget (laid out as
        now, or as ``layout``)."""
        layout = layout or self.layout_now()
        found = layout.position_at(x, y)
        if found is None:
            return None
        position, line = found
        island = self.islands[position]
        tx, _ = layout.place(position)
        if line > 0:
            lines = token_lines(island.people, layout)
            index = (x - tx) // (TOKEN + 1)
            if line - 1 < len(lines) and index < len(lines[line - 1]):
                mark = lines[line - 1][index]
                if isinstance(mark, PersonMark):
                    return ("person", mark.person)
        return ("island", island.number)

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        target = None if at is None else self.target_at(at.x, at.y)
        if target is not None:
            event.stop()
            self.post_message(self.Clicked(target))

    # ------------------------------------------------------------------ drawing

    def _style(self, name: str, partial: bool = False) -> Style:
        """A component's style; ``partial``: only what it sets itself (to lay over another)."""
        return self.get_component_rich_style(f"ring--{name}", partial=partial)

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        width = self.size.width
        if not self.islands:
            return Strip([Segment("The ring is empty: every island has sunk." if y == 0 else "", base)]
                         ).adjust_cell_length(width, base)
        layout = self.layout_now()
        cells: list[Segment] = [Segment(" " * layout.left, base)]
        row_h = layout.tile_h + 1
        loop = self._style("loop")
        if y > 2 * layout.tile_h:  # below the bottom row
            return Strip([]).adjust_cell_length(width, base)
        if y == layout.tile_h:  # between the rows: the loop's sides, with their direction
            inner = layout.right - layout.left - 1
            legend = next((text for text in LEGENDS if len(text) <= inner - 2), "")
            cells += [Segment("↑", loop), Segment(legend.center(inner), self._style("legend")), Segment("↓", loop)]
            return Strip(cells).adjust_cell_length(width, base)
        row, line = divmod(y, row_h)
        left, right = ("╭", "╮") if row == 0 else ("╰", "╯")
        side = line == 0
        cells.append(Segment(left if side else "│", loop))
        positions = self._row_positions(layout, row)
        for column, position in enumerate(positions):
            if column:
                arrow = ("› " if row == 0 else "‹ ") if side else "  "
                cells.append(Segment(arrow, loop))
            if position is None:
                cells.append(Segment(("─" * layout.tile_w) if side else " " * layout.tile_w, loop))
            else:
                cells += self._tile_line(self.islands[position], line, layout)
        cells.append(Segment(right if side else "│", loop))
        return Strip(cells).adjust_cell_length(width, base)

    @staticmethod
    def _row_positions(layout: Layout, row: int) -> list[int | None]:
        """The ring positions of a row's columns, left to right (None: no tile there)."""
        if row == 0:
            return list(range(layout.columns))
        bottom = layout.count - layout.columns
        return [None if column < layout.columns - bottom else layout.count - 1 - (column - (layout.columns - bottom))
                for column in range(layout.columns)]

    def _choosing(self) -> bool:
        return bool(self.targets)

    def _tile_line(self, island: IslandFace, line: int, layout: Layout) -> list[Segment]:
        w = layout.tile_w
        kind = self._style(island.kind)
        faded = self._choosing() and not self._island_lit(island)
        if faded:
            kind = self._fade(kind)
        if line == 0:
            return self._header(island, w, kind)
        lines = token_lines(island.people, layout)
        if line - 1 >= len(lines):
            empty = "·" if line == 1 and not island.people else ""
            return [Segment(empty.center(w), kind + self._style("empty", partial=True))]
        segments: list[Segment] = []
        used = 0
        for index, mark in enumerate(lines[line - 1]):
            if index:
                segments.append(Segment(" ", kind))
                used += 1
            if isinstance(mark, int):
                text = f"+{mark}"[:TOKEN].ljust(TOKEN)
                segments.append(Segment(text, kind))
            else:
                segments.append(Segment(self._token(mark), self._person_style(mark, kind, faded)))
            used += TOKEN
        segments.append(Segment(" " * (w - used), kind))
        return segments

    @staticmethod
    def _token(mark: PersonMark) -> str:
        symbol = (TURTLE_SYMBOL if mark.turtle else CLAN_SYMBOL)[mark.clan]
        return f"{symbol}{mark.strength:<2}"[:TOKEN]

    def _person_style(self, mark: PersonMark, kind: Style, faded: bool) -> Style:
        target = ("person", mark.person)
        if target == self.cursor:
            return self._style("cursor")
        style = kind + self._style(mark.clan)
        if mark.moved:  # never faded: the player must see where the step goes
            return style + self._style("moved", partial=True)
        if target in self.targets:
            return style + self._style("target", partial=True)
        return self._fade(style) if faded or self._choosing() else style

    def _fade(self, style: Style) -> Style:
        return fade(style, self.rich_style.bgcolor)

    def _island_lit(self, island: IslandFace) -> bool:
        """Whether something on this tile may be chosen (the island or a person on it)."""
        if ("island", island.number) in self.targets:
            return True
        return any(("person", mark.person) in self.targets for mark in island.people)

    def _header(self, island: IslandFace, w: int, kind: Style) -> list[Segment]:
        target = ("island", island.number)
        if target == self.cursor:
            style = self._style("cursor")
        elif target in self.targets:
            style = kind + self._style("target", partial=True)
        else:
            style = kind
        size = ("large" if island.large else "small") if w >= WORDY_TILE else ("L" if island.large else "s")
        name = f"{island.number:>2}{KIND_SYMBOL[island.kind]}{' ' if w >= WORDY_TILE else ''}{size}"
        if target == self.cursor and len(name) < w:
            name = "▶" + name.lstrip()
        segments = [Segment(name, style)]
        used = len(name)
        for mark, owner in ((FLOOD, "flood" if island.flood else None), (NET, island.net),
                            (PILEHOUSE, island.pilehouse)):
            if owner is not None and used < w:
                segments.append(Segment(mark, kind + self._style(owner)))
                used += 1
        segments.append(Segment(" " * (w - used), style if target == self.cursor else kind))
        return segments
