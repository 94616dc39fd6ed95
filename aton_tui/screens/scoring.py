"""The scoring round, category by category; the player dismisses it."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

RULES = {
    1: "majority: own − opponent's stones",
    2: "majority: 5",
    3: "majority: 1 per own stone",
    4: "majority: 3 per own stone on a blue square",
    5: "majority: 8",
    6: "each: +1/+2 per own stone",
}


def breakdown(categories: list[dict]) -> Table:
    table = Table(box=None, expand=True, pad_edge=False)
    table.add_column("category")
    table.add_column("how it scores", style="dim")
    table.add_column("● red", justify="right")
    table.add_column("■ blue", justify="right")
    table.add_column("points", justify="right")
    totals = {"red": 0, "blue": 0}
    for c in categories:
        gains = []
        for seat in ("red", "blue"):
            points = c[f"{seat}_points"]
            totals[seat] += points
            if points:
                gains.append(f"{seat} +{points}")
        title = c["title"][0].upper() + c["title"][1:]
        table.add_row(title, RULES.get(c["category"], ""), str(c["red_count"]), str(c["blue_count"]),
                      ", ".join(gains) or "—")
    table.add_row(Text("total", style="bold"), "", "", "",
                  Text(f"red +{totals['red']}, blue +{totals['blue']}", style="bold"))
    return table


class ScoringScreen(ModalScreen[None]):
    BINDINGS = [Binding("enter,escape,space", "close", "Continue")]

    def __init__(self, dead: int, categories: list[dict], scores: tuple[int, int]) -> None:
        super().__init__(classes="dialog")
        self.dead, self.categories, self.scores = dead, categories, scores

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box wide"):
            yield Label(f"Scoring round — the Kingdom of the Dead holds {self.dead} stones", classes="dialog-title")
            yield Static(breakdown(self.categories), id="breakdown")
            red, blue = self.scores
            yield Label(f"Scores now: red {red}, blue {blue}.  The stones in the Kingdom go back to the supplies.",
                        classes="dialog-text")
            yield Button("Continue (Enter)", variant="primary", id="continue")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
