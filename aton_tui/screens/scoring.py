"""The scoring round, category by category; the player dismisses it."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Label

from aton.events import CategoryScored
from aton.players import BLUE, PLAYERS, RED

from ..narrate import player_name
from ..sizes import ROOMY_WIDTH
from .client_screen import ClientScreen

#: what the majority scores in each category (the help screen says it at length)
RULES = {
    1: "the difference",
    2: "5",
    3: "1 per own stone",
    4: "3 per blue square",
    5: "8",
    6: "everyone +1/+2 each",
}


class Breakdown(Widget):
    """The categories of one scoring round as a table, the players in their colours."""

    COMPONENT_CLASSES = {"breakdown--red", "breakdown--blue", "breakdown--rule", "breakdown--total"}

    def __init__(self, categories: list[CategoryScored], **kwargs) -> None:
        super().__init__(**kwargs)
        self.categories = categories

    def render(self) -> Table:
        seat_style = {seat: self.get_component_rich_style(f"breakdown--{seat}") for seat in PLAYERS}
        table = Table(box=None, pad_edge=False)
        rules = self.app.size.width >= ROOMY_WIDTH  # what each category scores: where there is room
        table.add_column("category")
        if rules:
            table.add_column("majority scores", style=self.get_component_rich_style("breakdown--rule"))
        table.add_column(Text("● Red", seat_style[RED]), justify="right")
        table.add_column(Text("■ Blue", seat_style[BLUE]), justify="right")
        table.add_column("points", justify="right")
        totals = {seat: 0 for seat in PLAYERS}
        for c in self.categories:
            gains = Text()
            for seat, points in ((RED, c.red_points), (BLUE, c.blue_points)):
                totals[seat] += points
                if points:
                    gains.append(("  " if gains else "") + f"{player_name(seat)} +{points}", seat_style[seat])
            title = c.title[0].upper() + c.title[1:]
            rule = (RULES.get(c.category, ""),) if rules else ()
            table.add_row(title, *rule, str(c.red_count), str(c.blue_count), gains or Text("—"))
        total = Text.assemble((f"Red +{totals[RED]}", seat_style[RED]), "  ",
                              (f"Blue +{totals[BLUE]}", seat_style[BLUE]))
        table.add_row(Text("total", self.get_component_rich_style("breakdown--total")), *[""] * (2 + rules), total)
        return table


class ScoringScreen(ClientScreen, ModalScreen[None]):
    BINDINGS = [Binding("enter,escape,space", "close", "Continue")]

    def __init__(self, dead: int, categories: list[CategoryScored], scores: tuple[int, int]) -> None:
        super().__init__(classes="dialog")
        self.dead, self.categories, self.scores = dead, categories, scores

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box wide"):
            yield Label(f"Scoring round · the Kingdom of the Dead holds {self.dead} stones", classes="dialog-title",
                        markup=False)
            yield Breakdown(self.categories)
            red, blue = self.scores
            yield Label(f"Scores now: Red {red}, Blue {blue}.\nThe Kingdom's stones go back to the supplies.",
                        markup=False)
            yield Button("Continue (Enter)", variant="primary", id="continue")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
