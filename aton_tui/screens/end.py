"""The end of a game: who won and why, the final scores, rematch, save, back to the lobby."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from aton.outcome import Outcome
from aton.players import Player

from ..narrate import player_name, result_sentence


def headline(outcome: Outcome, seat: Player | None) -> str:
    winner = outcome.winner
    if winner is None:
        return "A draw"
    if seat is None:
        return f"{player_name(winner)} wins"
    return "You win!" if winner is seat else "You lose"


class EndScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("r", "app.rematch", "Rematch"),
        Binding("s", "app.save_record", "Save"),
        Binding("l", "app.lobby", "Lobby"),
        Binding("escape", "close", "See the board"),
    ]

    def __init__(self, outcome: Outcome, seat: Player | None,
                 scores: tuple[int, int], can_rematch: bool, can_save: bool) -> None:
        super().__init__(classes="dialog")
        self.outcome, self.seat = outcome, seat
        self.scores, self.can_rematch, self.can_save = scores, can_rematch, can_save

    def compose(self) -> ComposeResult:
        red, blue = self.scores
        with Vertical(classes="dialog-box"):
            yield Label(headline(self.outcome, self.seat), classes="dialog-title", id="headline", markup=False)
            yield Label(result_sentence(self.outcome), classes="dialog-text", markup=False)
            yield Label(f"Final score:  ● Red {red}  —  ■ Blue {blue}", classes="dialog-text", id="final-score",
                        markup=False)
            yield Label("", classes="dialog-hint", id="rematch-note", markup=False)
            with Horizontal(classes="dialog-buttons"):
                if self.can_rematch:
                    yield Button("Rematch (r)", variant="primary", action="app.rematch")
                if self.can_save:
                    yield Button("Save (s)", action="app.save_record")
                yield Button("Lobby (l)", action="app.lobby")
                yield Button("Board (Esc)", action="screen.close")

    def note(self, text: str) -> None:
        """Say how the rematch stands ("Blue offers a rematch…")."""
        self.query_one("#rematch-note", Label).update(text)

    def action_close(self) -> None:
        self.dismiss(None)
