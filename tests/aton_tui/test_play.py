"""Whole games against the server's random bot, through the real embedded server.

One game is played with key presses only, one with mouse clicks only.
"""

from __future__ import annotations

from textual.pilot import Pilot

from aton_tui.app import AtonApp
from aton_tui.screens.end import EndScreen
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.widgets.board import Board
from aton_tui.widgets.commit_panel import HAND_LABEL, CommitPanel

from .driving import (
    click_content,
    decision_of,
    game_screen,
    model_of,
    my_turn,
    play_to_the_end,
    screen_of,
    square_offset,
    wait_until,
)


async def by_keys(pilot: Pilot, app: AtonApp) -> None:
    if isinstance(app.screen, ScoringScreen):
        await pilot.press("enter")
        return
    decision = decision_of(app)
    if decision.kind == "commit":
        # the hand in reverse order: 4 3 2 1 on cartouches 1-4, typed as digits
        await pilot.press(*(str(v) for v in sorted(decision.hand, reverse=True)), "enter")
    else:
        await pilot.press("right", "enter")


async def by_clicks(pilot: Pilot, app: AtonApp) -> None:
    if isinstance(app.screen, ScoringScreen):
        await pilot.click("#continue")
        return
    decision = decision_of(app)
    screen = screen_of(app)
    if decision.kind == "commit":
        panel = screen.query_one(CommitPanel)
        for _ in range(3):  # always the first card left; the fourth goes on by itself
            await click_content(pilot, panel, len(HAND_LABEL) + 1, 0)
        x, _, _ = next(b for b in panel.buttons() if b[2] == "seal")
        await click_content(pilot, panel, x + 1, 0)
    else:
        board = screen.query_one(Board)
        await click_content(pilot, board, *square_offset(board, decision.squares[-1]))


async def test_a_whole_game_by_keys(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        seen = await play_to_the_end(pilot, by_keys)
        assert model_of(app).is_over
        assert seen["commits"] >= 2 and seen["squares"] >= 4
        end = app.screen
        assert isinstance(end, EndScreen)
        assert str(model_of(app).view.red.score) in str(end.query_one("#final-score").render())
        await pilot.press("l")  # back to the lobby
        await wait_until(pilot, lambda: game_screen(app) is None, what="the lobby")


async def test_a_whole_game_by_mouse(embedded_app):
    app = embedded_app(auto_forced=False)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = await play_to_the_end(pilot, by_clicks)
        assert model_of(app).is_over
        assert seen["commits"] >= 2 and seen["squares"] >= 4


async def test_the_default_bot_thinks_in_a_worker_process(embedded_app):
    """``aton`` plays the "normal" bot, whose search runs in a worker process of the client's own server."""
    app = embedded_app(level="normal")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), timeout=30, what="the first commit")
        await by_keys(pilot, app)
        await wait_until(pilot, lambda: (view := model_of(app).view).round == 2 or view.red.cartouches[0] is not None,
                         timeout=60, what="the bot's commitment")
