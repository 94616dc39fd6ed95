"""The action track: six slots in three colour pairs, {1, 2} {3, 4} {5, 6}, resolved in order.

Each slot is a column two lines high: its number and whose card lies on it (``●`` red,
``■`` blue), then the card — ``▒▒▒`` face down, its name face up, dimmed with ``✓`` once
resolved, ``≈ fogged`` when Fog cancelled it, ``·`` empty.  The slot being resolved is lit.
While programming, the slots the player may fill are lit and their draft cards shown; while
choosing a Fog, the slots that may be fogged are lit and the cursor's stands out.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from .choosing import Target
from .ring import CLAN_SYMBOL

SLOTS = 6
PAIR_GAP = 2
FACE_DOWN = "▒▒▒"


@dataclass(frozen=True)
class SlotFace:
    slot: int
    owner: str | None = None  # "red", "blue" (None: empty)
    card: str | None = None  # the card's name, when the receiver may see it
    state: str = "empty"  # "empty", "down", "up", "resolved", "fogged", "draft" (the player's own, not sealed)
    resolving: bool = False


def pair_of(slot: int) -> int:
    return (slot - 1) // 2


class Track(Widget):
    """The six slots; posts ``Track.Clicked`` with ``("slot", n)`` when one is clicked."""

    COMPONENT_CLASSES = {"track--pair-0", "track--pair-1", "track--pair-2", "track--red", "track--blue",
                         "track--down", "track--up", "track--resolved", "track--fogged", "track--draft",
                         "track--empty", "track--resolving", "track--target", "track--cursor"}

    slots: reactive[tuple[SlotFace, ...]] = reactive(tuple(SlotFace(n) for n in range(1, SLOTS + 1)))
    targets: reactive[tuple[Target, ...]] = reactive(())
    cursor: reactive[Target | None] = reactive(None)

    class Clicked(Message):
        def __init__(self, target: Target) -> None:
            super().__init__()
            self.target = target

    def slot_width(self) -> int:
        return max(6, (self.size.width - 2 * PAIR_GAP) // SLOTS)

    def slot_x(self, slot: int) -> int:
        return (slot - 1) * self.slot_width() + pair_of(slot) * PAIR_GAP

    def slot_at(self, x: int) -> int | None:
        for slot in range(1, SLOTS + 1):
            if self.slot_x(slot) <= x < self.slot_x(slot) + self.slot_width():
                return slot
        return None

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        slot = None if at is None else self.slot_at(at.x)
        if slot is not None:
            event.stop()
            self.post_message(self.Clicked(("slot", slot)))

    def _style(self, name: str, partial: bool = False) -> Style:
        """A component's style; ``partial``: only what it sets itself (to lay over another)."""
        return self.get_component_rich_style(f"track--{name}", partial=partial)

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        w = self.slot_width()
        segments: list[Segment] = []
        for face in self.slots:
            if face.slot > 1 and face.slot % 2 == 1:
                segments.append(Segment(" " * PAIR_GAP, base))
            if y == 0:
                segments += self._label(face, w)
            elif y == 1:
                segments.append(self._card(face, w))
        return Strip(segments).adjust_cell_length(self.size.width, base)

    def _label(self, face: SlotFace, w: int) -> list[Segment]:
        target = ("slot", face.slot)
        style = self._style(f"pair-{pair_of(face.slot)}")
        if target == self.cursor:
            style = self._style("cursor")
        elif face.resolving:
            style = self._style("resolving")
        elif target in self.targets:
            style += self._style("target", partial=True)
        number = f"{'▶' if target == self.cursor or face.resolving else ' '}{face.slot} "
        owner = [Segment(CLAN_SYMBOL[face.owner], style + self._style(face.owner, partial=True))] if face.owner else []
        used = len(number) + len(owner)
        return [Segment(number, style), *owner, Segment(" " * (w - used), style)]

    def _card(self, face: SlotFace, w: int) -> Segment:
        if face.state == "down":
            text = FACE_DOWN
        elif face.state == "fogged":
            text = "≈ fogged"
        elif face.state == "empty":
            text = "·"
        else:
            text = (face.card or "?") + (" ✓" if face.state == "resolved" else "")
        style = self._style(face.state)
        if ("slot", face.slot) in self.targets and face.state == "empty":
            text = "free"
            style += self._style("target", partial=True)
        if face.resolving:
            style += self._style("resolving")
        text = " " + text
        if len(text) > w:
            text = text[:w - 1] + "…"
        return Segment(text.ljust(w), style)
