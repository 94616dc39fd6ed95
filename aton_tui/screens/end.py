"""The end of a game: who won and why, the final scores, rematch, save, review, back to the lobby.

Nothing here answers Enter: an Enter meant for the board (a stone placed as the clock
ran out) must not start the next game.  Each choice has its own key.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from aton.outcome import Outcome
from aton.players import Player
from protocol.game_frames import rating_text

from ..model import GameModel, ZeusModel
from ..narrate import player_name, rating_change, result_sentence
from ..widgets.symbols import SEAT_SYMBOL
from .client_screen import ClientScreen


def headline(winner: object | None, seat: Player | None) -> str:
    """"You win!", "You lose", "Red wins" (a spectator's) or "A draw"; ``winner`` a seat of any
    game's engine (compared by its wire name)."""
    if winner is None:
        return "A draw"
    if seat is None:
        return f"{str(winner).capitalize()} wins"
    return "You win!" if str(winner) == str(seat) else "You lose"


@dataclass(frozen=True)
class Result:
    """What the end screen says of a finished game, whichever game it was."""

    headline: str  # "You win!"
    sentence: str  # "Red wins: filled a whole temple."
    score: str  # "Final score:  ● Red 40  —  ■ Blue 31"


def aton_result(outcome: Outcome, seat: Player | None, scores: tuple[int, int]) -> Result:
    """The end of a game of Aton: who won, why, and the final scores."""
    red, blue = scores
    return Result(headline(outcome.winner, seat), result_sentence(outcome),
                  f"Final score:  ● Red {red}  —  ■ Blue {blue}")


def ratings_line(model: GameModel | ZeusModel) -> str:
    """What the game did to the players' ratings: "Rated: ● ann 1562? (+62) · ■ bob 1438? (−62)",
    "Casual game: no rating changes.", or nothing (a server without ratings)."""
    changes = model.rating_changes()
    if not changes:
        return "Casual game: no rating changes." if model.options.get("rated") is False else ""
    return "Rated: " + " · ".join(
        f"{SEAT_SYMBOL[seat]} {model.name(seat)} {rating_text(change.after, change.provisional)} "
        f"({rating_change(change.before, change.after)})" for seat, change in sorted(changes.items()))


#: How to answer a rematch offer from the lobby, where r and d mean other things
FROM_THE_LOBBY = "in the command palette (Ctrl+P), Rematch accepts and Decline the rematch declines"


def offer_sentence(offerer: Player, keys: str = "r accepts, d declines") -> str:
    """What the player reads when the opponent offers a rematch, with the keys to answer."""
    return f"{player_name(offerer)} offers a rematch (colours swapped): {keys}."


class EndScreen(ClientScreen, ModalScreen[None]):
    AUTO_FOCUS = ""  # no button takes the focus (None would be the app's "*": the first button)
    BINDINGS = [
        Binding("r", "app.rematch", "Rematch", tooltip="offer a rematch, or accept the opponent's (colours swapped)"),
        Binding("d", "app.decline_rematch", "Decline", tooltip="decline the opponent's offer of a rematch"),
        Binding("s", "app.save_record", "Save", tooltip="save the game's record to a file"),
        Binding("v", "app.review", "Review", tooltip="review the game just played, move by move"),
        Binding("l", "app.lobby", "Lobby", tooltip="back to the lobby"),
        Binding("escape", "close", "See the board",
                tooltip="close the result and look at the board (e shows it again)"),
    ]

    def __init__(self, result: Result, can_rematch: bool, can_save: bool, offer: Player | None = None,
                 hints: int = 0, ratings: str = "") -> None:
        super().__init__(classes="dialog")
        self.result = result
        self.ratings = ratings  # what the game did to the ratings, in a line ("" on an older server)
        self.can_rematch, self.can_save = can_rematch, can_save
        self.offer = offer  # the opponent whose rematch offer waits for our answer
        self.hints = hints  # the hints the player asked for and saw in this game

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(self.result.headline, classes="dialog-title", id="headline", markup=False)
            yield Label(self.result.sentence, classes="dialog-text", markup=False)
            score = self.result.score
            if self.hints:
                score += f"  ·  hints used: {self.hints}"
            yield Label(score, classes="dialog-text", id="final-score", markup=False)
            if self.ratings:
                yield Label(self.ratings, classes="dialog-text", id="ratings", markup=False)
            yield Label("", classes="dialog-alert", id="rematch-note", markup=False)
            with Horizontal(classes="dialog-buttons"):
                if self.can_rematch:
                    yield Button("Rematch (r)", variant="primary", action="app.rematch", id="rematch")
                    yield Button("Decline (d)", action="app.decline_rematch", id="decline")
                if self.can_save:
                    yield Button("Save (s)", action="app.save_record")
                yield Button("Review (v)", action="app.review", id="review")
                yield Button("Lobby (l)", action="app.lobby")
                yield Button("Board (Esc)", action="screen.close")

    def on_mount(self) -> None:
        for button in self.query(Button):
            button.can_focus = False  # clicked or keyed, never pressed by Enter
        if self.offer is not None:
            self.offered(self.offer)
        else:
            self.note("")

    def offered(self, offerer: Player) -> None:
        """The opponent offers a rematch: say so where the player looks, with the keys."""
        self.note(offer_sentence(offerer), answer=True)

    def note(self, text: str, answer: bool = False) -> None:
        """Say how the rematch stands; ``answer``: an offer waits for ours (Decline is offered)."""
        label = self.query_one("#rematch-note", Label)
        label.update(text)
        label.display = bool(text)
        for decline in self.query("#decline"):
            decline.display = answer

    def action_close(self) -> None:
        self.dismiss(None)
