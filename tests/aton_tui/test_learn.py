"""``aton learn``: the lesson on the real game screen, driven by keys as a new player would.

The lesson's game runs in the client (aton_tui/guided_game.py); these tests play it start to
finish with the expected moves, with wrong ones (corrected, the game unchanged), leave it, and
check that ``aton`` offers it once to a player with no saved settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from aton.moves import Commit, Place, Remove
from aton_tui.app import AtonApp, Launch
from aton_tui.atlas_zeus.screen import AtlasZeusScreen
from aton_tui.lesson import COME_BACK, LESSON_OVER, STEPS
from aton_tui.screens.help import HelpScreen
from aton_tui.screens.learn import LearnScreen, LessonOffer
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.settings import Settings
from aton_tui.widgets.board import Board
from aton_tui.widgets.commit_panel import CommitPanel
from protocol.game_frames import ATLAS_ZEUS

from .conftest import quiet_settings
from .driving import game_screen_shown, wait_until


def learn_app(**settings) -> AtonApp:
    """``aton learn``."""
    return AtonApp(Launch(name="Ada", start="learn"), quiet_settings(**settings))


def lesson(app: AtonApp) -> LearnScreen:
    screen = next((s for s in app.screen_stack if isinstance(s, LearnScreen)), None)
    assert screen is not None, "no lesson"
    return screen


def ready(app: AtonApp) -> bool:
    """The lesson waits for the learner: its step's decision is shown (or its last words), or a scoring."""
    if isinstance(app.screen, ScoringScreen):
        return True
    screen = next((s for s in app.screen_stack if isinstance(s, LearnScreen)), None)
    if screen is None or app.screen is not screen or not screen.is_mounted or screen.playback.behind:
        return False
    return screen.guided.finished or screen.decision is not None


def exit_message(app: AtonApp) -> str:
    return " ".join(str(r) for r in app._exit_renderables)


async def play_step(pilot: Pilot, app: AtonApp) -> None:
    """Do what the decision line says: type the cards, or Enter on each square the cursor shows."""
    screen = lesson(app)
    move = screen.guided.expected[0]
    if isinstance(move, Commit):
        await pilot.press(*(str(c) for c in move.cards), "enter")
        return
    assert isinstance(move, (Place, Remove))
    assert screen.cursor.square in screen.guided.expected_squares  # shown by the cursor
    await pilot.press("enter")


async def play_the_lesson(pilot: Pilot, app: AtonApp) -> dict[str, int]:
    seen = {"moves": 0, "scorings": 0, "decision lines": 0}
    while True:
        await wait_until(pilot, lambda: ready(app), what="the lesson's next step")
        if isinstance(app.screen, ScoringScreen):
            seen["scorings"] += 1
            await pilot.press("enter")
            continue
        screen = lesson(app)
        step = screen.guided.step
        assert step is not None
        line = str(screen.query_one("#decision").render())
        seen["decision lines"] += step.do in line
        assert step.why in str(screen.query_one("#guide").render())
        if screen.guided.finished:
            return seen
        await play_step(pilot, app)
        seen["moves"] += 1


@pytest.mark.parametrize("size", [(80, 24), (60, 18)], ids=["80x24", "smallest"])
async def test_the_lesson_from_start_to_finish_by_the_keys_it_asks_for(size):
    app = learn_app()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(app), what="the lesson")
        seen = await play_the_lesson(pilot, app)
        # every step's instruction was whole on the decision line (a square that is the only choice plays by itself)
        assert seen["scorings"] == 1 and seen["decision lines"] == seen["moves"] + 1
        assert lesson(app).guided.index == len(STEPS) - 1
        state = lesson(app).guided.state
        assert state.round == 6 and not state.is_over
        assert lesson(app).model.view.round == 6  # the screen shows the game the engine played
        await pilot.press("enter")  # the last words read: the lesson ends, and aton learn with it
        await wait_until(pilot, lambda: bool(app._exit_renderables), what="the end of aton learn")
        assert LESSON_OVER in exit_message(app)


async def test_a_wrong_move_is_corrected_gently_and_the_game_stays_on_the_script():
    app = learn_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: ready(app), what="the first step")
        screen = lesson(app)
        version = screen.guided.version
        await pilot.press("1", "2", "3", "4", "enter")  # not what the lesson asks
        guide = str(screen.query_one("#guide").render())
        assert "Not quite" in guide and "4 1 2 3" in guide
        assert screen.guided.version == version and screen.guided.index == 1  # nothing played
        assert screen.query_one("#guide").has_class("-corrected")
        await pilot.press("4", "1", "2", "3", "enter")  # the cards were put back: typed again from cartouche 1
        await wait_until(pilot, lambda: ready(app) and screen.decision is not None and screen.decision.kind == "place",
                         what="the placement")
        assert not screen.query_one("#guide").has_class("-corrected")
        expected = set(screen.guided.expected_squares)
        await pilot.press("right", "right", "right")  # off the squares the lesson wants
        assert screen.cursor.square not in expected
        await pilot.press("enter")
        assert "Not that one" in str(screen.query_one("#guide").render())
        assert set(screen.guided.expected_squares) == expected  # nothing placed
        assert screen.cursor.square in expected  # the cursor is back on a square the lesson wants
        assert screen.query_one(Board).cursor == screen.cursor.square
        await pilot.press("enter")
        assert len(screen.guided.expected) == len(expected) - 1


async def test_escape_leaves_the_lesson_at_once_and_says_how_to_come_back():
    app = learn_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: ready(app), what="the first step")
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(app._exit_renderables), what="the end of aton learn")
        assert COME_BACK in exit_message(app)


# ---------------------------------------------------------------------- aton: offered once, and from help


def new_player_app(tmp_path: Path, settings: Settings) -> AtonApp:
    launch = Launch(name="Ada", serve="127.0.0.1", db_path=str(tmp_path / "aton.db"), start="bot", level="random")
    return AtonApp(launch, settings)


async def test_aton_offers_the_lesson_once_to_a_player_with_no_saved_settings(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    settings.reveal_delay = 0.0
    assert not settings.lesson_offered
    app = new_player_app(tmp_path, settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LessonOffer), what="the offer")
        assert app.model is None  # no game yet: the bot waits for the answer
        await pilot.press("enter")  # the focused button: the lesson
        await wait_until(pilot, lambda: ready(app), what="the lesson")
        await pilot.press("escape")  # left: the game against the bot comes
        await wait_until(pilot, lambda: game_screen_shown(app) and app.model is not None, what="the bot's game")
        assert not any(isinstance(s, LearnScreen) for s in app.screen_stack)
    assert Settings.load(path).lesson_offered
    again = new_player_app(tmp_path, Settings.load(path))
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(again), what="the game, with no offer")
        assert not any(isinstance(s, LessonOffer) for s in again.screen_stack)


async def test_a_new_player_of_atlas_zeus_plays_at_once_and_is_offered_aton_s_lesson_later(tmp_path):
    path = tmp_path / "settings.json"
    launch = Launch(name="Ada", serve="127.0.0.1", db_path=str(tmp_path / "aton.db"), start="bot", level="random",
                    game=ATLAS_ZEUS)
    app = AtonApp(launch, Settings.load(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: any(isinstance(s, AtlasZeusScreen) for s in app.screen_stack),
                         what="the game of Atlas & Zeus")
        assert not any(isinstance(s, LessonOffer) for s in app.screen_stack)
    assert not Settings.load(path).lesson_offered  # Aton's lesson is still offered when they first play Aton


async def test_escape_on_the_offer_plays_the_bot_and_settings_of_an_older_client_count_as_offered(tmp_path):
    older = tmp_path / "older.json"
    older.write_text('{"theme": "aton-light"}', encoding="utf-8")
    assert Settings.load(older).lesson_offered
    path = tmp_path / "settings.json"
    app = new_player_app(tmp_path, Settings.load(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LessonOffer), what="the offer")
        await pilot.press("escape")
        await wait_until(pilot, lambda: game_screen_shown(app), what="the bot's game")
    assert Settings.load(path).lesson_offered


async def test_the_lesson_opens_from_help_in_the_lobby_and_not_during_a_game(tmp_path):
    app = new_player_app(tmp_path, quiet_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(app), what="the bot's game")
        assert app.check_action("learn", ()) is False  # not during a game of ours
        await pilot.press("R", "y")  # resign: the game is over
        await wait_until(pilot, lambda: app.model is not None and app.model.is_over, what="the end")
        await pilot.press("escape", "question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await pilot.press("l")
        await wait_until(pilot, lambda: ready(app), what="the lesson")
        assert app.check_action("learn", ()) is False and app.check_action("play_bot", ()) is False
        await pilot.press("escape")
        await wait_until(pilot, lambda: not any(isinstance(s, LearnScreen) for s in app.screen_stack),
                         what="back where the player was")


async def test_a_hint_in_the_lesson_lays_the_steps_own_move_on_the_board():
    """In the lesson ``i`` shows the move the step expects (the lesson is a game against the bot):
    the cards laid on the cartouches, then the cursor on the square; Enter plays it."""
    app = learn_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: ready(app), what="the first step")
        screen = lesson(app)
        move = screen.guided.expected[0]
        assert isinstance(move, Commit)
        await pilot.press("i")
        await wait_until(pilot, lambda: screen.hint is not None, what="the hint")
        assert screen.query_one(CommitPanel).draft.cards == move.cards
        assert "the lesson's move" in str(screen.query_one("#hint").render())
        await pilot.press("enter")  # sealed as laid: the step is played
        await wait_until(pilot, lambda: ready(app) and screen.decision is not None and screen.decision.kind == "place",
                         what="the placement")
        assert screen.model.hints_used == 1
        screen.cursor.square = None
        await pilot.press("i")
        await wait_until(pilot, lambda: screen.hint is not None, what="the second hint")
        assert screen.cursor.square in screen.guided.expected_squares
