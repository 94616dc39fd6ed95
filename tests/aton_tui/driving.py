"""Helpers that play the client the way a person would: by keys or by clicks."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot
from textual.widget import Widget

from aton.views import Decision
from aton_tui.app import AtonApp, Launch
from aton_tui.model import GameModel
from aton_tui.screens.end import EndScreen
from aton_tui.screens.game import GameScreen
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.widgets.board import Board
from aton_tui.widgets.commit_panel import CommitPanel
from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from ..conftest import GAME_SEED
from ..server.players import Recorder
from .conftest import quiet_settings

GAME_TIMEOUT = 120.0


async def wait_until(pilot: Pilot, condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.02)


def game_screen(app: AtonApp) -> GameScreen | None:
    return next((s for s in app.screen_stack if isinstance(s, GameScreen)), None)


def game_screen_shown(app: AtonApp) -> bool:
    """The game screen is on top and composed: its widgets are there to query.  (It is on the
    screen stack, and the game's model is there, a few loop turns before its widgets are.)"""
    screen = game_screen(app)
    return screen is not None and app.screen is screen and screen.is_mounted


def screen_of(app: AtonApp) -> GameScreen:
    """The game screen, once there is one."""
    screen = game_screen(app)
    assert screen is not None, "no game screen"
    return screen


def model_of(app: AtonApp) -> GameModel:
    """The app's game of Aton, once there is one."""
    assert isinstance(app.model, GameModel), "no game of Aton yet"
    return app.model


def decision_of(app: AtonApp) -> Decision:
    """The decision this player faces now."""
    decision = model_of(app).decision
    assert decision is not None, "no decision to make"
    return decision


def my_turn(app: AtonApp) -> bool:
    """Something to do: a modal to dismiss, the end, or a decision of ours."""
    screen = game_screen(app)
    if screen is None or app.model is None:
        return False
    if isinstance(app.screen, (ScoringScreen, EndScreen)):
        return True
    decision = app.model.decision
    if app.screen is not screen or screen.sent is not None or decision is None:
        return False
    if decision.kind == "commit":
        panels = screen.query(CommitPanel)  # empty while the screen is being composed
        return bool(panels) and panels.first().region.height > 0 and panels.first().draft.hand == decision.hand
    return screen.cursor.active


async def click_content(pilot: Pilot, widget: Widget, x: int, y: int) -> None:
    """Click at (x, y) of ``widget``'s content area (inside its padding)."""
    gutter = widget.content_region.offset - widget.region.offset
    await pilot.click(widget, offset=(x + gutter.x, y + gutter.y))


def square_offset(board: Board, square: tuple[int, int]) -> tuple[int, int]:
    """Where a square's tile is, in the board's content area."""
    geo = board.geometry()
    temple, index = square
    row, column = divmod(index, 4)
    return geo.temple_x(temple) + column * (geo.tile_w + 1) + 1, geo.row_y(row)


async def play_to_the_end(pilot: Pilot, act: Callable[[Pilot, AtonApp], Awaitable[object]]) -> dict:
    """Answer every decision with ``act`` until the end screen shows; counts of what happened."""
    app = pilot.app
    assert isinstance(app, AtonApp)
    seen = {"commits": 0, "squares": 0, "scorings": 0}
    deadline = time.monotonic() + GAME_TIMEOUT
    while not isinstance(app.screen, EndScreen):
        assert time.monotonic() < deadline, "the game did not end in time"
        await wait_until(pilot, lambda: my_turn(app), timeout=30, what="a decision, a scoring or the end")
        if isinstance(app.screen, EndScreen):
            break
        kind = "scorings" if isinstance(app.screen, ScoringScreen) else \
            "commits" if decision_of(app).kind == "commit" else "squares"
        seen[kind] += 1
        await act(pilot, app)
        await pilot.pause()
    return seen


@asynccontextmanager
async def ann_against_bob(tmp_path: Path, size: tuple[int, int] = (80, 24)
                          ) -> AsyncIterator[tuple[AtonApp, Pilot, Recorder]]:
    """ann (the client) opens a table on a real server, bob (a protocol client) sits down."""
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "ann_and_bob.db"), game_seed=GAME_SEED))
    await srv.start()
    bob = None
    app = AtonApp(Launch(name="ann", port=srv.port, start="table", clock="relaxed"), quiet_settings())
    try:
        async with app.run_test(size=size) as pilot:
            await wait_until(pilot, lambda: bool(srv.lobby.tables), what="ann's table")
            bob = await Recorder.connect(srv.port, "bob", kind="human", lobby=False)
            await bob.send(m.JoinTable(table=next(iter(srv.lobby.tables))))
            await bob.expect(m.GameState)
            await wait_until(pilot, lambda: game_screen_shown(app), what="the game screen")
            yield app, pilot, bob
    finally:
        if bob is not None:
            await bob.close()
        await srv.stop()
