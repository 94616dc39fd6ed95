"""What the replay viewers of every game share: stepping through a record, and whose eyes.

``SteppingScreen`` keeps the step shown (``index``) and the perspective, and moves them:
← → a move, ↑ ↓ (PgUp PgDn) a round, Home End the start and the end, a click on a log line
(``StepLog.Picked``) its step, v the next perspective, Esc or q closes.  A viewer puts
``MOVING`` first in its bindings and ``CLOSE`` last, and draws the step in ``refresh_view``
and the log of every step in ``tell``.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen

from ..replay_model import Perspective, SteppedRecord
from ..widgets.step_log import StepLog
from .client_screen import ClientScreen

MOVING = [
    Binding("left,h", "step(-1)", "Move", key_display="←→", tooltip="one move back"),
    Binding("right,l", "step(1)", "Move", show=False, tooltip="one move forward"),
    Binding("up,k,pageup", "round(-1)", "Round", key_display="↑↓", tooltip="back to the start of a round"),
    Binding("down,j,pagedown", "round(1)", "Round", show=False, tooltip="on to the next round"),
    Binding("home", "go(0)", "Start", key_display="Home", tooltip="the start of the game"),
    Binding("end", "go(-1)", "End", key_display="End", tooltip="the end of the record"),
    Binding("v", "perspective", "View", tooltip="whose knowledge is shown: red, blue, a spectator, everything"),
]
CLOSE = Binding("escape,q", "close", "Close", key_display="Esc", tooltip="close the replay")


class SteppingScreen(ClientScreen, Screen[None]):
    def __init__(self, model: SteppedRecord[Any], perspective: Perspective = Perspective.RED,
                 at_end: bool = False) -> None:
        """``perspective``: shown first (a spectator's when the record may not be shown so);
        ``at_end``: the last step first, else the start."""
        super().__init__()
        self.model = model
        self.perspective = perspective if perspective in model.perspectives else Perspective.SPECTATOR
        self.index = model.last if at_end else 0

    def refresh_view(self) -> None:
        """Draw step ``index`` as ``perspective`` knew it."""
        raise NotImplementedError

    def tell(self) -> None:
        """Write the log of every step, as ``perspective`` reads it."""
        raise NotImplementedError

    def error_text(self) -> str:
        """Why the record stops replaying, for a notice above the game and after the log ("": it replays)."""
        error = self.model.error
        return "" if error is None else f"This record does not replay: {error}. It is shown up to there."

    def go(self, index: int) -> None:
        self.index = max(0, min(self.model.last, index))
        self.refresh_view()

    def action_step(self, moves: int) -> None:
        self.go(self.index + moves)

    def action_round(self, rounds: int) -> None:
        self.go(self.model.round_step(self.index, rounds))

    def action_go(self, index: int) -> None:
        self.go(self.model.last if index < 0 else index)

    def on_step_log_picked(self, event: StepLog.Picked) -> None:
        self.go(event.step)

    def action_perspective(self) -> None:
        shown = self.model.perspectives
        self.perspective = shown[(shown.index(self.perspective) + 1) % len(shown)]
        self.tell()
        self.refresh_view()
        self.notify(f"The replay shows the game {self.perspective.label}.", timeout=2)

    def action_close(self) -> None:
        self.dismiss(None)
