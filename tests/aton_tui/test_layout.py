"""Nothing cut, at 80×24, at 120×40 and at the smallest size the client supports (issue 13).

Each test renders the real client, fed the frames of a scripted game (``scripted``),
and reads the screen back as text, the way a player reads it.
"""

from __future__ import annotations

import dataclasses
import re
from functools import partial
from pathlib import Path

from textual.pilot import Pilot

from aton import RED, Outcome, Termination
from aton_tui.app import AtonApp
from aton_tui.narrate import result_sentence
from aton_tui.screens.dialogs import Prompt
from aton_tui.screens.end import EndScreen
from aton_tui.screens.game import GameScreen
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.sizes import MINIMUM
from aton_tui.widgets.board import Board
from aton_tui.widgets.fitted_footer import FittedFooter
from aton_tui.widgets.game_log import GameLog
from aton_tui.widgets.kingdom import Kingdom
from aton_tui.widgets.legend import REMINDER
from aton_tui.widgets.players import PlayersPanel
from aton_tui.widgets.too_small import too_small_text

from .driving import screen_of, wait_until
from .scripted import PLAYERS, FramesApp, ScriptedGame, just_scored, red_to

LARGE = (120, 40)
SMALLEST = (MINIMUM.width, MINIMUM.height)


def screen_text(app: AtonApp) -> list[str]:
    """The screen as a player reads it, line by line (what the terminal would show)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def committing(against_a_person: bool = False) -> ScriptedGame:
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    script.blue_seals()
    if against_a_person:
        players = {**PLAYERS, "blue": {"name": "Bea", "kind": "human", "connected": True}}
        script.first = dataclasses.replace(script.first, players=players)
    return script


def placing() -> ScriptedGame:
    script = ScriptedGame()
    script.play_until(red_to("place", round_at_least=3))
    return script


async def shown(pilot: Pilot, script: ScriptedGame, screen_type: type = GameScreen) -> None:
    app = pilot.app
    assert isinstance(app, AtonApp)
    await wait_until(pilot, lambda: isinstance(app.screen, screen_type) and app.model is not None
                     and app.model.version == script.version, what=screen_type.__name__)
    if screen_type is GameScreen:
        await wait_until(pilot, lambda: bool(app.screen.query_one(FittedFooter).keys), what="the footer's keys")
    await pilot.pause()


async def to_the_end(pilot: Pilot, script: ScriptedGame) -> None:
    """Past every scoring round to the end dialog."""
    app = pilot.app
    assert isinstance(app, AtonApp)
    await wait_until(pilot, lambda: app.model is not None and app.model.version == script.version)
    while not isinstance(app.screen, EndScreen):
        await wait_until(pilot, lambda: isinstance(app.screen, (ScoringScreen, EndScreen)), what="a dialog")
        if isinstance(app.screen, ScoringScreen):
            await pilot.press("enter")
    await pilot.pause()


def whole_game() -> ScriptedGame:
    script = ScriptedGame(seed=9)
    script.play_until(lambda s: False, limit=2000)
    return script


def on_screen(app: AtonApp, *texts: str) -> None:
    lines = screen_text(app)
    for text in texts:
        assert any(text in line for line in lines), f"{text!r} is not whole on the screen:\n" + "\n".join(lines)


# ---------------------------------------------------------------------- defect 3: nothing cut at 80×24

async def test_the_commit_screen_at_80x24_shows_every_string_whole():
    script = committing(against_a_person=True)
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, script)
        await pilot.press("4", "4")  # C1 and C2 a 4: "removes 2 of theirs"
        on_screen(app, "2× diff if higher", "removes 2 of theirs", "C2 order & removal", "C4 placement",
                  "← type a number or click a card", "Bea",
                  "? Help", "^q Quit", "t Chat")
        await pilot.press("2", "2")  # complete: Seal appears too
        on_screen(app, "✓ Seal (Enter)", "⏎ Seal", "t Chat", "? Help", "^q Quit")
        screen_of(app).query_one(Kingdom).dead = (5, 4)  # a full Kingdom, one stone over
        await pilot.pause()
        on_screen(app, "9/8 — full: a scoring round ends this round")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="the chat prompt")
        on_screen(app, "Say to Bea:", "one line; it appears in both logs", "Enter accepts · Esc cancels")


async def test_the_scoring_and_the_end_at_80x24_show_every_string_whole():
    script = ScriptedGame()
    script.play_until(just_scored)
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, script, ScoringScreen)
        on_screen(app, "Scores now: Red 8, Blue 17.", "The Kingdom's stones go back to the supplies.",
                  "Continue (Enter)")
    script = whole_game()
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_the_end(pilot, script)
        on_screen(app, "You win!", "Red wins: filled a whole temple.", "Final score:  ● Red 39  —  ■ Blue 34",
                  "Board (Esc)")
        await pilot.press("escape")
        await pilot.pause()
        on_screen(app, "Game over. Red wins: filled a whole temple.  (e: the result)", "e Result", "^q Quit")


def test_every_game_over_line_fits_80_columns():
    for termination in Termination:
        for winner in (RED, None):
            line = "Game over. " + result_sentence(Outcome(termination, winner))
            assert len(line) <= 78, line


# ---------------------------------------------------------------------- defect 16: footers, stones, words

async def test_footer_labels_stand_apart_and_start_in_the_second_column():
    script = placing()
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, script)
        footer = screen_text(app)[-1]
        assert footer.startswith(" 1234 Temple ←→↑↓ Move ⏎ Choose ? Help ^q Quit")
    script = committing()
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, script)
        assert screen_text(app)[-1].startswith(" 1234 Card ←→ Cartouche ↑↓ Change ⌫ Take back x Exchange")
    script = whole_game()
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_the_end(pilot, script)
        await pilot.press("escape")
        await pilot.pause()
        assert screen_text(app)[-1].startswith(" e Result ? Help ^q Quit")


def seal_shown(app: AtonApp) -> bool:
    return "⏎ Seal" in screen_text(app)[-1]


async def test_at_80_columns_the_footer_keeps_every_key_for_choosing_cards():
    """Against the bot, with a card on every cartouche (Seal shown), and against a person
    (Chat shown) before sealing: no key of the commit leaves the footer at the default size."""
    commit_keys = ("1234 Card", "←→ Cartouche", "↑↓ Change", "⌫ Take back", "x Exchange", "? Help", "^q Quit")
    for against_a_person, keys in ((False, (*commit_keys, "⏎ Seal")), (True, (*commit_keys, "t Chat"))):
        script = committing(against_a_person)
        app = FramesApp(script.frames)
        async with app.run_test(size=(80, 24)) as pilot:
            await shown(pilot, script)
            if not against_a_person:
                for card in script.game.view(RED)["decision"]["hand"]:
                    await pilot.press(str(card))
                await wait_until(pilot, partial(seal_shown, app), what="the seal key")
            footer = screen_text(app)[-1]
            assert all(key in footer for key in keys), footer


async def test_stones_stand_in_the_column_of_the_free_squares_marks():
    script = placing()
    for size in ((80, 24), LARGE, (70, 30), SMALLEST):
        app = FramesApp(script.frames)
        async with app.run_test(size=size) as pilot:
            await shown(pilot, script)
            board = screen_of(app).query_one(Board)
            geo, lines = board.geometry(), screen_text(app)
            if geo.tile_h == 1:
                continue  # one-line tiles: the tag, then the stone
            top = board.content_region.y
            marks = set()
            for temple in range(1, 5):
                for index in range(12):
                    row, column = divmod(index, 4)
                    x = board.content_region.x + geo.temple_x(temple) + column * (geo.tile_w + 1) + geo.mark_column
                    char = lines[top + geo.row_y(row) + geo.mark_line][x]
                    owner = board.temples[temple - 1][index]
                    expected = {None: "·" if (temple, index) in board.legal else " ", RED: "●"}.get(owner, "■")
                    assert char == expected, (size, temple, index, char)
                    marks.add(char)
            assert {"·", "●", "■"} <= marks


# ---------------------------------------------------------------------- defect 8: the clock column

async def test_a_clock_with_time_outs_keeps_apart_from_the_exchange_column_and_is_explained():
    script = placing()
    last = script.updates[-1]
    clocks = {**last.clocks, "red": {"remaining_ms": 9_000, "for": "move", "strikes": 1}}
    frames = [*script.frames[:-1], dataclasses.replace(last, clocks=clocks)]
    for size in ((80, 24), SMALLEST):
        app = FramesApp(frames)
        async with app.run_test(size=size) as pilot:
            await shown(pilot, script)
            row = next(line for line in screen_text(app) if "Ada (you)" in line)
            assert re.search(r"(ready|⇄) +0:09 ⚠1 *$", row.rstrip()), row
            tooltip = str(screen_of(app).query_one(PlayersPanel).tooltip)
            assert "⚠" in tooltip and "3th" not in tooltip and "in a row" in tooltip
    assert "⚠n" in REMINDER


async def test_a_guests_whole_name_shows_beside_you_the_seats_word_giving_way_first():
    script = placing()
    players = {**PLAYERS, "red": {**PLAYERS["red"], "name": "~guest-9a3f"}}
    frames = [dataclasses.replace(script.first, players=players), *script.updates]
    for size in ((80, 24), SMALLEST):
        app = FramesApp(frames)
        async with app.run_test(size=size) as pilot:
            await shown(pilot, script)
            rows = screen_text(app)
            assert any("● ~guest-9a3f (you)" in row for row in rows), (size, rows)
            assert any("■ Blue Bot (normal)" in row for row in rows), (size, rows)  # a name that fits keeps it


# ---------------------------------------------------------------------- defect 9: resizing, the reminder

async def test_the_log_wraps_again_at_a_new_width():
    script = placing()
    app = FramesApp(script.frames)
    long_line = "You remove Blue's stone from temple 2, green square → Kingdom of the Dead."
    async with app.run_test(size=LARGE) as pilot:
        await shown(pilot, script)
        log = screen_of(app).query_one(GameLog)
        for size in ((80, 24), (100, 30), SMALLEST, LARGE, (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert log.virtual_size.width <= log.scrollable_content_region.width, size  # no sideways scrolling
        on_screen(app, long_line)  # one line again at 80 columns


async def test_the_lines_fitted_to_the_width_are_fitted_again_when_it_changes():
    """The decision line chooses its wording by the width (as the top bar does): shrinking the
    terminal chooses again instead of cutting the wording chosen for the wider one."""
    script = placing()
    app = FramesApp(script.frames)
    async with app.run_test(size=LARGE) as pilot:
        await shown(pilot, script)
        on_screen(app, "Enter or a click on a lit square.")
        await pilot.resize_terminal(*SMALLEST)
        await pilot.pause()
        await pilot.pause()
        decision = next(line.strip() for line in screen_text(app) if line.strip().startswith("▶ Place"))
        assert decision.endswith("."), decision


async def test_the_reminder_beside_the_board_shows_whole_at_120x40():
    for script in (committing(), placing()):
        app = FramesApp(script.frames)
        async with app.run_test(size=LARGE) as pilot:
            await shown(pilot, script)
            await pilot.pause()
            reminder = re.sub(r"\[/?b\]", "", REMINDER.format(strikes=3)).splitlines()
            on_screen(app, *(line.strip() for line in reminder))


# ---------------------------------------------------------------------- defect 2: small terminals

async def test_at_the_smallest_size_every_part_of_the_game_is_on_screen():
    for script in (committing(), placing()):
        app = FramesApp(script.frames)
        async with app.run_test(size=SMALLEST) as pilot:
            await shown(pilot, script)
            lines = screen_text(app)
            on_screen(app, "Temple 1", "Temple 4", "Kingdom", "● Red Ada (you)", "■ Blue Bot (normal)", "1:24",
                      "? Help")
            assert any(line.rstrip().endswith("+2") for line in lines), "temple 4's last column"
            assert any(line.strip().startswith("▶ ") for line in lines), "the decision"
    script = committing()
    app = FramesApp(script.frames)
    async with app.run_test(size=SMALLEST) as pilot:
        await shown(pilot, script)
        on_screen(app, "C1 points", "C2 order", "C3 range", "C4 place", "x Exchange")


async def test_below_the_smallest_size_a_notice_says_so_until_the_terminal_grows():
    script = committing()
    app = FramesApp(script.frames)
    async with app.run_test(size=(MINIMUM.width - 1, MINIMUM.height)) as pilot:
        await shown(pilot, script)
        on_screen(app, f"Terminal too small: {MINIMUM.width - 1}×{MINIMUM.height}, needs at least "
                       f"{MINIMUM.width}×{MINIMUM.height}.")
        assert "Temple 1" not in "\n".join(screen_text(app))
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        on_screen(app, "Terminal too small: 40×12")
        await pilot.resize_terminal(*SMALLEST)
        await pilot.pause()
        assert "too small" not in "\n".join(screen_text(app))
        on_screen(app, "Temple 4", "Ada (you)")
        await pilot.resize_terminal(MINIMUM.width, MINIMUM.height - 1)
        await pilot.pause()
        on_screen(app, too_small_text(app.size).splitlines()[0])


def test_the_readme_states_the_smallest_size():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert f"{MINIMUM.width}×{MINIMUM.height}" in readme

