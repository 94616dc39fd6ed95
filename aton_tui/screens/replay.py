"""The replay viewer: a recorded game, stepped through move by move on the live game's widgets.

The screen draws a ``ReplayModel`` at one step, from one perspective: the board, the
score track, the Kingdom, the player table (cartouches as that side saw them), the hand
of that side while it commits, and the narrated log up to the step, whose lines are lit.
← → step a move, ↑ ↓ (PgUp PgDn) a round, Home End go to the start and the end, a click on
a log line goes to its step, v shows the game from the next perspective.  A record that
stops replaying shows its steps up to the bad move and says which move and why.

With an analysis of the game (``bots.analysis``; ``a`` makes one in a worker process,
with a progress bar, ``a`` again stops it), the log marks each judged decision ("?!",
"?", "??" and the winning chance lost), the graph of the winning chances shows the whole
game (``g`` folds it; at 80×24 it stands in the log's place), ``n`` / ``N`` go to the
next / previous judged decision of the side shown, and at a judged decision the bot's
preferred move is shown: its square lit on the board, or its four cards on the cartouches,
and a line "Better: … (62% → 48%)".  A finished analysis is saved beside the record file
(``save_beside``), so opening the game again shows it at once; a game with no file (Review
after a live game) keeps it for the session: the screen posts ``ReplayScreen.Analysed``.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.widgets import ProgressBar, Static

from aton.board import describe_temples
from aton.game import Phase
from aton.players import BLUE, RED, Player
from aton.views import View
from bots.analysis import AnalysisSettings, GameAnalysis, Judgement, load_beside, save_beside

from ..analysis_model import AnalysisModel
from ..analysis_worker import AnalysisFailed, AnalysisRun
from ..narrate import player_name, result_sentence
from ..replay_model import Perspective, ReplayModel
from ..sizes import LARGE
from ..widgets.board import Board
from ..widgets.chances_graph import ChancesGraph
from ..widgets.commit_panel import CommitPanel
from ..widgets.fitted_footer import FittedFooter
from ..widgets.kingdom import Kingdom
from ..widgets.notice import Notice
from ..widgets.players import PlayerRow, PlayersPanel, cartouche_faces
from ..widgets.score_track import ScoreTrack
from ..widgets.step_log import StepLog
from ..widgets.symbols import SEAT_SYMBOL
from .stepping import CLOSE, MOVING, SteppingScreen


class ReplayScreen(SteppingScreen):
    BINDINGS = [
        *MOVING,
        Binding("a", "analyse", "Analyse", tooltip="the bot judges every decision of the game (in the background)"),
        Binding("a", "stop_analysis", "Stop", tooltip="stop the analysis under way"),
        Binding("g", "graph", "Graph", tooltip="show or fold the graph of the winning chances"),
        Binding("n", "judged(1)", "Mistakes", key_display="n N",
                tooltip="the next judged decision of the side shown: ?! inaccuracy, ? mistake, ?? blunder"),
        Binding("N", "judged(-1)", "Mistakes", show=False, tooltip="the previous judged decision of the side shown"),
        CLOSE,
    ]

    class Analysed(Message):
        """An analysis of the record was made (for a game with no file to keep it beside)."""

        def __init__(self, analysis: GameAnalysis) -> None:
            super().__init__()
            self.analysis = analysis

    def __init__(self, model: ReplayModel, perspective: Perspective = Perspective.RED, at_end: bool = False, *,
                 analysis: GameAnalysis | None = None, record_path: Path | None = None,
                 analysis_settings: AnalysisSettings | None = None) -> None:
        """``record_path``: the record's file, where a finished analysis is saved beside it (and
        read from, when ``analysis`` is None); ``analysis_settings``: the budget of ``a``."""
        super().__init__(model, perspective, at_end)
        self.model: ReplayModel = model
        self.record_path = record_path
        self.analysis_settings = analysis_settings or AnalysisSettings()
        if analysis is None and record_path is not None:
            analysis = load_beside(record_path, model.record)
        self.analysis = AnalysisModel(analysis) if analysis is not None else None
        self.run: AnalysisRun | None = None  # the analysis under way
        self.graph_shown = False

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar", markup=False)
        yield Notice(self.error_text(), id="replay-error")
        yield ScoreTrack()
        yield Board()
        yield Kingdom()
        with Container(id="lower"):
            with Vertical(id="side"):
                yield PlayersPanel(time.monotonic)
                yield Static("", id="decision", markup=False)
                yield Static("", id="better", markup=False)
                yield CommitPanel(read_only=True)
                with Horizontal(id="analysing"):
                    yield Static("Analysing the game (a: stop)", id="analysing-label", markup=False)
                    yield ProgressBar(show_eta=False)
                with Vertical(id="graph-box"):
                    yield Static("", id="graph-legend", markup=False)
                    yield ChancesGraph()
            yield StepLog(id="log")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.set_class(self._large(self.app.size.width, self.app.size.height), "-large")
        if self.analysis is not None:
            self._show_analysis()
        self.tell()
        self.refresh_view()

    def on_resize(self, event: Resize) -> None:
        large = self._large(event.size.width, event.size.height)
        if large != self.has_class("-large"):
            self.set_class(large, "-large")
            self.refresh_view()

    @staticmethod
    def _large(width: int, height: int) -> bool:
        return width >= LARGE.width and height >= LARGE.height

    # ------------------------------------------------------------------ drawing

    @property
    def view(self) -> View:
        return self.model.view(self.index, self.perspective)

    def tell(self) -> None:
        model = self.model
        lines = [model.lines(i, self.perspective) for i in range(len(model.steps))]
        marks = self.analysis.marks() if self.analysis is not None else None
        self.query_one(StepLog).tell(lines, ending=self.error_text(), marks=marks)

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
        self._show_verdict()
        self.query_one(StepLog).show(self.index, whole=self.perspective is Perspective.EVERYTHING)
        self.query_one(ChancesGraph).show(self.index)

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
        everything = self.perspective is Perspective.EVERYTHING
        better = self.analysis.better_commit(self.index, self.perspective.seat, everything) if self.analysis else None
        crowded = self.graph_shown and not self.has_class("-large")  # at 80×24 the graph needs the room
        panel.display = (committing or better is not None) and not crowded
        if better is not None:  # the cards the bot would have put, at a judged commit
            panel.show_commitment(better, first_round=self.model.round_of(self.index - 1) == 1)
        elif committing and hand is not None:
            panel.start(hand, first_round=view.round == 1, can_exchange=False)

    def _show_verdict(self) -> None:
        """At a judged decision: the line naming the better move, and its square on the board."""
        analysis, step = self.analysis, self.index
        decision = analysis.judged(step) if analysis is not None else None
        line = self.query_one("#better", Static)
        line.display = decision is not None
        for judgement in Judgement:
            line.set_class(decision is not None and decision.judgement == judgement, f"-{judgement}")
        everything = self.perspective is Perspective.EVERYTHING
        text = analysis.better_line(step, self.perspective.seat, everything) if analysis is not None else None
        line.update(text or "")
        self.query_one(Board).better = analysis.better_square(step) if analysis is not None else None

    def _step_line(self, view: View) -> str:
        return f"{self.model.place(self.index)}  ·  Round {view.round}  ·  {self._situation(view)}"

    @staticmethod
    def _situation(view: View) -> str:
        if view.outcome is not None:
            return result_sentence(view.outcome)
        if view.phase is Phase.COMMIT:
            return "the players choose their cartouches"
        verb = "removes stones" if view.phase is Phase.REMOVE else "places stones"
        assert view.range is not None, "a removal or a placement has its range"
        return f"{player_name(view.active)} {verb} ({describe_temples(view.range)})"

    # ------------------------------------------------------------------ moving about

    def on_chances_graph_picked(self, event: ChancesGraph.Picked) -> None:
        self.go(event.step)

    def action_judged(self, direction: int) -> None:
        """To the next (1) or previous (-1) judged decision of the side shown (any side: a
        spectator's or everything)."""
        if self.analysis is None:
            return
        step = self.analysis.next_judged(self.index, direction, self.perspective.seat)
        if step is None:
            whose = f"{player_name(self.perspective.seat)}'s" if self.perspective.seat is not None else "a"
            self.notify(f"No {'later' if direction > 0 else 'earlier'} judged decision of {whose} side.", timeout=2)
            return
        self.go(step)

    # ------------------------------------------------------------------ the analysis

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "analyse":
            return self.analysis is None and self.run is None and self.model.finished and self.model.error is None
        if action == "stop_analysis":
            return self.run is not None
        if action in ("graph", "judged"):
            return self.analysis is not None
        return True

    def action_analyse(self) -> None:
        self.run = AnalysisRun(self.model.record, self.analysis_settings)
        self.query_one(ProgressBar).update(total=len(self.model.record.moves), progress=0)
        self.query_one("#analysing").display = True
        self.refresh_bindings()
        self._analyse(self.run)

    @work(exclusive=True, group="analysis")
    async def _analyse(self, run: AnalysisRun) -> None:
        """The analysis in its worker process; cancelled (``a``, or the screen closed), the
        process is killed."""
        bar = self.query_one(ProgressBar)
        try:
            analysis = await run.run(lambda done, total: bar.update(total=total, progress=done))
        except (AnalysisFailed, OSError, ValueError) as exc:  # ValueError: an answer that is no analysis
            self.notify(f"The analysis failed: {exc}", severity="error")
            return
        finally:
            self.run = None
            if self.is_attached:  # (not when the screen closed)
                self.query_one("#analysing").display = False
                self.refresh_bindings()
        self._analysed(analysis)

    def _analysed(self, analysis: GameAnalysis) -> None:
        self.analysis = AnalysisModel(analysis)
        where = "for this session"
        if self.record_path is not None:
            try:
                where = f"beside the record: {save_beside(self.record_path, analysis, self.model.record)}"
            except OSError as exc:
                where = f"for this session (cannot save beside the record: {exc.strerror})"
        self.post_message(self.Analysed(analysis))
        self._show_analysis()
        self.tell()
        self.refresh_view()
        self.refresh_bindings()
        self.notify(f"Analysis done, kept {where}.", timeout=4)

    def action_stop_analysis(self) -> None:
        self.workers.cancel_group(self, "analysis")
        self.notify("Analysis stopped.", timeout=2)

    def _show_analysis(self) -> None:
        """The graph of the analysis, shown (folded at first at 80×24, where it takes the log's place)."""
        analysis = self.analysis
        assert analysis is not None
        graph = self.query_one(ChancesGraph)
        model = self.model
        graph.draw(analysis.points(), [(step, model.round_of(step)) for step in model.round_starts], model.last)
        self.query_one("#graph-legend", Static).update(graph.legend())
        self._fold_graph(not self.has_class("-large"))

    def action_graph(self) -> None:
        self._fold_graph(self.graph_shown)

    def _fold_graph(self, folded: bool) -> None:
        self.graph_shown = not folded
        self.set_class(self.graph_shown, "-graph")
        self._show_hand(self.view)
