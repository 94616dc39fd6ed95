"""The Kingdom of the Dead: eight places, stones beyond them shown as overflow."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from aton.game import KINGDOM_CAPACITY
from aton.players import BLUE, RED

from .symbols import SEAT_SYMBOL


class Kingdom(Widget):
    COMPONENT_CLASSES = {"kingdom--label", "kingdom--red", "kingdom--blue", "kingdom--empty", "kingdom--note"}

    dead: reactive[tuple[int, int]] = reactive((0, 0))  # red, blue

    def render(self) -> Text:
        red, blue = self.dead
        stones = [RED] * red + [BLUE] * blue
        line = Text("Kingdom of the Dead ", self.get_component_rich_style("kingdom--label"))
        for place in range(max(KINGDOM_CAPACITY, len(stones))):
            if place == KINGDOM_CAPACITY:
                line.append("│ ", self.get_component_rich_style("kingdom--note"))
            if place < len(stones):
                owner = stones[place]
                line.append(SEAT_SYMBOL[owner] + " ", self.get_component_rich_style(f"kingdom--{owner}"))
            else:
                line.append("○ ", self.get_component_rich_style("kingdom--empty"))
        total = len(stones)
        note = f" {total}/{KINGDOM_CAPACITY}"
        if total >= KINGDOM_CAPACITY:
            note += " — full: a scoring round ends this round"
        line.append(note, self.get_component_rich_style("kingdom--note"))
        return line
