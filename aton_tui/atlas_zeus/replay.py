"""The replay viewer of Atlas & Zeus: a recorded game, stepped through move by move on the live
screen's widgets.

The screen draws a ``ZeusReplayModel`` at one step, from one perspective: the ring, the
track (the other clan's face-down cards as that side saw them), the hand of the side shown
(everything: both hands), both clans, and the narrated log up to the step, whose lines are
lit.  The keys are those of Aton's viewer (``SteppingScreen``); a record that stops
replaying shows its steps up to the bad move and says which move and why.
"""

from __future__ import annotations

import time

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import Static

from atlas_zeus.players import RED
from atlas_zeus.views import View

from ..replay_model import Perspective
from ..screens.stepping import CLOSE, MOVING, SteppingScreen
from ..sizes import LARGE, ROOMY_HEIGHT
from ..widgets.fitted_footer import FittedFooter
from ..widgets.notice import Notice
from ..widgets.step_log import StepLog
from .clans import Clans
from .faces import clan_row, hand_faces, island_faces, slot_faces
from .hand import Hand
from .replay_model import ZeusReplayModel, clan_of
from .ring import CLAN_SYMBOL, Ring
from .track import Track
from .words import result_sentence, situation

CLANS = ("red", "blue")


class ZeusReplayScreen(SteppingScreen):
    BINDINGS = [*MOVING, CLOSE]

    def __init__(self, model: ZeusReplayModel, perspective: Perspective = Perspective.RED,
                 at_end: bool = False) -> None:
        super().__init__(model, perspective, at_end)
        self.model: ZeusReplayModel = model

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar", markup=False)
        yield Notice(self.error_text(), id="replay-error")
        yield Ring()
        yield Track()
        yield Static("", id="az-decision", markup=False)
        for clan in CLANS:
            yield Hand(id=f"hand-{clan}")
        yield Clans(time.monotonic)
        yield StepLog(id="log")
        yield FittedFooter()

    def on_mount(self) -> None:
        self._fit(self.app.size.width, self.app.size.height)
        self.tell()
        self.refresh_view()

    def on_resize(self, event: Resize) -> None:
        self._fit(*event.size)
        self.refresh_view()  # the top line fits the new width

    def _fit(self, width: int, height: int) -> None:
        self.set_class(width >= LARGE.width and height >= LARGE.height, "-large")
        self.set_class(height < ROOMY_HEIGHT, "-compact")

    # ------------------------------------------------------------------ drawing

    @property
    def view(self) -> View:
        return self.model.view(self.index, self.perspective)

    def tell(self) -> None:
        model = self.model
        lines = [model.lines(i, self.perspective) for i in range(len(model.steps))]
        self.query_one(StepLog).tell(lines, ending=self.error_text())

    def refresh_view(self) -> None:
        view, model = self.view, self.model
        self.query_one("#top-bar", Static).update(self._top_line())
        self.query_one(Ring).islands = island_faces(view)
        self.query_one(Track).slots = slot_faces(view)
        shown = clan_of(self.perspective)
        everything = self.perspective is Perspective.EVERYTHING
        for clan in CLANS:
            hand = self.query_one(f"#hand-{clan}", Hand)
            hand.display = everything or str(shown) == clan
            hand.label = f"{CLAN_SYMBOL[clan]} {clan.capitalize()}'s hand"
            hand.cards = hand_faces(view, clan)
        bottom = shown or RED  # the side shown below, as in the live game
        self.query_one(Clans).rows = tuple(clan_row(view, str(clan), model.name(clan), you=clan is shown)
                                           for clan in (bottom.other, bottom))
        now = f"Game over. {result_sentence(view.outcome)}" if view.outcome is not None else situation(view)
        self.query_one("#az-decision", Static).update(f"{model.place(self.index)}  ·  Round {view.round}  ·  {now}")
        self.query_one(StepLog).show(self.index, whole=everything)

    def _top_line(self) -> str:
        """The game, its players and the perspective, shortened to the width."""
        model = self.model
        game = model.record.meta.get("game")
        players = f"{CLAN_SYMBOL['red']} {model.name('red')} vs {CLAN_SYMBOL['blue']} {model.name('blue')}"
        parts = ["ATLAS & ZEUS replay", f"game {game}" if isinstance(game, int) else "a recorded game", players,
                 self.perspective.label]
        room = self.size.width - 2
        for shown in (parts, [parts[0], *parts[2:]], parts[2:]):
            line = "  ·  ".join(shown)
            if cell_len(line) <= room:
                return " " + line
        return " " + "  ·  ".join(parts[2:])[:room]
