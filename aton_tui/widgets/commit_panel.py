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

#: each cartouche's title, long and short
LABELS = (("C1 points", "C2 order & removal", "C3 range", "C4 placement"),
          ("C1 points", "C2 order", "C3 range", "C4 place"))
HAND_LABEL = "Hand "
CARD_WIDTH = 4  # " 3 " and a space
HINTS = ("  ← type a number or click a card", "  ← type a number", "")
GAP = 2  # between two cartouches' columns


def meaning(cartouche: int, value: int, first_round: bool, short: bool = False) -> str:
    """What ``value`` does on ``cartouche`` (0-3), in a few words (``short``: fewer)."""
    if cartouche == 0:
        return "2× difference" if short else "2× diff if higher"
    if cartouche == 1:
        if first_round:
            return "none: round 1" if short else "none in round 1"
        if value == 2:
            return "no removal"
        whose = "yours" if value == 1 else "theirs"
        count = 2 if value == 4 else 1
        return f"{count} of {whose}" if short else f"removes {count} of {whose}"
    if cartouche == 2:
        return describe_temples(value)
    if short:
        return f"{value} stone{'s' if value > 1 else ''}"
    return f"places {value} stone{'s' if value > 1 else ''}"


def column_widths(short: bool) -> tuple[int, ...]:
    """Each cartouche's column: its title or its longest meaning, and a gap."""
    labels = LABELS[short]
    return tuple(max(len(labels[i]), *(len(meaning(i, v, first, short)) for v in range(1, 5)
                                       for first in (False, True))) + GAP
                 for i in range(CARTOUCHES))


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

    def show_commitment(self, cards: tuple[int, ...], first_round: bool) -> None:
        """A whole commitment to look at (read-only: a replay's better move): ``cards`` on
        cartouches 1–4, with what each would do."""
        self.start(cards, first_round, can_exchange=False)
        self.draft.slots = list(cards)
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

    @property
    def short(self) -> bool:
        """Short titles and meanings: the long ones do not fit the width."""
        return sum(column_widths(False)) > self.size.width

    def columns(self) -> tuple[int, ...]:
        """The x where each cartouche's column starts."""
        widths = column_widths(self.short)
        return tuple(sum(widths[:i]) for i in range(CARTOUCHES))

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        short = self.short
        widths = column_widths(short)
        label_style = self.get_component_rich_style("commit--label")
        buttons = self.buttons()
        room = buttons[0][0] - 1 if buttons else self.size.width
        hand = Text(HAND_LABEL, label_style)
        for value in self.draft.free:
            hand.append(f" {value} ", self.get_component_rich_style("commit--card"))
            hand.append(" ")
        if self.draft.free and not self.read_only:
            hint = next(h for h in HINTS if hand.cell_len + len(h) <= room)
            hand.append(hint, self.get_component_rich_style("commit--hint"))
        for x, label, _ in buttons:
            hand.truncate(x - 1, pad=True)
            hand.append(" ")
            hand.append(label, self.get_component_rich_style("commit--button"))
        labels, slots, meanings = Text(), Text(), Text()
        for i, (label, w) in enumerate(zip(LABELS[short], widths, strict=True)):
            labels.append(label.ljust(w), label_style)
            slots.append_text(self._slot(i, w))
            card = self.draft.slots[i]
            gloss = meaning(i, card, self.first_round, short) if card is not None else ""
            meanings.append(gloss.ljust(w), self.get_component_rich_style("commit--meaning"))
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
            index = max(i for i, x in enumerate(self.columns()) if x <= at.x)
            if index == self.draft.selected and self.draft.slots[index] is not None:
                self.draft.take_back()
            else:
                self.draft.select(index)
        event.stop()
        self.changed()

    def changed(self) -> None:
        self.refresh()
        self.post_message(self.Changed())
