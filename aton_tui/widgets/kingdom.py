"""The Kingdom of the Dead: eight places, stones beyond them shown as overflow."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from aton.game import KINGDOM_CAPACITY
from aton.players import BLUE, RED

from .symbols import SEAT_SYMBOL

LABELS = ("Kingdom of the Dead ", "Kingdom ")
#: what a full Kingdom means, from the longest to the shortest
FULL_NOTES = (" — full: a scoring round ends this round", " — full: scoring at the round's end", " full")


class Kingdom(Widget):
    COMPONENT_CLASSES = {"kingdom--label", "kingdom--red", "kingdom--blue", "kingdom--empty", "kingdom--note"}

    dead: reactive[tuple[int, int]] = reactive((0, 0))  # red, blue

    def render(self) -> Text:
        """The longest label and note that fit the width with every stone."""
        red, blue = self.dead
        stones = [RED] * red + [BLUE] * blue
        total = len(stones)
        count = f" {total}/{KINGDOM_CAPACITY}"
        notes = FULL_NOTES if total >= KINGDOM_CAPACITY else ("",)
        places = 2 * max(KINGDOM_CAPACITY, total) + (2 if total > KINGDOM_CAPACITY else 0)
        fitting = [(label, note) for note in notes for label in LABELS  # the whole note before the long label
                   if len(label) + places + len(count) + len(note) <= self.size.width]
        label, note = fitting[0] if fitting else (LABELS[-1], notes[-1])
        line = Text(label, self.get_component_rich_style("kingdom--label"))
        for place in range(max(KINGDOM_CAPACITY, total)):
            if place == KINGDOM_CAPACITY:
                line.append("│ ", self.get_component_rich_style("kingdom--note"))
            if place < total:
                owner = stones[place]
                line.append(SEAT_SYMBOL[owner] + " ", self.get_component_rich_style(f"kingdom--{owner}"))
            else:
                line.append("○ ", self.get_component_rich_style("kingdom--empty"))
        line.append(count + note, self.get_component_rich_style("kingdom--note"))
        return line
