"""Post-game analysis in the replay viewer (issue 14, point 2, the viewer's side).

A recorded game is analysed by the real analysis (``bots.analysis``) with a small budget
in iterations and a fixed seed, so every verdict is known before the viewer shows it:
the marks in the log, the jumps to the judged decisions, the better move on the board
and the graph.  ``a`` runs the analysis in a worker process (its progress shown, the
screen answering meanwhile), stopping it or leaving the screen ends that process, and
a finished analysis is saved beside the record and read back without being made again.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest
from textual.widgets import Input, ProgressBar, Static

from aton.moves import Commit, Place, Remove
from aton.players import RED
from aton.record import GameRecord
from aton_tui.analysis_model import AnalysisModel, percent
from aton_tui.analysis_worker import AnalysisRun
from aton_tui.replay_app import ReplayApp
from aton_tui.replay_model import Perspective, ReplayModel
from aton_tui.screens import replay as replay_screen
from aton_tui.screens.dialogs import Prompt
from aton_tui.screens.end import EndScreen
from aton_tui.screens.replay import ReplayScreen
from aton_tui.widgets.board import Board
from aton_tui.widgets.chances_graph import LEFT, ChancesGraph
from aton_tui.widgets.commit_panel import CommitPanel
from aton_tui.widgets.step_log import StepLog
from aton_tui.widgets.symbols import JUDGEMENT_SYMBOL
from bots.analysis import AnalysisSettings, GameAnalysis, analyse, load_beside, save_beside, side_path
from protocol import messages as m

from .driving import ann_against_bob, wait_until
from .replaying import recorded_game

#: a small budget: the whole recorded game is analysed in about a second, always alike
QUICK = AnalysisSettings(iterations=8, seed=0)
#: a budget the game takes a long while over (most of a minute): still under way when it is stopped
SLOW = AnalysisSettings(iterations=5_000, seed=0)


def analysed(record: GameRecord) -> GameAnalysis:
    """The analysis the viewer's worker must come to: the same settings, in this process."""
    assert record == recorded_game()
    return quick_analysis()


@cache
def quick_analysis() -> GameAnalysis:
    """The recorded game's analysis with the small budget (made once: it is always the same)."""
    assert QUICK.iterations is not None
    return analyse(recorded_game(), iterations=QUICK.iterations, seed=QUICK.seed)


def saved_record(tmp_path: Path) -> tuple[GameRecord, Path]:
    record = recorded_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    return record, path


def screen_of(app: ReplayApp) -> ReplayScreen:
    assert isinstance(app.screen, ReplayScreen)
    return app.screen


def gone(pid: int) -> bool:
    """The process has ended and been reaped (no zombie left either)."""
    return not Path(f"/proc/{pid}").exists()


async def analysis_under_way(pilot, screen: ReplayScreen) -> int:
    """Press ``a`` and wait until the worker has judged a decision: its process id."""
    await pilot.press("a")
    bar = screen.query_one(ProgressBar)
    await wait_until(pilot, lambda: (bar.progress or 0) >= 1, timeout=60, what="the first decision analysed")
    assert screen.run is not None and screen.run.pid is not None
    return screen.run.pid


def log_text(log: StepLog, step: int) -> str:
    """The rendered lines of ``step`` in the log, as text."""
    start = log.ends[step - 1] if step else 0
    return "".join(strip.text for strip in log.strips[start:log.ends[step]])


async def test_a_runs_the_analysis_in_a_worker_process_and_saves_it_beside_the_record(tmp_path, monkeypatch):
    record, path = saved_record(tmp_path)
    runs: list[AnalysisRun] = []  # every run the screen starts (a quick one may be over before press returns)

    class Seen(AnalysisRun):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            runs.append(self)

    monkeypatch.setattr(replay_screen, "AnalysisRun", Seen)
    app = ReplayApp(ReplayModel(record), record_path=path, analysis_settings=QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        assert screen.analysis is None and not screen.query_one("#graph-box").display
        await pilot.press("a")
        await wait_until(pilot, lambda: bool(runs) and runs[0].pid is not None, what="the worker started")
        (run,) = runs
        assert run.pid != os.getpid()
        await wait_until(pilot, lambda: screen.analysis is not None, timeout=60, what="the analysis")
        bar = screen.query_one(ProgressBar)
        assert bar.total and bar.progress == bar.total  # every decision, one by one
        assert run.pid is not None and gone(run.pid)
        assert screen.run is None and not screen.query_one("#analysing").display
    made = screen.analysis
    assert made is not None
    assert made.analysis.to_dict() == analysed(record).to_dict()  # deterministic: the same verdicts
    assert load_beside(path, record) == made.analysis
    assert side_path(path).exists()


async def test_stopping_the_analysis_ends_its_process_and_the_screen_answers_meanwhile(tmp_path):
    record, path = saved_record(tmp_path)
    app = ReplayApp(ReplayModel(record), record_path=path, analysis_settings=SLOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        pid = await analysis_under_way(pilot, screen)
        await pilot.press("right", "right")  # the screen answers while the worker thinks
        assert screen.index == 2 and screen.run is not None and not gone(pid)
        await pilot.press("a")  # stop
        await wait_until(pilot, lambda: screen.run is None and gone(pid), what="the worker ended")
        assert screen.analysis is None and not side_path(path).exists()
        assert not screen.query_one("#analysing").display
        assert screen.check_action("analyse", ()) is True  # it can be started again


async def test_leaving_the_screen_ends_the_analysis_process(tmp_path):
    record, path = saved_record(tmp_path)
    app = ReplayApp(ReplayModel(record), record_path=path, analysis_settings=SLOW)
    async with app.run_test(size=(80, 24)) as pilot:
        pid = await analysis_under_way(pilot, screen_of(app))
        await pilot.press("escape")  # the viewer closes (and with it this app)
    assert gone(pid)
    assert not side_path(path).exists()


async def test_a_saved_analysis_is_shown_at_once_without_analysing_again(tmp_path):
    record, path = saved_record(tmp_path)
    analysis = analysed(record)
    save_beside(path, analysis, record)
    app = ReplayApp(ReplayModel(record), record_path=path, analysis_settings=QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        await pilot.pause()
        assert screen.analysis is not None and screen.analysis.analysis == analysis
        assert screen.run is None
        assert screen.check_action("analyse", ()) is False  # nothing to make: `a` is not offered
        await pilot.press("a")
        assert screen.run is None
        graph = screen.query_one(ChancesGraph)
        assert graph.display and len(graph.points) == len(analysis.decisions)


async def test_marks_jumps_and_the_better_move_on_the_board(tmp_path):
    record = recorded_game()
    analysis = analysed(record)
    verdicts = AnalysisModel(analysis)
    reds = [d for d in analysis.decisions if d.judgement is not None and d.player is RED]
    assert reds, "the recorded game has judged decisions of red's"
    app = ReplayApp(ReplayModel(record), Perspective.RED, analysis=analysis)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        log = screen.query_one(StepLog)
        await wait_until(pilot, lambda: bool(log.ends), what="the log written")
        # every judged decision is marked on its move's line, with the chance it lost
        for decision in analysis.decisions:
            if decision.judgement is not None:
                mark = f"{JUDGEMENT_SYMBOL[decision.judgement]} −{percent(decision.loss)}"
                assert mark in log_text(log, decision.move_index + 1), decision
        # n and N go from one judged decision of red's to the next and back
        steps = [d.move_index + 1 for d in reds]
        for step in steps:
            await pilot.press("n")
            assert screen.index == step
        await pilot.press("n")  # none after the last: it stays
        assert screen.index == steps[-1]
        for step in reversed(steps[:-1]):
            await pilot.press("N")
            assert screen.index == step
        # at each judged decision the better move is shown: its square lit, or its cards
        for decision in reds:
            screen.go(decision.move_index + 1)
            await pilot.pause()
            line = str(screen.query_one("#better", Static).render())
            assert line.startswith(f"{JUDGEMENT_SYMBOL[decision.judgement]} ")  # type: ignore[index]
            assert f"({percent(decision.chance_before)} → {percent(decision.chance_played)})" in line
            board, panel = screen.query_one(Board), screen.query_one(CommitPanel)
            if isinstance(decision.best, Place | Remove):
                assert board.better == (decision.best.temple, decision.best.square)
            else:
                assert board.better is None
            if isinstance(decision.best, Commit):
                assert panel.display and tuple(panel.draft.slots) == decision.best.cards
        # a step with no judged decision shows no verdict
        plain = next(s for s in range(1, len(record.moves)) if verdicts.judged(s) is None)
        screen.go(plain)
        await pilot.pause()
        assert not screen.query_one("#better").display and screen.query_one(Board).better is None


async def test_a_click_on_a_point_of_the_graph_goes_to_that_decision():
    record = recorded_game()
    analysis = analysed(record)
    app = ReplayApp(ReplayModel(record), Perspective.EVERYTHING, analysis=analysis)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        await pilot.pause()
        graph = screen.query_one(ChancesGraph)
        assert graph.display
        judged = [d.move_index + 1 for d in analysis.decisions if d.judgement is not None]
        target = judged[len(judged) // 2]
        canvas = graph.size.width - LEFT
        column = LEFT + round(target * (canvas - 1) / screen.model.last)
        assert await pilot.click(ChancesGraph, offset=(column, graph.size.height // 2))
        assert screen.index == target
        assert graph.current == target


async def test_the_better_cards_stay_secret_from_the_other_side(tmp_path):
    """Blue (and a spectator), looking at red's judged commit, are told it was judged but not
    red's cards; everything shows them."""
    record = recorded_game()
    analysis = analysed(record)
    commit = next((d for d in analysis.decisions if d.judgement is not None and d.player is RED
                   and isinstance(d.best, Commit) and isinstance(d.played, Commit)), None)
    assert commit is not None, "the recorded game has a judged commit of red's"
    app = ReplayApp(ReplayModel(record), Perspective.BLUE, analysis=analysis)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        screen.go(commit.move_index + 1)
        await pilot.pause()
        panel = screen.query_one(CommitPanel)
        assert isinstance(commit.best, Commit)
        for perspective in (Perspective.BLUE, Perspective.SPECTATOR):
            assert screen.perspective is perspective
            line = str(screen.query_one("#better", Static).render())
            assert "secret" in line and "Better" not in line
            assert not panel.display or all(card is None for card in panel.draft.slots)  # blue's own hand
            await pilot.press("v")
        assert screen.perspective is Perspective.EVERYTHING
        assert "Better: cards" in str(screen.query_one("#better", Static).render())
        assert panel.display and tuple(panel.draft.slots) == commit.best.cards


async def test_an_analysis_made_in_review_is_kept_for_the_session_and_saved_with_the_record(tmp_path):
    """Review of a live game has no file: the analysis is kept by the client, shown at once
    when the game is reviewed again, and saved beside the record when the record is saved."""
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob.send(m.Resign(game=bob.game))
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen) and bool(app.screen.query("#review")),
                         what="the end screen")
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay viewer")
        first = app.screen
        assert isinstance(first, ReplayScreen) and first.analysis is None
        await pilot.press("a")
        await wait_until(pilot, lambda: first.analysis is not None, timeout=60, what="the analysis")
        assert first.analysis is not None
        made = first.analysis.analysis
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen again")
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen is not first,
                         what="the replay viewer again")
        again = app.screen
        assert isinstance(again, ReplayScreen)
        assert again.analysis is not None and again.analysis.analysis == made and again.run is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        path = tmp_path / "saved.json"
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="where to save")
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        await wait_until(pilot, lambda: side_path(path).exists(), what="the analysis saved beside the record")
    assert load_beside(path, GameRecord.from_dict(json.loads(path.read_text()))) == made


@pytest.mark.parametrize("graph", [True, False], ids=["graph", "no-graph"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_of_the_viewer_with_an_analysis(snap_compare, size, graph):
    """Red's first judged square, as red saw it (the better square lit on the board), with the
    graph shown or folded."""
    record = recorded_game()
    analysis = analysed(record)

    async def run_before(pilot) -> None:
        screen = pilot.app.screen
        await pilot.press("n")
        while screen.query_one(Board).better is None:
            await pilot.press("n")
        if screen.graph_shown != graph:
            await pilot.press("g")
        await pilot.pause()

    assert snap_compare(ReplayApp(ReplayModel(record), Perspective.RED, analysis=analysis), terminal_size=size,
                        run_before=run_before)
