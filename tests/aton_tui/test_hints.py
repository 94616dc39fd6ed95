"""Hints in the client (``i``), against a real server on the loopback: laid on the board with
one line of why in a game against the server's bot; refused, with a line saying why, in a
game between people and to a spectator; a late answer for a decision left behind is dropped;
the end screen and the saved record say how many hints were used.

The hint's search runs in its own process (``python -m bots.hints``) with a fixed number of
evaluations: the hint shown is checked against ``bots.hints.hint`` of the same view and seed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from aton import Commit, Exchange, Place, Remove
from aton.views import View
from aton_tui.app import AtonApp, Launch
from aton_tui.hinting import NOT_AGAINST_PEOPLE, NOT_FOR_SPECTATORS, hint_seed
from aton_tui.screens.dialogs import Confirm, Prompt
from aton_tui.screens.end import EndScreen
from aton_tui.screens.game import GameScreen
from aton_tui.widgets.commit_panel import CommitPanel
from aton_tui.widgets.hint_line import HintLine
from bots.hints import HINT_ITERATIONS, Hint, hint
from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from ..conftest import GAME_SEED
from ..server.players import Recorder
from .conftest import quiet_settings
from .driving import ann_against_bob, decision_of, game_screen_shown, model_of, my_turn, screen_of, wait_until

#: a hint's process imports the bots and searches: seconds on a busy machine
HINT_WAIT = 60.0


@asynccontextmanager
async def ann_against_the_bot(tmp_path: Path, size=(80, 24)) -> AsyncIterator[tuple[AtonApp, Pilot]]:
    """ann plays the server's random bot on a real server with a fixed game seed."""
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "ann.db"), game_seed=GAME_SEED))
    await srv.start()
    app = AtonApp(Launch(name="ann", port=srv.port, start="bot", level="random", clock="relaxed"),
                  quiet_settings(auto_forced=False))
    try:
        async with app.run_test(size=size) as pilot:
            await wait_until(pilot, lambda: game_screen_shown(app) and my_turn(app), what="ann's first decision")
            yield app, pilot
    finally:
        await srv.stop()


def hint_line(app: AtonApp) -> HintLine:
    return screen_of(app).query_one(HintLine)


def told(app: AtonApp, words: str) -> bool:
    return any(words in n.message for n in app._notifications)


async def ann_decides_next(pilot: Pilot, app: AtonApp) -> None:
    await wait_until(pilot, lambda: my_turn(app) and screen_of(app).decision is not None, timeout=30,
                     what="ann's next decision")


async def until_hinted(pilot: Pilot, app: AtonApp) -> None:
    await wait_until(pilot, lambda: screen_of(app).hint is not None, timeout=HINT_WAIT, what="the hint")


async def test_a_hint_against_the_servers_bot_is_laid_on_the_board_with_one_line_of_why(tmp_path):
    async with ann_against_the_bot(tmp_path, size=(120, 40)) as (app, pilot):
        screen, model = screen_of(app), model_of(app)
        asked: list[tuple[View, int]] = []  # the view and seed the worker process was given
        ask = screen.ask_for_hint
        answer = asyncio.Event()  # the first answer waits for it, so that the line in between can be read

        async def ask_recorded(view: View, seed: int, iterations: int = HINT_ITERATIONS) -> Hint:
            asked.append((view, seed))
            found = await ask(view, seed, iterations)
            await answer.wait()
            return found

        screen.ask_for_hint = ask_recorded
        await pilot.press("i")
        await wait_until(pilot, lambda: bool(asked), what="the search started")
        assert "the bot is thinking… (your clock runs on)" in str(hint_line(app).render())
        answer.set()
        await until_hinted(pilot, app)
        [(view, seed)] = asked
        assert seed == hint_seed(model)  # (the game's state may have moved on since its first frame)
        expected = hint(view, seed=seed)  # what the worker process must have found
        assert screen.hint == expected and expected.reason
        what = "exchange (x) — " if isinstance(expected.move, Exchange) else ""
        assert str(hint_line(app).render()) in (f"Hint: {what}{expected.reason}.", f"Hint: {what}{expected.headline}.")
        assert model.hints_used == 1
        if isinstance(expected.move, Commit):  # the cards lie on the cartouches; Enter seals them
            assert tuple(screen.query_one(CommitPanel).draft.slots) == expected.move.cards
            await pilot.press("enter")
        else:
            await pilot.press("x")
            await wait_until(pilot, lambda: isinstance(app.screen, Confirm), what="the exchange's question")
            await pilot.press("y")
        await wait_until(pilot, lambda: screen.hint_for is None, what="the hint gone with its decision")
        assert not hint_line(app).display
        # on to a square: the hint lights it, Enter plays it
        await ann_decides_next(pilot, app)  # (on a busy machine the bot may not have answered yet)
        while decision_of(app).kind == "commit":
            await pilot.press(*(str(v) for v in decision_of(app).hand), "enter")
            await ann_decides_next(pilot, app)
        before = model.view.stones
        expected = hint(screen.view, seed=hint_seed(model))
        await pilot.press("i")
        await until_hinted(pilot, app)
        assert screen.hint == expected and isinstance(expected.move, (Place, Remove))
        assert screen.cursor.square == (expected.move.temple, expected.move.square)
        await pilot.press("enter")
        await wait_until(pilot, lambda: model.view.stones != before, what="the hinted square played")
        after = model.view.stones
        changed = [i for i in range(48) if ((before[0] ^ after[0]) | (before[1] ^ after[1])) >> i & 1]
        assert changed == [(expected.move.temple - 1) * 12 + expected.move.square]
        assert model.hints_used == 2


async def test_a_second_press_while_thinking_starts_no_second_search_and_a_late_answer_is_dropped(tmp_path):
    async with ann_against_the_bot(tmp_path) as (app, pilot):
        screen = screen_of(app)
        release = asyncio.Event()
        asked = []

        async def slow(view: View, seed: int, iterations: int = HINT_ITERATIONS) -> Hint:
            """The real search, answered only once the test says so."""
            asked.append(seed)
            found = await GameScreen.ask_for_hint(view, seed, iterations)
            await release.wait()
            return found

        screen.ask_for_hint = slow
        await pilot.press("i")
        await wait_until(pilot, lambda: bool(asked), what="the search started")
        await pilot.press("i")
        await wait_until(pilot, lambda: told(app, "Still thinking about the hint"), what="the second press answered")
        assert len(asked) == 1
        search = screen.hint_search
        assert search is not None
        await pilot.press(*(str(v) for v in decision_of(app).hand), "enter")  # the player decides alone
        await wait_until(pilot, lambda: screen.hint_for is None and search.is_finished, what="the search dropped")
        release.set()
        await pilot.pause(0.2)
        assert screen.hint is None and model_of(app).hints_used == 0
        assert not hint_line(app).display


async def test_the_end_screen_and_the_saved_record_count_the_hints(tmp_path):
    async with ann_against_the_bot(tmp_path, size=(120, 40)) as (app, pilot):
        await pilot.press("i")
        await until_hinted(pilot, app)
        await pilot.press("R", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert "hints used: 1" in str(app.screen.query_one("#final-score").render())
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="where to save")
        path = tmp_path / "game.json"
        app.screen.query_one("Input").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_until(pilot, lambda: path.exists(), what="the saved record")
        record = json.loads(path.read_text())
        assert record["meta"]["hints"] == {str(model_of(app).seat): 1}


async def test_no_hint_in_a_game_between_people(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, _):
        await wait_until(pilot, lambda: my_turn(app), what="ann's decision")
        screen = screen_of(app)
        assert screen.check_action("hint", ()) is False
        await pilot.press("i")
        await wait_until(pilot, lambda: told(app, NOT_AGAINST_PEOPLE), what="the refusal")
        assert screen.hint_for is None and screen.hint_search is None


async def test_no_hint_for_a_spectator(tmp_path):
    """cy watches bob and dee (a public table; a game against the server's bot is private to its player)."""
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "watched.db"), game_seed=GAME_SEED))
    await srv.start()
    bob = await Recorder.connect(srv.port, "bob", kind="human", lobby=False)
    dee = await Recorder.connect(srv.port, "dee", kind="human", lobby=False)
    try:
        await bob.send(m.CreateTable(clock="relaxed"))
        table = (await bob.expect(m.TableCreated)).table
        await dee.send(m.JoinTable(table=table))
        game = (await dee.expect(m.GameState)).game
        app = AtonApp(Launch(name="cy", port=srv.port), quiet_settings())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.status.state == "connected", what="cy in the lobby")
            app.watch_game(game)
            await wait_until(pilot, lambda: game_screen_shown(app), what="the watched game")
            assert model_of(app).seat is None
            await pilot.press("i")
            await wait_until(pilot, lambda: told(app, NOT_FOR_SPECTATORS), what="the refusal")
            assert screen_of(app).hint_for is None
    finally:
        await bob.close()
        await dee.close()
        await srv.stop()
