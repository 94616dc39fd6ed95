"""The replay viewer: a recorded game, stepped through move by move on the live game's widgets.

The screen draws a ``ReplayModel`` at one step, from one perspective: the board, the
score track, the Kingdom, the player table (cartouches as that side saw them), the hand
of that side while it commits, and the narrated log up to the step, whose lines are lit.
← → step a move, ↑ ↓ (PgUp PgDn) a round, Home End go to the start and the end, a click on
a log line goes to its step, v shows the game from the next perspective.  A record that
stops replaying shows its steps up to the bad move and says which move and why.
"""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Static

from aton.game import Phase
from aton.players import BLUE, RED, Player
from aton.views import View

from ..narrate import player_name, result_sentence
from ..replay_model import Perspective, ReplayModel
from ..widgets.board import Board
from ..widgets.commit_panel import CommitPanel
from ..widgets.kingdom import Kingdom
from ..widgets.notice import Notice
from ..widgets.players import PlayerRow, PlayersPanel, cartouche_faces
from ..widgets.score_track import ScoreTrack
from ..widgets.step_log import StepLog
from ..widgets.symbols import SEAT_SYMBOL
from .game import LARGE


class ReplayScreen(Screen[None]):
    BINDINGS = [
        Binding("left,h", "step(-1)", "Move", key_display="←→", tooltip="one move back"),
        Binding("right,l", "step(1)", "Move", show=False, tooltip="one move forward"),
        Binding("up,k,pageup", "round(-1)", "Round", key_display="↑↓", tooltip="back to the start of a round"),
        Binding("down,j,pagedown", "round(1)", "Round", show=False, tooltip="on to the next round"),
        Binding("home", "go(0)", "Start", key_display="Home", tooltip="the start of the game"),
        Binding("end", "go(-1)", "End", key_display="End", tooltip="the end of the record"),
        Binding("v", "perspective", "View", tooltip="whose knowledge is shown: red, blue, a spectator, everything"),
        Binding("escape,q", "close", "Close", key_display="Esc", tooltip="close the replay"),
    ]

    def __init__(self, model: ReplayModel, perspective: Perspective = Perspective.RED, at_end: bool = False) -> None:
        super().__init__()
        self.model = model
        self.perspective = perspective if perspective in model.perspectives else Perspective.SPECTATOR
        self.index = model.last if at_end else 0

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar", markup=False)
        yield Notice(self._error_text(), id="replay-error")
        yield ScoreTrack()
        yield Board()
        yield Kingdom()
        with Container(id="lower"):
            with Vertical(id="side"):
                yield PlayersPanel(time.monotonic)
                yield Static("", id="decision", markup=False)
                yield CommitPanel(read_only=True)
            yield StepLog(id="log")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._tell()
        self.refresh_view()

    def on_resize(self, event: Resize) -> None:
        large = event.size.width >= LARGE[0] and event.size.height >= LARGE[1]
        self.set_class(large, "-large")

    def _error_text(self) -> str:
        error = self.model.error
        return "" if error is None else f"This record does not replay: {error}. It is shown up to there."

    # ------------------------------------------------------------------ drawing

    @property
    def view(self) -> View:
        return self.model.view(self.index, self.perspective)

    def _tell(self) -> None:
        """Write the log of every step, as this perspective reads it."""
        model = self.model
        lines = [model.lines(i, self.perspective) for i in range(len(model.steps))]
        self.query_one(StepLog).tell(lines, ending=self._error_text())

    def refresh_view(self) -> None:
        view = self.view
        self.query_one("#top-bar", Static).update(self._top_line())
        self.query_one(ScoreTrack).scores = (view.red.score, view.blue.score)
        self.query_one(Kingdom).dead = (view.red.dead, view.blue.dead)
        bottom = self.perspective.seat or RED
        self.query_one(PlayersPanel).rows = tuple(self._row(seat, view) for seat in (bottom.other, bottom))
        self.query_one(Board).temples = view.temples
        self._show_hand(view)
        self.query_one("#decision", Static).update(self._step_line(view))
        self.query_one(StepLog).show(self.index, whole=self.perspective is Perspective.EVERYTHING)

    def _top_line(self) -> str:
        model = self.model
        game = model.record.meta.get("game")
        which = f"game {game}" if isinstance(game, int) else "a recorded game"
        return (f" ATON replay  ·  {which}  ·  {SEAT_SYMBOL[RED]} {model.name(RED)} vs "
                f"{SEAT_SYMBOL[BLUE]} {model.name(BLUE)}  ·  {self.perspective.label}")

    def _row(self, seat: Player, view: View) -> PlayerRow:
        pv = view.player(seat)
        sealed = pv.committed
        return PlayerRow(
            seat=seat, name=self.model.name(seat), you=seat is self.perspective.seat, connected=True,
            to_move=seat in view.pending and view.outcome is None and not (view.phase is Phase.COMMIT and sealed),
            cartouches=cartouche_faces(pv, sealed),
            supply=pv.supply, deck=pv.deck, discard=pv.discard, exchange_used=pv.exchange_used,
            clock_ms=None, clock_at=0.0, strikes=0,
        )

    def _show_hand(self, view: View) -> None:
        """The hand of the side shown while it commits (everything: of the one who moves next)."""
        panel = self.query_one(CommitPanel)
        seat = self.perspective.seat
        if self.perspective is Perspective.EVERYTHING:
            seat = self.model.who_moves(self.index)
        hand = view.player(seat).hand if seat is not None and view.phase is Phase.COMMIT else None
        committing = hand is not None and not view.player(seat).committed  # type: ignore[arg-type]
        panel.display = committing
        if committing and hand is not None:
            panel.start(hand, first_round=view.round == 1, can_exchange=False)

    def _step_line(self, view: View) -> str:
        model = self.model
        total = len(model.record.moves)
        number = model.steps[self.index].number
        where = f"Move {number}/{total}" if number else f"Start ({total} moves)"
        return f"{where}  ·  Round {view.round}  ·  {self._situation(view)}"

    @staticmethod
    def _situation(view: View) -> str:
        if view.outcome is not None:
            return result_sentence(view.outcome)
        if view.phase is Phase.COMMIT:
            return "the players choose their cartouches"
        verb = "removes stones" if view.phase is Phase.REMOVE else "places stones"
        return f"{player_name(view.active)} {verb} (temples 1–{view.range})"

    # ------------------------------------------------------------------ moving about

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
        self._tell()
        self.refresh_view()
        self.notify(f"The replay shows the game {self.perspective.label}.", timeout=2)

    def action_close(self) -> None:
        self.dismiss(None)
