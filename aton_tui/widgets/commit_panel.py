"""Putting the hand on the cartouches: the four slots, what each card would do, the cards left.

The panel draws a ``CommitDraft``: the cards left in the hand on top, then the
four cartouches with what each card would do.  Clicks change it: a click on a
card puts it on the lit cartouche; a click on a cartouche lights it, a second
click takes its card back.  Keys are the game screen's, which calls the same
methods.  Every change is announced with ``CommitPanel.Changed``.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from aton.board import describe_temples

from ..commit_draft import CARTOUCHES, CommitDraft

LABELS = ("C1 points", "C2 order & removal", "C3 range", "C4 placement")
HAND_LABEL = "Hand "
CARD_WIDTH = 4  # " 3 " and a space
HINT = "  ← type a number or click a card"


def meaning(cartouche: int, value: int, first_round: bool) -> str:
    """What ``value`` does on ``cartouche`` (0-3), in a few words."""
    if cartouche == 0:
        return "2× diff if higher"
    if cartouche == 1:
        if first_round:
            return "none in round 1"
        return {1: "removes 1 of yours", 2: "no removal", 3: "removes 1 of theirs",
                4: "removes 2 of theirs"}[value]
    if cartouche == 2:
        return describe_temples(value)
    return f"places {value} stone{'s' if value > 1 else ''}"


class CommitPanel(Widget):
    COMPONENT_CLASSES = {
        "commit--label", "commit--slot", "commit--slot-empty", "commit--selected", "commit--meaning",
        "commit--card", "commit--hint", "commit--button",
    }

    class Changed(Message):
        """The draft changed (by a click)."""

    class Pressed(Message):
        """A button of the panel was clicked: "seal" or "exchange"."""

        def __init__(self, button: str) -> None:
            super().__init__()
            self.button = button

    def __init__(self, read_only: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.read_only = read_only  # only shows the hand (a replay): no hint, no buttons, no clicks
        self.draft = CommitDraft(())
        self.first_round = False
        self.can_exchange = False

    def start(self, hand: tuple[int, ...], first_round: bool, can_exchange: bool) -> None:
        """A new decision: an empty draft for ``hand``."""
        self.draft = CommitDraft(hand)
        self.first_round = first_round
        self.can_exchange = can_exchange
        self.refresh()

    def buttons(self) -> list[tuple[int, str, str]]:
        """(x, label, name) of the buttons on the hand line, right-aligned."""
        shown: list[tuple[str, str]] = []
        if self.read_only:
            return []
        if self.can_exchange:
            shown.append((" ⇄ Exchange (x) ", "exchange"))
        if self.draft.complete:
            shown.append((" ✓ Seal (Enter) ", "seal"))
        x = self.size.width
        placed = []
        for label, name in reversed(shown):
            x -= len(label) + 1
            placed.append((x, label, name))
        return sorted(placed)

    def slot_width(self) -> int:
        return max(10, min(24, self.size.width // CARTOUCHES))

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        w = self.slot_width()
        label_style = self.get_component_rich_style("commit--label")
        hand = Text(HAND_LABEL, label_style)
        for value in self.draft.free:
            hand.append(f" {value} ", self.get_component_rich_style("commit--card"))
            hand.append(" ")
        if self.draft.free and not self.read_only:
            hand.append(HINT, self.get_component_rich_style("commit--hint"))
        for x, label, _ in self.buttons():
            hand.truncate(x - 1, pad=True)
            hand.append(" ")
            hand.append(label, self.get_component_rich_style("commit--button"))
        labels, slots, meanings = Text(), Text(), Text()
        for i, label in enumerate(LABELS):
            labels.append(label[: w - 1].ljust(w), label_style)
            slots.append_text(self._slot(i, w))
            card = self.draft.slots[i]
            gloss = meaning(i, card, self.first_round) if card is not None else ""
            meanings.append(gloss[: w - 1].ljust(w), self.get_component_rich_style("commit--meaning"))
        return Text("\n").join([hand, labels, slots, meanings])

    def _slot(self, index: int, w: int) -> Text:
        value = self.draft.slots[index]
        selected = index == self.draft.selected and not self.read_only
        face = f" {value} " if value is not None else " _ " if selected else " · "
        style = self.get_component_rich_style("commit--slot" if value is not None else "commit--slot-empty")
        text = Text()
        text.append("▶" if selected else " ", self.get_component_rich_style("commit--selected"))
        text.append(face, style)
        text.append("◀" if selected else " ", self.get_component_rich_style("commit--selected"))
        text.append(" " * (w - 5))
        return text

    # ------------------------------------------------------------------ changes

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        if at is None or self.read_only:
            return
        if at.y == 0:
            for x, label, name in self.buttons():
                if x <= at.x < x + len(label):
                    event.stop()
                    self.post_message(self.Pressed(name))
                    return
            card = (at.x - len(HAND_LABEL)) // CARD_WIDTH
            free = self.draft.free
            if not 0 <= card < len(free):
                return
            self.draft.put(free[card])
        else:
            index = min(CARTOUCHES - 1, at.x // self.slot_width())
            if index == self.draft.selected and self.draft.slots[index] is not None:
                self.draft.take_back()
            else:
                self.draft.select(index)
        event.stop()
        self.changed()

    def changed(self) -> None:
        self.refresh()
        self.post_message(self.Changed())
