"""The replay viewer (issue 14, point 1), driven by keys and clicks through a recorded game.

The board, the scores and the Kingdom at a step are checked against ``aton replay --json``
of the record cut at that move; the player table, the hand and the log against what the
chosen side could know then.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import replace

import pytest
from textual.widgets import Button

from aton.moves import Place
from aton.outcome import Outcome, Termination
from aton.players import BLUE, RED, Player
from aton.record import GameRecord
from aton_tui.app import AtonApp
from aton_tui.cli import main, replay_command
from aton_tui.replay_app import ReplayApp
from aton_tui.replay_model import Perspective, ReplayModel
from aton_tui.screens.end import EndScreen
from aton_tui.screens.replay import ReplayScreen
from aton_tui.widgets.board import Board
from aton_tui.widgets.commit_panel import CommitPanel
from aton_tui.widgets.kingdom import Kingdom
from aton_tui.widgets.notice import Notice
from aton_tui.widgets.players import PlayersPanel
from aton_tui.widgets.score_track import ScoreTrack
from aton_tui.widgets.step_log import StepLog
from protocol import messages as m

from .driving import ann_against_bob, wait_until
from .replaying import recorded_game
from .test_terminal import Tmux


def replay_json(record: GameRecord, moves: int, tmp_path) -> dict:
    """``aton replay CUT --json`` (the real command) of ``record`` cut after ``moves`` moves."""
    cut = replace(record, moves=record.moves[:moves], meta={})
    path = tmp_path / f"cut-{moves}.json"
    path.write_text(json.dumps(cut.to_dict()), encoding="utf-8")
    command = [sys.executable, "-m", "aton_tui", "replay", str(path), "--json"]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def shown(screen: ReplayScreen) -> dict:
    """What the viewer draws, in the shape of ``aton replay --json``."""
    board = screen.query_one(Board)
    red, blue = screen.query_one(ScoreTrack).scores
    dead_red, dead_blue = screen.query_one(Kingdom).dead
    return {
        "temples": [[None if owner is None else str(owner) for owner in row] for row in board.temples],
        "scores": {"red": red, "blue": blue},
        "dead": {"red": dead_red, "blue": dead_blue},
    }


def expected(summary: dict) -> dict:
    return {key: summary[key] for key in ("temples", "scores", "dead")}


def viewer(record: GameRecord, perspective: Perspective = Perspective.RED) -> ReplayApp:
    return ReplayApp(ReplayModel(record), perspective)


def screen_of(app: ReplayApp | AtonApp) -> ReplayScreen:
    assert isinstance(app.screen, ReplayScreen)
    return app.screen


async def test_stepping_shows_the_position_of_the_record_cut_there(tmp_path):
    record = recorded_game()
    app = viewer(record)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        assert screen.index == 0
        assert shown(screen) == expected(replay_json(record, 0, tmp_path))
        for _ in range(25):
            await pilot.press("right")
        await pilot.pause()
        assert shown(screen) == expected(replay_json(record, 25, tmp_path))
        await pilot.press("left", "left", "left")
        assert shown(screen) == expected(replay_json(record, 22, tmp_path))
        await pilot.press("end")
        assert screen.index == len(record.moves)
        assert shown(screen) == expected(replay_json(record, len(record.moves), tmp_path))
        await pilot.press("right")  # nothing after the end
        assert screen.index == len(record.moves)
        await pilot.press("home")
        assert screen.index == 0


async def test_rounds_step_to_the_start_of_a_round(tmp_path):
    record = recorded_game()
    model = ReplayModel(record)
    app = ReplayApp(model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("down")
        third = model.round_starts[1]
        assert screen.index == third and screen.view.round == 2
        await pilot.press("pagedown")
        assert screen.index == model.round_starts[2] and screen.view.round == 3
        assert shown(screen) == expected(replay_json(record, model.round_starts[2], tmp_path))
        await pilot.press("right", "right", "up")  # back to the start of this round
        assert screen.index == model.round_starts[2]
        await pilot.press("pageup")
        assert screen.index == model.round_starts[1]


async def test_the_current_move_is_lit_and_a_click_on_a_log_line_goes_there(tmp_path):
    record = recorded_game()
    app = viewer(record, Perspective.EVERYTHING)  # the whole game's log: a later line can be clicked
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        log = screen.query_one(StepLog)
        await wait_until(pilot, lambda: bool(log.ends), what="the log written")
        for _ in range(10):
            await pilot.press("right")
        await pilot.pause()
        first = log.ends[9]
        assert [log.step_at(line) for line in range(first, log.ends[10])] == [10] * (log.ends[10] - first)
        lit = log.get_component_rich_style("log--current", partial=True).bgcolor
        visible = first - log.scroll_offset.y
        assert any(seg.style is not None and seg.style.bgcolor == lit for seg in log.render_line(visible))
        assert not any(seg.style is not None and seg.style.bgcolor == lit
                       for seg in log.render_line(log.ends[10] - log.scroll_offset.y))
        await pilot.press("home")
        row = log.scrollable_content_region.height - 1  # the last line in sight: a later step's
        target = log.step_at(log.scroll_offset.y + row)
        assert target is not None and target > 1
        assert await pilot.click(StepLog, offset=(3, row))
        assert screen.index == target
        assert shown(screen) == expected(replay_json(record, target, tmp_path))


async def test_red_never_sees_blues_hidden_cards():
    record = recorded_game()
    model = ReplayModel(record)
    app = ReplayApp(model, Perspective.RED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        panel = screen.query_one(PlayersPanel)
        for index in range(len(model.steps)):
            state = model.steps[index].state
            blue = next(row for row in panel.rows if row.seat is BLUE)
            for number, face in enumerate(blue.cartouches):
                assert face.state != "mine"  # blue's cards, face down to red
                if face.state == "up":
                    assert number < state.revealed[BLUE]
            hand = screen.query_one(CommitPanel)
            if hand.display:
                assert tuple(sorted(hand.draft.free)) == tuple(sorted(state.hands[RED]))
            assert screen.view.blue.hand is None
            for line in model.lines(index, Perspective.RED):
                assert not line.startswith("Blue draws ") or line == "Blue draws 4 cards."
            await pilot.press("right")


async def test_everything_shows_both_hands_only_for_a_finished_game():
    record = recorded_game()
    finished = ReplayModel(record)
    assert Perspective.EVERYTHING in finished.perspectives
    unfinished = ReplayModel(replace(record, moves=record.moves[:30]))
    assert Perspective.EVERYTHING not in unfinished.perspectives
    app = ReplayApp(finished, Perspective.RED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("right")  # red has committed; blue not yet
        for perspective in (Perspective.BLUE, Perspective.SPECTATOR, Perspective.EVERYTHING, Perspective.RED):
            await pilot.press("v")
            assert screen.perspective is perspective
        await pilot.press("v", "v", "v")
        assert screen.perspective is Perspective.EVERYTHING
        red = next(row for row in screen.query_one(PlayersPanel).rows if row.seat is RED)
        assert [face.state for face in red.cartouches] == ["mine"] * 4
        assert screen.view.blue.hand is not None
        lines = finished.lines(0, Perspective.EVERYTHING)
        assert any(line.startswith("Blue draws ") and line != "Blue draws 4 cards." for line in lines)
    app = ReplayApp(unfinished, Perspective.RED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("v", "v", "v")
        assert screen.perspective is Perspective.RED  # red, blue, spectator and round again


async def test_a_record_that_stops_replaying_says_which_move_and_why():
    record = recorded_game()
    bad = replace(record, moves=[*record.moves[:3], (RED, Place(4, 11))])  # blue's turn, not red's
    model = ReplayModel(bad)
    assert model.error is not None and model.error.move_index == 3
    app = ReplayApp(model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        notice = str(screen.query_one("#replay-error", Notice).render())
        assert "move 3: red place:" in notice
        await pilot.press("end")
        assert screen.index == 3  # the three good moves are shown


def test_the_command_line_keeps_json_and_prints_text_with_final(tmp_path, capsys):
    record = recorded_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary) == {"round", "phase", "scores", "supply", "dead", "temples", "exchange_used",
                            "winner", "reason"}
    assert main(["replay", str(path), "--final"]) == 0
    assert capsys.readouterr().out.startswith("Round 10, phase over")
    bad = replace(record, moves=[*record.moves[:3], (RED, Place(4, 11))])
    path.write_text(json.dumps(bad.to_dict()), encoding="utf-8")
    assert main(["replay", str(path), "--final"]) == 2
    assert "move 3: red place:" in capsys.readouterr().err
    unfinished = replace(record, moves=record.moves[:30])
    path.write_text(json.dumps(unfinished.to_dict()), encoding="utf-8")
    assert replay_command(str(path), final=False, perspective="everything") == 2  # before any viewer opens
    assert "a finished game only" in capsys.readouterr().err


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_of_the_viewer(snap_compare, size):
    """Round 3 of the recorded game, as red saw it, its current move lit in the log."""
    model = ReplayModel(recorded_game())

    async def run_before(pilot) -> None:
        await pilot.press("down", "down", "right", "right")
        await pilot.pause()

    assert snap_compare(ReplayApp(model, Perspective.RED), terminal_size=size, run_before=run_before)


async def test_review_on_the_end_screen_opens_the_game_just_played(tmp_path):
    """Through a real server: bob resigns, ann presses v (Review) and steps through the game
    from her side; Esc brings the end screen back."""
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob.send(m.Resign(game=bob.game))
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen) and bool(app.screen.query("#review")),
                         what="the end screen")
        assert app.screen.query_one("#review", Button).display
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay viewer")
        screen = screen_of(app)
        assert app.model is not None and screen.perspective is Perspective.of(app.model.seat)
        assert screen.index == screen.model.last and screen.model.error is None
        assert screen.view.outcome == Outcome(Termination.RESIGN, app.model.seat)
        assert screen.model.name(Player.parse(bob.seat)) == "bob"
        await pilot.press("home")
        assert screen.index == 0 and screen.view.outcome is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen again")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_aton_replay_opens_the_viewer_in_a_real_terminal(tmp_path):
    """``aton replay FILE`` with a terminal on standard output: the viewer, its keys, q quits (status 0)."""
    path, status = tmp_path / "game.json", tmp_path / "status"
    path.write_text(json.dumps(recorded_game().to_dict()), encoding="utf-8")
    env = f"env HOME={shlex.quote(str(tmp_path))} XDG_CONFIG_HOME={shlex.quote(str(tmp_path / 'config'))} " \
          "TERM=xterm-256color"
    command = f"cd {shlex.quote(os.getcwd())} && {env} {shlex.quote(sys.executable)} -m aton_tui.cli replay " \
              f"{shlex.quote(str(path))}; echo $? > {shlex.quote(str(status))}; sleep 60"
    tmux = Tmux(command)
    try:
        screen = tmux.wait_for("You draw")  # the log, written once it knows its width
        for part in ("ATON replay", "as Red saw it", "Start (79 moves)", "Temple 4", "ann (you)"):
            assert part in screen, part
        assert all(len(line) <= 80 for line in screen.splitlines())
        tmux.keys("End")
        assert "Blue wins" in tmux.wait_for("Move 79/79")
        tmux.keys("v")
        tmux.wait_for("as Blue saw it")
        tmux.keys("q")
        deadline = time.monotonic() + 20
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status.read_text().strip() == "0"
    finally:
        tmux.kill()
