"""The player's hand: the cards by name, the lit one's effect below them.

While programming, a card already put on the track says on which slot (``→3``) and the lit
card is the one the next slot takes; a click lights a card.  Between programmings the hand is
shown all the same, so that the player can read their cards while the others resolve.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget


@dataclass(frozen=True)
class CardFace:
    title: str
    effect: str
    slot: int | None = None  # the slot of the draft it lies on


def card_label(card: CardFace) -> str:
    return f" {card.title}{f' →{card.slot}' if card.slot is not None else ''} "


class Hand(Widget):
    """Posts ``Hand.Clicked`` with the index of a card clicked."""

    COMPONENT_CLASSES = {"hand--card", "hand--lit", "hand--placed", "hand--label", "hand--effect"}

    cards: reactive[tuple[CardFace, ...]] = reactive((), layout=True)
    lit: reactive[int | None] = reactive(None, layout=True)
    label: reactive[str] = reactive("Hand")

    class Clicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def rows(self, width: int) -> list[list[tuple[int, int]]]:
        """The cards' (index, x) on each line: the label first, then the cards, wrapped."""
        rows: list[list[tuple[int, int]]] = [[]]
        x = cell_len(self.label) + 2
        for index, card in enumerate(self.cards):
            size = cell_len(card_label(card))
            if x + size > width and rows[-1]:
                rows.append([])
                x = 2
            rows[-1].append((index, x))
            x += size + 1
        return rows

    def _effect(self, width: int) -> list[str]:
        """The lit card's name and effect, wrapped at ``width``."""
        if self.lit is None or not 0 <= self.lit < len(self.cards):
            return []
        card = self.cards[self.lit]
        return textwrap.wrap(f"{card.title}: {card.effect}", max(10, width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows(width)) + len(self._effect(width))

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        if at is None:
            return
        rows = self.rows(self.content_size.width)
        if at.y < len(rows):
            for index, x in rows[at.y]:
                if x <= at.x < x + cell_len(card_label(self.cards[index])):
                    event.stop()
                    self.post_message(self.Clicked(index))

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"hand--{name}")

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        width = self.size.width
        rows = self.rows(width)
        if y < len(rows):
            segments: list[Segment] = []
            x = 0
            if y == 0:
                segments.append(Segment(self.label + ": ", self._style("label")))
                x = cell_len(self.label) + 2
            for index, at in rows[y]:
                if at > x:
                    segments.append(Segment(" " * (at - x), base))
                card = self.cards[index]
                style = self._style("lit" if index == self.lit else "placed" if card.slot is not None else "card")
                text = card_label(card)
                segments.append(Segment(text, style))
                x = at + cell_len(text)
            if not rows[y] and y == 0:
                segments.append(Segment("none", self._style("effect")))
            return Strip(segments).adjust_cell_length(width, base)
        effect = self._effect(width)
        line = y - len(rows)
        piece = effect[line] if line < len(effect) else ""
        return Strip([Segment(piece, self._style("effect"))]).adjust_cell_length(width, base)
