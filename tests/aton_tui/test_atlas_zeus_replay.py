"""The replay viewer of Atlas & Zeus, driven by keys and clicks through a recorded game (seeded
bots, ``zeus_recorded_game``).

What the ring, the track, the hands and the clans show at a step is checked against the engine
replaying the record cut there; what a side sees against what that side could know then (the
widgets' data, not their text).  Then the command line, in a real terminal too, and Review on
the end screen of a game against the server's bot.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import time
from dataclasses import replace

import pytest
from textual.widgets import Button

from atlas_zeus.cards import Card
from atlas_zeus.game import GameState
from atlas_zeus.moves import Resign
from atlas_zeus.players import BLUE, RED, Player
from atlas_zeus.record import GameRecord, replay, summary
from aton_tui.app import AtonApp
from aton_tui.atlas_zeus.clans import Clans
from aton_tui.atlas_zeus.hand import Hand
from aton_tui.atlas_zeus.replay import ZeusReplayScreen
from aton_tui.atlas_zeus.replay_model import ZeusReplayModel
from aton_tui.atlas_zeus.ring import Ring
from aton_tui.atlas_zeus.track import Track
from aton_tui.atlas_zeus.words import result_sentence
from aton_tui.cli import main, replay_command
from aton_tui.replay_app import ZeusReplayApp
from aton_tui.replay_model import Perspective
from aton_tui.screens.end import EndScreen
from aton_tui.screens.profile import ProfileScreen
from aton_tui.widgets.notice import Notice
from aton_tui.widgets.step_log import StepLog

from .driving import wait_until
from .replaying import zeus_recorded_game
from .test_atlas_zeus_play import by_keys, client_of, play_to_the_end
from .test_terminal import Tmux

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def cut_at(record: GameRecord, moves: int) -> dict:
    """The engine's summary of ``record`` cut after ``moves`` moves (as ``aton replay --json`` prints it)."""
    return summary(replay(replace(record, moves=record.moves[:moves], meta={})))


def shown(screen: ZeusReplayScreen) -> dict:
    """What the ring shows, in the shape of the summary: its islands, the flood, who is alive where."""
    islands = screen.query_one(Ring).islands
    alive: dict[str, list[str]] = {"red": [], "blue": []}
    for island in islands:
        for mark in island.people:
            alive[mark.clan].append(mark.person)
    return {"round": screen.view.round, "ring": [island.number for island in islands],
            "flood": next((island.number for island in islands if island.flood), None),
            "alive": {clan: sorted(people) for clan, people in alive.items()}}


def expected(summary: dict) -> dict:
    flood = summary["flood"] if summary["flood"] in summary["ring"] else None  # (its island may have sunk)
    return {"round": summary["round"], "ring": summary["ring"], "flood": flood,
            "alive": {clan: sorted(people) for clan, people in summary["alive"].items()}}


def screen_of(app: ZeusReplayApp | AtonApp) -> ZeusReplayScreen:
    assert isinstance(app.screen, ZeusReplayScreen)
    return app.screen


def titles(cards: list[Card]) -> list[str]:
    return [card.title for card in cards]


async def test_stepping_shows_the_position_of_the_record_cut_there():
    record = zeus_recorded_game()
    model = ZeusReplayModel(record)
    app = ZeusReplayApp(model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        assert screen.index == 0 and shown(screen) == expected(cut_at(record, 0))
        for _ in range(12):
            await pilot.press("right")
        assert screen.index == 12 and shown(screen) == expected(cut_at(record, 12))
        await pilot.press("left", "left", "left")
        assert screen.index == 9 and shown(screen) == expected(cut_at(record, 9))
        step_line = str(screen.query_one("#az-decision").render())
        assert step_line.startswith(f"Move 9/{len(record.moves)}  ·  Round {cut_at(record, 9)['round']}")
        await pilot.press("end")
        assert screen.index == len(record.moves) == model.last
        assert shown(screen) == expected(cut_at(record, len(record.moves)))
        outcome = replay(record).outcome()
        assert outcome is not None
        assert f"Game over. {result_sentence(outcome)}" in str(screen.query_one("#az-decision").render())
        await pilot.press("right")  # nothing after the end
        assert screen.index == model.last
        await pilot.press("home")
        assert screen.index == 0
        assert str(screen.query_one("#az-decision").render()).startswith(f"Start ({len(record.moves)} moves)")


async def test_rounds_step_to_the_start_of_a_round():
    record = zeus_recorded_game()
    model = ZeusReplayModel(record)
    app = ZeusReplayApp(model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("down")
        assert screen.index == model.round_starts[1] and screen.view.round == 2
        await pilot.press("pagedown")
        assert screen.index == model.round_starts[2] and screen.view.round == 3
        assert shown(screen) == expected(cut_at(record, model.round_starts[2]))
        await pilot.press("right", "right", "up")  # back to the start of this round
        assert screen.index == model.round_starts[2]
        await pilot.press("pageup")
        assert screen.index == model.round_starts[1]
        await pilot.press("up", "up")
        assert screen.index == 0


async def test_the_current_move_is_lit_and_a_click_on_a_log_line_goes_there():
    record = zeus_recorded_game()
    app = ZeusReplayApp(ZeusReplayModel(record), Perspective.EVERYTHING)  # the whole log: later lines to click
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        log = screen.query_one(StepLog)
        await wait_until(pilot, lambda: bool(log.ends), what="the log written")
        for _ in range(5):
            await pilot.press("right")
        await pilot.pause()
        first = log.ends[4]
        lit = log.get_component_rich_style("log--current", partial=True).bgcolor
        assert any(seg.style is not None and seg.style.bgcolor == lit
                   for seg in log.render_line(first - log.scroll_offset.y))
        assert not any(seg.style is not None and seg.style.bgcolor == lit
                       for seg in log.render_line(log.ends[5] - log.scroll_offset.y))
        await pilot.press("home")
        row = log.scrollable_content_region.height - 1  # the last line in sight: a later step's
        target = log.step_at(log.scroll_offset.y + row)
        assert target is not None and target > 1
        assert await pilot.click(StepLog, offset=(3, row))
        assert screen.index == target
        assert shown(screen) == expected(cut_at(record, target))


def hidden_from(seat: Player, screen: ZeusReplayScreen, state: GameState) -> None:
    """``seat``'s perspective shows its own hand, and of the other side only what was public."""
    other = seat.other
    own, theirs = screen.query_one(f"#hand-{seat}", Hand), screen.query_one(f"#hand-{other}", Hand)
    assert own.display and [card.title for card in own.cards] == titles(state.hands[seat])
    assert not theirs.display and theirs.cards == ()
    assert screen.view.player(other).hand is None
    for face, slot in zip(screen.query_one(Track).slots, state.track, strict=True):
        if face.owner == str(other) and face.card is not None:
            assert slot.face_up, f"slot {face.slot}: {other}'s face-down card shown to {seat}"
    rows = {row.clan: row for row in screen.query_one(Clans).rows}
    assert rows[str(seat)].you and not rows[str(other)].you
    assert rows[str(other)].hand == len(state.hands[other])  # the count only


@pytest.mark.parametrize("seat", [RED, BLUE], ids=["red", "blue"])
async def test_a_side_never_sees_the_others_hand_or_face_down_cards(seat):
    record = zeus_recorded_game()
    model = ZeusReplayModel(record)
    perspective = Perspective(str(seat))
    other_name = str(seat.other).capitalize()
    app = ZeusReplayApp(model, perspective)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        face_down_seen = False
        for index in range(len(model.steps)):
            assert screen.index == index
            state = model.steps[index].state
            hidden_from(seat, screen, state)
            face_down_seen |= any(face.owner == str(seat.other) and face.state == "down"
                                  for face in screen.query_one(Track).slots)
            for line in model.lines(index, perspective):
                assert not line.startswith(f"{other_name} draws ") or re.fullmatch(
                    rf"{other_name} draws \d+ cards?\.", line), line
                assert not line.startswith(f"{other_name} programs:"), line  # face down: the slots only
            await pilot.press("right")
        assert face_down_seen  # the other side's programming was there, face down


async def test_everything_shows_both_hands_only_for_a_finished_game():
    record = zeus_recorded_game()
    finished = ZeusReplayModel(record)
    assert finished.perspectives[-1] is Perspective.EVERYTHING
    unfinished = ZeusReplayModel(replace(record, moves=record.moves[:10]))
    assert Perspective.EVERYTHING not in unfinished.perspectives
    app = ZeusReplayApp(finished, Perspective.RED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("right")  # the initiative's programming made, face down to the other side
        for perspective in (Perspective.BLUE, Perspective.SPECTATOR, Perspective.EVERYTHING, Perspective.RED):
            await pilot.press("v")
            assert screen.perspective is perspective
            if perspective is Perspective.SPECTATOR:
                assert not any(hand.display for hand in screen.query(Hand))
                assert all(face.card is None for face in screen.query_one(Track).slots if face.owner is not None)
        await pilot.press("v", "v", "v")
        assert screen.perspective is Perspective.EVERYTHING
        state = finished.steps[1].state
        for seat in (RED, BLUE):
            hand = screen.query_one(f"#hand-{seat}", Hand)
            assert hand.display and [card.title for card in hand.cards] == titles(state.hands[seat])
        programmed = [face for face in screen.query_one(Track).slots if face.owner is not None]
        assert programmed and all(face.card is not None for face in programmed)
        assert any(re.match(r"(Red|Blue) draws [A-Z]", line) for line in finished.lines(0, Perspective.EVERYTHING))
    app = ZeusReplayApp(unfinished, Perspective.RED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        await pilot.press("v", "v", "v")
        assert screen.perspective is Perspective.RED  # red, blue, spectator and round again


def broken(record: GameRecord, at: int = 3) -> GameRecord:
    """``record`` with its move ``at`` played by the wrong clan."""
    player, move = record.moves[at]
    return replace(record, moves=[*record.moves[:at], (player.other, move), *record.moves[at + 1:]])


async def test_a_record_that_stops_replaying_says_which_move_and_why():
    model = ZeusReplayModel(broken(zeus_recorded_game()))
    assert model.error is not None and model.error.move_index == 3
    app = ZeusReplayApp(model)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = screen_of(app)
        notice = screen.query_one("#replay-error", Notice)
        assert notice.has_class("-shown")
        assert str(notice.render()).startswith(f"This record does not replay: {model.error}")
        assert "move 3: " in str(notice.render())
        await pilot.press("end")
        assert screen.index == 3  # the three good moves are shown
        log = screen.query_one(StepLog)
        await wait_until(pilot, lambda: bool(log.ends), what="the log written")
        assert log.ending == screen.error_text()


def test_the_command_line_keeps_json_and_text_and_refuses_what_it_cannot_show(tmp_path, capsys):
    record = zeus_recorded_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == cut_at(record, len(record.moves))
    assert main(["replay", str(path), "--final"]) == 0
    assert capsys.readouterr().out.startswith("Atlas & Zeus")
    path.write_text(json.dumps(broken(record).to_dict()), encoding="utf-8")
    assert main(["replay", str(path), "--final"]) == 2
    assert "move 3: " in capsys.readouterr().err
    path.write_text(json.dumps(replace(record, moves=record.moves[:10]).to_dict()), encoding="utf-8")
    assert replay_command(str(path), final=False, perspective="everything") == 2  # before any viewer opens
    assert "a finished game only" in capsys.readouterr().err


@SIZES
def test_snapshot_of_the_viewer(snap_compare, size):
    """Round 2 of the recorded game as red saw it: blue's cards face down but the one turned, red's
    own, one resolved, one fogged; the current move lit in the log."""
    model = ZeusReplayModel(zeus_recorded_game())

    async def run_before(pilot) -> None:
        await pilot.press("down", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(ZeusReplayApp(model, Perspective.RED), terminal_size=size, run_before=run_before)


@SIZES
def test_snapshot_of_everything(snap_compare, size):
    """The same step with everything shown: both hands, blue's face-down cards too, the whole log."""
    model = ZeusReplayModel(zeus_recorded_game())

    async def run_before(pilot) -> None:
        await pilot.press("down", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(ZeusReplayApp(model, Perspective.EVERYTHING), terminal_size=size, run_before=run_before)


async def test_review_on_the_end_screen_opens_the_game_just_played(server):
    """Through a real server: a whole game against its random bot, then v (Review) on the end
    screen: the viewer at the game's end, from our side; Esc brings the end screen back.  The
    game on our profile opens in the same viewer."""
    app = client_of(server)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot, by_keys)
        assert isinstance(app.screen, EndScreen)
        assert app.screen.query_one("#review", Button).display
        model = app.model
        assert model is not None and model.seat is not None
        outcome = model.view.outcome
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ZeusReplayScreen), what="the replay viewer")
        screen = screen_of(app)
        assert screen.perspective is Perspective.of(model.seat)
        assert screen.index == screen.model.last and screen.model.error is None
        assert screen.view.outcome == outcome
        assert screen.model.name(model.seat) == "tester"
        own = Player.parse(str(model.seat))
        assert screen.query_one(f"#hand-{own}", Hand).display
        assert not screen.query_one(f"#hand-{own.other}", Hand).display
        await pilot.press("home")
        assert screen.index == 0 and screen.view.outcome is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen again")
        await pilot.press("l", "p")  # the lobby, our profile: Enter on the game reviews it the same way
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.screen.profile is not None,
                         what="our profile")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ZeusReplayScreen), what="the viewer from the profile")
        assert screen_of(app).perspective is Perspective.of(model.seat)
        assert screen_of(app).model.record.meta["game"] == model.game


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_aton_replay_opens_the_viewer_in_a_real_terminal(tmp_path):
    """``aton replay FILE`` of an Atlas & Zeus record with a terminal on standard output: the
    viewer, its keys, q quits (status 0)."""
    record = zeus_recorded_game()
    path, status = tmp_path / "game.json", tmp_path / "status"
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    env = f"env HOME={shlex.quote(str(tmp_path))} XDG_CONFIG_HOME={shlex.quote(str(tmp_path / 'config'))} " \
          "TERM=xterm-256color"
    command = f"cd {shlex.quote(os.getcwd())} && {env} {shlex.quote(sys.executable)} -m aton_tui.cli replay " \
              f"{shlex.quote(str(path))}; echo $? > {shlex.quote(str(status))}; sleep 60"
    tmux = Tmux(command)
    try:
        screen = tmux.wait_for("You draw")  # the log, written once it knows its width
        total = len(record.moves)
        for part in ("ATLAS & ZEUS replay", "as Red saw it", f"Start ({total} moves)", "Red's hand", "ann (you)"):
            assert part in screen, part
        assert all(len(line) <= 80 for line in screen.splitlines())
        tmux.keys("End")
        outcome = replay(record).outcome()
        assert outcome is not None
        assert result_sentence(outcome).split(":")[0] in tmux.wait_for(f"Move {total}/{total}")  # "Blue wins"
        tmux.keys("v")
        tmux.wait_for("as Blue saw it")
        tmux.keys("q")
        deadline = time.monotonic() + 20
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status.read_text().strip() == "0"
    finally:
        tmux.kill()


def test_resign_is_a_move_of_the_record_the_viewer_shows():
    """A game resigned: its last step is the resignation, and the viewer says who won why."""
    record = zeus_recorded_game()
    resigned = replace(record, moves=[*record.moves[:6], (RED, Resign())])
    model = ZeusReplayModel(resigned)
    assert model.error is None and model.finished
    assert model.view(model.last, Perspective.RED).outcome is not None
    assert any("resigned" in line for line in model.lines(model.last, Perspective.RED))


def test_a_game_the_arbiter_ended_ends_with_its_step():
    """A record ended on time (``meta.result``): a last step with no move, the loser's clock told."""
    record = zeus_recorded_game()
    timed_out = replace(record, moves=record.moves[:10], meta={**record.meta,
                                                               "result": {"winner": "blue", "reason": "time"}})
    model = ZeusReplayModel(timed_out)
    assert model.error is None and model.last == 11 and model.steps[-1].move is None
    assert model.place(model.last) == "Move 10/10"
    view = model.view(model.last, Perspective.BLUE)
    assert view.outcome is not None and view.outcome.winner is BLUE
    assert any("Red ran out of time" in line for line in model.lines(model.last, Perspective.BLUE))
