"""The lobby of a remote server (``aton connect``): live lists, joining, watching, reconnecting."""

from __future__ import annotations

import asyncio
import random
from unittest.mock import patch

import pytest
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Label, Static

from aton.players import BLUE, RED
from aton_tui.app import LOBBY_REDRAW_DELAY, AtonApp, Frame, Launch
from aton_tui.lobby_model import HELD
from aton_tui.screens.dialogs import Choices
from aton_tui.screens.game import GameScreen
from aton_tui.screens.lobby import HINT, LobbyScreen, player_rows
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client

from ..server.players import matched_pair, public_games
from .conftest import quiet_settings
from .driving import game_screen, game_screen_shown, model_of, my_turn, screen_of, wait_until
from .test_session import bob_plays


def remote_app(port: int) -> AtonApp:
    return AtonApp(Launch(name="ada", port=port), quiet_settings())


def rows(app: AtonApp, table: str) -> int:
    return app.screen.query_one(f"#{table}", DataTable).row_count


async def test_an_open_table_appears_live_and_enter_joins_it(server):
    app = remote_app(server.port)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        assert rows(app, "tables") == 0
        bea = await Client.connect("127.0.0.1", server.port, name="bea", proof=AccountKey.generate())
        await bea.send(m.CreateTable(clock="normal"))
        await wait_until(pilot, lambda: rows(app, "tables") == 1, what="bea's table in the lobby")
        await wait_until(pilot, lambda: rows(app, "players") == 2, what="bea among the players")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the game")
        assert model_of(app).seat in (RED, BLUE) and model_of(app).name(model_of(app).opponent) == "bea"
        await bea.close()


async def test_a_lobby_told_before_its_screen_is_composed_draws_it_once_composed(server):
    """A lobby frame may come between pushing the lobby's screen and its
    compose (a fast server on a busy loop): the screen draws the lobby from its mount, not a crash
    (a fresh-clone CI run once failed this way, in the test above)."""
    app = remote_app(server.port)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        fresh = LobbyScreen("here")
        app.push_screen(fresh)
        assert not fresh.is_mounted
        table = {"table": 7, "host": "bea", "clock": "normal", "private": False, "since": app.wall_clock()}
        app.on_frame(Frame(m.Lobby(players=(), tables=(table,), games=())))  # (before the screen's compose)
        await wait_until(pilot, lambda: fresh.is_mounted, what="the new screen composed")
        assert fresh.query_one("#tables", DataTable).row_count == 1


async def test_a_long_redraw_wait_holds_back_players_but_never_an_open_table(server):
    """In an app host drawing many apps (``lobby_redraw_delay``), the lobby's players and games are
    drawn after a long wait; an open table at once, and what waited comes with it."""
    app = remote_app(server.port)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        app.lobby_redraw_delay = 3600.0
        bea = await Client.connect("127.0.0.1", server.port, name="bea", proof=AccountKey.generate())
        await wait_until(pilot, lambda: app.lobby.player("bea") is not None, what="bea's arrival told")
        await pilot.pause(3 * LOBBY_REDRAW_DELAY)
        assert rows(app, "players") == 1  # (told, not drawn yet)
        await bea.send(m.CreateTable(clock="normal"))
        await wait_until(pilot, lambda: rows(app, "tables") == 1, what="bea's table, drawn at once")
        assert rows(app, "players") == 2
        await bea.close()


async def test_a_game_in_progress_can_be_watched(server):
    a = await Client.connect("127.0.0.1", server.port, name="cy", proof=AccountKey.generate())
    b = await Client.connect("127.0.0.1", server.port, name="dee", proof=AccountKey.generate())
    await a.send(m.QuickMatch(clock="relaxed"))
    await b.send(m.QuickMatch(clock="relaxed"))
    app = remote_app(server.port)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "games") == 1)
        app.screen.query_one("#games", DataTable).focus()
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the watched game")
        assert model_of(app).seat is None and model_of(app).decision is None
        players = asyncio.gather(bob_plays(a), bob_plays(b))
        await wait_until(pilot, lambda: model_of(app).view.round >= 2, timeout=20, what="the game to go on")
        players.cancel()
        await pilot.press("ctrl+l")  # back to the lobby: we stop watching
        await wait_until(pilot, lambda: game_screen(app) is None and app.model is None)
    await a.close()
    await b.close()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_game_in_progress_shows_its_players_ratings_and_its_whole_clock(server, size):
    a = await Client.connect("127.0.0.1", server.port, name="cy", proof=AccountKey.generate())
    b = await Client.connect("127.0.0.1", server.port, name="dee", proof=AccountKey.generate())
    await a.send(m.QuickMatch(clock="relaxed", rated=True))
    await b.send(m.QuickMatch(clock="relaxed", rated=True))
    app = remote_app(server.port)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "games") == 1)
        games = app.screen.query_one("#games", DataTable)
        await wait_until(pilot, lambda: games.virtual_size.width <= games.size.width, what="the list fitted")
        cells = [str(cell) for cell in games.get_row_at(0)]
        assert sorted(cells[1:3]) == ["cy 1500?", "dee 1500?"] and cells[-1] == "relaxed rated"
        assert not games.show_horizontal_scrollbar  # every column whole
    await a.close()
    await b.close()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_players_online_are_listed_whole_with_their_ratings(server, size):
    """Names of six letters and more, with a rating, did not fit at 80 columns beside "in the
    lobby": what they did was cut short ("in the lo") under a scroll bar."""
    others = [await Client.connect("127.0.0.1", server.port, name=f"player{n}", proof=AccountKey.generate())
              for n in range(12)]
    app = remote_app(server.port)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "players") == 13)
        players = app.screen.query_one("#players", DataTable)
        await wait_until(pilot, lambda: players.virtual_size.width <= players.size.width, what="the list fitted")
        shown = {tuple(str(cell) for cell in players.get_row_at(row)) for row in range(players.row_count)}
        assert ("player10 1500?", "lobby" if size == (80, 24) else "in the lobby") in shown
        assert not players.show_horizontal_scrollbar
    for other in others:
        await other.close()


async def test_a_bot_game_starts_from_the_lobby_dialog(server):
    app = remote_app(server.port)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.status.state == "connected")
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, Choices))
        await pilot.press("left")  # strength: normal (the default) → easy, which thinks inline
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the bot game")
        assert model_of(app).name(model_of(app).opponent) == "Bot (easy)"


def lobby_hint(app: AtonApp) -> str:
    return str(app.screen.query_one("#lobby-hint", Static).render())


def section_titles(app: AtonApp) -> list[str]:
    return [str(label.render()) for label in app.screen.query(".section-title").results(Label)]


def keys_off(app: AtonApp) -> set[str]:
    """The lobby's keys (as the hint writes them) that do nothing now: the footer leaves them out."""
    on = {key for key, active in app.screen.active_bindings.items() if active.enabled}
    return {binding.key_display or binding.key for binding in Binding.make_bindings(LobbyScreen.BINDINGS)
            if binding.key not in on}


async def test_during_a_game_the_lobby_hint_names_the_way_back_and_no_key_that_is_off(server):
    app = remote_app(server.port)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.status.state == "connected")
        assert lobby_hint(app) == HINT
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, Choices))
        await pilot.press("left", "enter")  # a game against the easy bot, which thinks inline
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the bot game")
        for _ in range(2):  # to the lobby, back to the game with the key the hint names, and again
            await pilot.press("ctrl+l")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")
            hint = lobby_hint(app)
            off = keys_off(app)
            assert {"b", "q", "n", "i"} <= off  # one game at a time
            assert not [part for part in hint.split(" · ") if part.split()[0] in off], hint
            assert "Enter on a table" not in hint and "on a game watches" not in hint  # they would leave it
            assert "g takes you back" in hint and "g" not in off
            assert section_titles(app) == ["Open tables", "Games in progress", "Players online"]  # no "Enter joins"
            await pilot.press("g")
            await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="our game again")
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")
        await app.send(m.Resign(game=model_of(app).game))  # the game ends while we are in the lobby
        await wait_until(pilot, lambda: model_of(app).is_over, what="the end of the game")
        assert lobby_hint(app) == HINT and not {"b", "q", "n", "i"} & keys_off(app)
        assert section_titles(app) == ["Open tables — Enter joins", "Games in progress — Enter watches",
                                       "Players online"]


async def test_during_a_game_enter_on_a_table_or_a_game_says_one_at_a_time_and_keeps_ours(server):
    bea = await Client.connect("127.0.0.1", server.port, name="bea", proof=AccountKey.generate())
    await bea.send(m.CreateTable(clock="normal"))
    cy = await Client.connect("127.0.0.1", server.port, name="cy", proof=AccountKey.generate())
    dee = await Client.connect("127.0.0.1", server.port, name="dee", proof=AccountKey.generate())
    await cy.send(m.QuickMatch(clock="relaxed"))
    await dee.send(m.QuickMatch(clock="relaxed"))
    app = remote_app(server.port)

    def refusals() -> int:
        return sum("One game at a time" in n.message for n in app._notifications)

    async def enter_refused(pilot: Pilot, table: str) -> None:
        before = refusals()
        app.screen.query_one(f"#{table}", DataTable).focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: refusals() == before + 1, what=f"Enter on the {table} refused")

    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.status.state == "connected" and isinstance(app.screen, LobbyScreen)
                         and rows(app, "tables") == 1 and rows(app, "games") == 1, what="bea's table, cy's game")
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, Choices))
        await pilot.press("left", "enter")  # a game against the easy bot, which thinks inline
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the bot game")
        ours = model_of(app).game
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")
        assert {"j", "w"} <= keys_off(app)
        for table in ("tables", "games"):
            await enter_refused(pilot, table)
            assert isinstance(app.screen, LobbyScreen) and model_of(app).game == ours and not model_of(app).is_over
        await app.send(m.Resign(game=ours))
        await wait_until(pilot, lambda: model_of(app).is_over, what="the end of our game")
        assert not {"j", "w"} & keys_off(app)
        app.screen.query_one("#tables", DataTable).focus()
        await pilot.press("enter")  # one game at a time: now bea's
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen) and model_of(app).game != ours,
                         what="the game at bea's table")
        assert model_of(app).name(model_of(app).opponent) == "bea"
    for client in (bea, cy, dee):
        await client.close()


async def test_a_lost_connection_shows_a_banner_and_the_game_resumes(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        # the game screen on top and drawn (a decision alone comes before its screen is composed)
        await wait_until(pilot, lambda: my_turn(app), what="the game screen with our decision")
        game = model_of(app).game
        banner = screen_of(app).query_one("#banner")
        shown: list[tuple[bool, str]] = []  # what the banner showed each time it changed
        show = app._banner

        def recording_banner(text: str) -> None:  # the trouble may be over before a poll would see it
            show(text)
            shown.append((banner.has_class("-shown"), str(banner.render())))

        app._banner = recording_banner
        app.session.client.writer.transport.abort()
        await wait_until(pilot, lambda: bool(shown), what="the trouble to be noticed")
        assert shown[0][0] and "reconnecting" in shown[0][1]
        await wait_until(pilot, lambda: app.status.state == "connected" and not banner.has_class("-shown"),
                         what="the reconnection")
        assert model_of(app).game == game and model_of(app).decision is not None


async def test_a_burst_of_lobby_updates_is_drawn_once(server):
    app = remote_app(server.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "players") == 1,
                         what="the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        # the redraw waits longer than any burst could take, however slow the machine: the test
        # sees the arrivals come in, then makes the one redraw they wait for happen
        with patch("aton_tui.app.LOBBY_REDRAW_DELAY", 3600), \
                patch.object(screen, "refresh_lists", wraps=screen.refresh_lists) as drawing:
            others = await asyncio.gather(*(Client.connect("127.0.0.1", server.port, name=f"p{n}", lobby=False,
                                                           proof=AccountKey.generate()) for n in range(12)))
            try:
                await wait_until(pilot, lambda: len(app.lobby.players) == 13, what="twelve arrivals")
                assert drawing.call_count == 0 and rows(app, "players") == 1  # none drawn on its own
                assert app._lobby_redraw is not None  # one redraw waits for them all
                app._refresh_lobby()  # what that timer does when it fires
                assert drawing.call_count == 1 and rows(app, "players") == 13
            finally:
                for other in others:
                    await other.close()


async def test_watching_a_game_in_progress_tells_its_story_so_far(server):
    red, blue = await matched_pair(server.port)
    in_round_3 = lambda player: player.view["round"] >= 3  # noqa: E731
    await asyncio.gather(red.play(random.Random(1), stop=in_round_3), blue.play(random.Random(2), stop=in_round_3))
    app = remote_app(server.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "games") == 1,
                         what="the game in the lobby")
        await pilot.press("tab", "enter")
        await wait_until(pilot, lambda: game_screen_shown(app), what="the game screen")
        log = "\n".join("".join(s.text for s in line) for line in app.screen.query_one(GameLog).lines)
        assert "── Round 2 ──" in log and "── Round 3 ──" in log, log
        assert model_of(app).seat is None


async def test_a_lobby_of_800_games_shows_a_page_and_turns_to_the_others(server):
    players = await public_games(server.port, 800)  # noqa: F841 (they stay online)
    newest = sorted(server.rooms, reverse=True)
    app = remote_app(server.port)

    def pages() -> str:
        return str(app.screen.query_one("#games-pages", Label).render())

    def first_game() -> int:
        table = app.screen.query_one("#games", DataTable)
        return int(str(table.coordinate_to_cell_key(Coordinate(0, 0)).row_key.value))

    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and rows(app, "games") == 50,
                         timeout=30, what="the first page of games")
        assert "1–50 of 800" in pages() and first_game() == newest[0]
        assert str(app.screen.query_one("#players-pages", Label).render()).startswith("1–50 of 1601")
        app.screen.query_one("#games", DataTable).focus()
        await pilot.press("right_square_bracket")
        await wait_until(pilot, lambda: "51–100 of 800" in pages(), what="the second page")
        await pilot.press("right_square_bracket")
        await wait_until(pilot, lambda: "101–150 of 800" in pages(), what="the third page")
        assert rows(app, "games") == 50 and first_game() == newest[100]
        await pilot.press("left_square_bracket")
        await wait_until(pilot, lambda: "51–100 of 800" in pages(), what="the second page again")
        assert first_game() == newest[50]
        await pilot.press("down", "enter")  # the second game of the page
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the watched game")
        assert app.model is not None and (model_of(app).game, model_of(app).seat) == (newest[51], None)
        assert all(len(window.entries) <= HELD for window in app.lobby.sections.values())


def test_the_players_list_says_less_before_it_cuts_a_name_and_never_cuts_a_rating():
    rated = {"normal": {"rating": 1612, "provisional": False, "games": 30}}
    players: list[dict] = [{"name": "bartholomew", "status": "lobby", "ratings": rated},
               {"name": "ada", "status": "playing"}]
    padding = 1  # (a DataTable's own)

    def shown(width: int | None) -> list[tuple[str, ...]]:
        return [cells for _, cells in player_rows(players, width, padding)]

    whole = [("bartholomew 1612", "in the lobby"), ("ada", "playing")]
    assert shown(None) == shown(16 + 12 + 4) == whole
    assert shown(16 + 12 + 3) == shown(16 + 7 + 4) == [("bartholomew 1612", "lobby"), ("ada", "playing")]
    assert shown(10 + 7 + 4) == [("bart… 1612", "lobby"), ("ada", "playing")]
