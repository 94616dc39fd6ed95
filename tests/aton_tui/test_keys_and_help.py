"""Keys a player expects (resign, forced moves, bell), the help that lists them and the rules,
the theme, the bell and the terminal's title; driven by fixed frames."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Markdown, TabbedContent

from aton.players import RED
from aton_tui.app import AtonApp, Frame
from aton_tui.screens.dialogs import Confirm
from aton_tui.screens.game import GameScreen
from aton_tui.screens.help import HELP_PAGE, RULES_PAGE, HelpScreen, complete_rules
from aton_tui.screenshots import screenshot_name
from aton_tui.settings import Settings
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from protocol.game_frames import typed

from .driving import wait_until
from .scripted import FramesApp, ScriptedGame, red_to


def on_the_board(app: FramesApp, script: ScriptedGame):
    return lambda: isinstance(app.screen, GameScreen) and app.model is not None and app.model.version == script.version


@asynccontextmanager
async def first_round() -> AsyncIterator[tuple[FramesApp, Pilot]]:
    """The client on the board of a game's first round, both players to commit."""
    script = ScriptedGame()
    app = FramesApp([script.first])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, on_the_board(app, script))
        yield app, pilot


def page_markdown(app: AtonApp, page: str) -> Markdown:
    return app.screen.query_one(f"#{page} Markdown", Markdown)


def help_text(app: AtonApp) -> str:
    return page_markdown(app, HELP_PAGE).source


async def test_shift_r_resigns_after_asking_and_enter_does_not_resign():
    async with first_round() as (app, pilot):
        await pilot.press("R")
        assert isinstance(app.screen, Confirm)
        await pilot.press("enter")  # meant for the board: it answers "Play on"
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the board again")
        await pilot.press("R", "y")
        await wait_until(pilot, lambda: app.recording.sent == [m.Resign(game=12)], what="the resignation")


async def test_f_turns_the_forced_moves_off_and_on():
    async with first_round() as (app, pilot):
        assert app.settings.auto_forced
        await pilot.press("f")
        assert not app.settings.auto_forced
        await pilot.press("f")
        assert app.settings.auto_forced


async def test_help_says_how_to_close_it_every_key_and_the_rules_a_player_needs():
    async with first_round() as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = help_text(app)
        assert "**Esc**, **q** or **?** closes this help" in text
        for keys, does in (("← h → l", "light another cartouche"), ("↑ k ↓ j", "change the card"),
                           ("Shift+r", "resign this game"), ("f", "playing a square by itself"),
                           ("Ctrl+g", "turn the bell on or off"), ("F2", "light and dark theme"),
                           ("r", "offer a rematch, or accept"), ("d", "decline the opponent's offer")):
            assert any(f"`{keys}`" in line and does in line for line in text.splitlines()), (keys, does)
        for rule in ("a tie scores nothing", "equal points are a draw", "the second player's stay hidden",
                     "go from your supply to the Kingdom of the Dead", "checked\nafter your whole placement",
                     "**⚠**", "time-outs\nin a row", "**Tab** (the Rules page"):
            assert rule in text, rule
        await pilot.press("q")
        assert isinstance(app.screen, GameScreen)


@pytest.mark.parametrize("size", [(80, 24), (60, 18)], ids=["80x24", "60x18"])
async def test_tab_turns_the_help_to_the_complete_rules_which_scroll_with_the_keys(size):
    """help → Rules: the whole of docs/rules.md (the board's diagram with it), scrolled by keys,
    at the usual size and at the smallest; Tab turns back to the keys."""
    script = ScriptedGame()
    app = FramesApp([script.first])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, on_the_board(app, script))
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await pilot.press("tab")
        assert app.screen.query_one(TabbedContent).active == RULES_PAGE
        source = page_markdown(app, RULES_PAGE).source
        assert complete_rules() in source
        for words in ("Temple 1   Temple 2   Temple 3   Temple 4\nY Y Y  Y   Y Y Y  Y   Y Y Y  +1  Y Y Y  +2",
                      "## Variants", "| 4 | 2 of the opponent's stones |",
                      "very first round of a game nobody removes anything**"):
            assert words in source, words
        page = app.screen.query_one(f"#{RULES_PAGE} VerticalScroll", VerticalScroll)
        assert app.focused is page and page.max_scroll_y > 0
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: page.scroll_y > 0, what="a page down")
        await pilot.press("end")
        await wait_until(pilot, lambda: page.scroll_y == page.max_scroll_y, what="the end of the rules")
        await pilot.press("tab")
        assert app.screen.query_one(TabbedContent).active == HELP_PAGE
        assert app.focused is app.screen.query_one(f"#{HELP_PAGE} VerticalScroll")
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


async def test_the_palette_opens_the_rules_and_their_link_to_the_variants_scrolls_there():
    async with first_round() as (app, pilot):
        await pilot.press("ctrl+p", *"Rules")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        assert app.screen.query_one(TabbedContent).active == RULES_PAGE
        rules = page_markdown(app, RULES_PAGE)
        page = app.screen.query_one(f"#{RULES_PAGE} VerticalScroll", VerticalScroll)
        await wait_until(pilot, lambda: bool(rules.table_of_contents), what="the rules laid out")
        heading_id = next(id_ for _, title, id_ in rules.table_of_contents if title == "Variants")
        heading = rules.query_one(f"#{heading_id}")
        assert not page.region.contains_region(heading.region)  # the end of the rules: not in sight at first
        rules.post_message(Markdown.LinkClicked(rules, "#variants"))
        await wait_until(pilot, lambda: page.scroll_y > 0 and page.region.contains_region(heading.region),
                         what="the variants in sight")


def test_the_rules_page_keeps_the_words_of_links_to_other_docs_and_nothing_to_follow():
    """A page of docs/ is not in the client: its link is left as words (a click opens nothing);
    a link within the rules stays."""
    text = complete_rules()
    assert "](" not in text.replace("](#variants)", "")
    assert "(a field of `aton.Rules`, see\nthe rules engine)" in text


async def test_the_theme_recolours_the_whole_log_and_one_picked_in_the_palette_is_kept(tmp_path: Path):
    script = ScriptedGame()
    script.play_until(red_to("place", round_at_least=2))
    app = FramesApp(script.frames)
    app.settings = Settings(reveal_delay=0.0, path=tmp_path / "settings.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, on_the_board(app, script))
        log = app.screen.query_one(GameLog)

        def colours() -> set[str]:
            return {str(segment.style.color) for line in log.lines for segment in line
                    if segment.style is not None and segment.style.color is not None}

        dark = colours()
        await pilot.press("f2")
        await wait_until(pilot, lambda: colours() != dark and app.theme == "aton-light", what="the log recoloured")
        assert colours().isdisjoint(dark)  # no line kept the dark theme's colours
        assert json.loads((tmp_path / "settings.json").read_text())["theme"] == "aton-light"
        await pilot.press("ctrl+p", *"Theme")  # Textual's theme picker, in the command palette
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the list of themes")
        await pilot.press(*"aton-dark")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: json.loads((tmp_path / "settings.json").read_text())["theme"] == "aton-dark",
                         what="the palette's theme kept")
        assert colours() == dark


class Rings:
    """Counts the terminal bells the app rings (a headless app has no terminal to ring)."""

    def __init__(self, app: AtonApp) -> None:
        self.count = 0
        app.bell = self.ring  # type: ignore[method-assign]

    def ring(self) -> None:
        self.count += 1


async def rings_in_a_turn(bell: bool) -> int:
    """The bells while red's decision comes, a chat line from blue, and red's clock runs low."""
    script = ScriptedGame()
    script.play_until(red_to("place", round_at_least=2))
    frames: list[m.GameState | m.Update] = [script.first, *script.updates]
    waiting = max(i for i, f in enumerate(frames) if f.view["decision"] is None)  # then red decides
    last = script.updates[-1]
    low = {**last.clocks, "red": {**last.clocks["red"], "remaining_ms": 5_000}}
    chat = {"type": "chat", "player": "blue", "name": "Bot (normal)", "text": "hurry"}
    later = replace(last, version=last.version + 1, events=({**chat, "version": last.version + 1},), clocks=low)
    app = FramesApp(list(frames[:waiting + 1]), bell=bell)
    rings = Rings(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen) and app.model is not None
                         and app.model.version == frames[waiting].version)
        await pilot.pause(1.2)
        before = rings.count
        assert app.terminal_title == "Aton · Bot (normal) to move"
        for frame in (*frames[waiting + 1:], later):  # red's decision, then a chat line and a low clock
            app.post_message(Frame(typed(frame)))
        await wait_until(pilot, lambda: app.model is not None and app.model.version == later.version)
        await pilot.pause(1.2)  # the clock is looked at every second
        assert app.terminal_title == "Aton · your move"
        return rings.count - before


async def test_the_bell_rings_for_a_decision_a_low_clock_and_a_chat_line():
    assert await rings_in_a_turn(bell=True) == 3


async def test_the_bell_setting_turns_it_off():
    assert await rings_in_a_turn(bell=False) == 0


async def test_the_terminal_title_says_whose_move_it_is():
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    script.blue_seals()
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, on_the_board(app, script))
        assert app.terminal_title == "Aton · your move"
        hand = sorted(script.game.view(RED)["decision"]["hand"])
        await pilot.press(str(hand[3]), str(hand[0]), str(hand[2]), "enter")  # the fourth goes by itself
        await wait_until(pilot, lambda: app.terminal_title == "Aton · waiting", what="sealed: nothing to do")


async def test_against_the_servers_bot_the_clock_stands_still_while_help_is_open(embedded_app):
    """Through the real server in the client (``aton``): help stops our clock, closing it starts it again."""
    app = embedded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen) and app.model is not None,
                         what="the game against the bot")
        assert app.local is not None
        model = app.model
        room = app.local.server.rooms[model.game]
        held = room.seats[model.seat]

        def told(kind: str) -> int:
            return sum(1 for n in model.events if getattr(n.event, "TYPE", "") == kind)

        await pilot.press("question_mark")
        await wait_until(pilot, lambda: held.paused_at is not None and model.paused(model.seat),
                         what="the server stopping our clock")
        assert "your clock stands still while the help or a dialog is open" in help_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: told("clock_resumed") == 1 and not model.paused(model.seat),
                         what="our clock running again")
        assert held.paused_at is None and told("clock_paused") == 1
        await pilot.press("R")  # a dialog stops it as well
        await wait_until(pilot, lambda: told("clock_paused") == 2, what="the clock stopped by a dialog")
        await pilot.press("n")
        await wait_until(pilot, lambda: told("clock_resumed") == 2, what="the clock running after the dialog")


async def test_the_palettes_screenshot_is_saved_in_the_data_directory_and_says_where(tmp_path, monkeypatch):
    """On a machine without ~/Downloads (Textual's choice), the screenshot still saves."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = tmp_path / "data" / "aton" / "screenshots"
    async with first_round() as (app, pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"Screenshot")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: folder.exists() and any(folder.iterdir()), what="the screenshot")
        (saved,) = folder.iterdir()
        assert saved.name == screenshot_name(app.wall_clock())  # named by the (frozen) time it was taken
        assert "<svg" in saved.read_text(encoding="utf-8")
        await wait_until(pilot, lambda: any(str(saved) in n.message for n in app._notifications),
                         what="a notice of where it went")
    assert not (tmp_path / "home" / "Downloads").exists()
