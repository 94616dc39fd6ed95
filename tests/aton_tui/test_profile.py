"""The profile screen (issue 15, point 3) on a real server: yours from the lobby (p) and the
palette, another player's from their row in the lobby (Enter), its games counted and listed,
and Enter on a finished game opens it in the replay viewer from the player's side."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Static

from aton.players import Player
from aton_tui.app import AtonApp
from aton_tui.replay_model import Perspective
from aton_tui.screens.end import EndScreen
from aton_tui.screens.leaderboard import LeaderboardScreen
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.screens.profile import ProfileScreen
from aton_tui.screens.replay import ReplayScreen
from protocol import messages as m

from ..server.players import Recorder
from .driving import ann_against_bob, wait_until


def text_of(screen: Screen, selector: str) -> str:
    """What a line of the screen says ("" before it is composed)."""
    found = screen.query(selector).results(Static)
    return next((str(widget.render()) for widget in found), "")


async def back_in_the_lobby_after_bob_resigns(app: AtonApp, pilot: Pilot, bob: Recorder) -> None:
    await bob.send(m.Resign(game=bob.game))
    await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
    await pilot.press("l")
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")


async def test_your_profile_lists_your_game_and_enter_replays_it(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        game, ann_seat = bob.game, Player.parse(bob.seat).other
        await back_in_the_lobby_after_bob_resigns(app, pilot, bob)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.screen.profile is not None,
                         what="ann's profile")
        screen = app.screen
        assert isinstance(screen, ProfileScreen)
        assert text_of(screen, "#profile-totals") == "1 game: 1 won, 0 lost, 0 drawn"
        assert text_of(screen, "#top-bar").endswith("your profile")  # ann's client proves an account
        table = screen.query_one("#profile-games", DataTable)
        assert table.row_count == 1
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[0] == f"#{game}" and row[2] == "bob" and row[3] == "won (resign)" and row[4].startswith("1 round")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay viewer")
        viewer = app.screen
        assert isinstance(viewer, ReplayScreen)
        assert viewer.perspective is Perspective.of(ann_seat) and viewer.model.record.meta["game"] == game
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the profile again")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby again")


async def test_an_opponent_who_renamed_is_shown_by_their_name_now_and_o_opens_their_profile(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        game = bob.game
        await back_in_the_lobby_after_bob_resigns(app, pilot, bob)
        await bob.send(m.Rename(name="robert"))
        assert (await bob.expect(m.AccountInfo)).name == "robert"
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.screen.profile is not None,
                         what="ann's profile")
        own = app.screen
        assert isinstance(own, ProfileScreen)
        assert str(own.query_one("#profile-games", DataTable).get_row_at(0)[2]) == "robert (then: bob)"
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.screen is not own
                         and app.screen.profile is not None, what="robert's profile")
        theirs = app.screen
        assert isinstance(theirs, ProfileScreen)
        assert text_of(theirs, "#top-bar").endswith("profile of robert")
        row = [str(cell) for cell in theirs.query_one("#profile-games", DataTable).get_row_at(0)]
        assert row[0] == f"#{game}" and row[2] == "ann" and row[3] == "lost (resign)"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is own, what="ann's profile again")


async def test_enter_on_a_player_in_the_lobby_shows_their_profile(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await back_in_the_lobby_after_bob_resigns(app, pilot, bob)
        players = app.screen.query_one("#players", DataTable)
        await wait_until(pilot, lambda: players.row_count == 2, what="both players in the lobby")
        players.focus()
        names = [key.value for key in players.rows]
        players.move_cursor(row=names.index("bob"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.screen.profile is not None,
                         what="bob's profile")
        screen = app.screen
        assert isinstance(screen, ProfileScreen)
        assert text_of(screen, "#top-bar").endswith("profile of bob")
        assert text_of(screen, "#profile-totals") == "1 game: 0 won, 1 lost, 0 drawn"
        assert str(screen.query_one("#profile-games", DataTable).get_row_at(0)[2]) == "ann"


async def test_a_profile_of_nobody_says_so(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, _bob):
        app.action_profile("zed")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen)
                         and "zed" in text_of(app.screen, "#profile-totals"), what="the refusal")
        assert text_of(app.screen, "#profile-totals") == "The server says: there is no player zed"


async def test_the_leaderboard_from_the_lobby_turns_its_clocks(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await back_in_the_lobby_after_bob_resigns(app, pilot, bob)
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and app.screen.board is not None,
                         what="the leaderboard")
        board = app.screen
        assert isinstance(board, LeaderboardScreen) and board.board is not None
        assert (board.clock, board.board.clock, board.board.total) == ("relaxed", "relaxed", 0)  # the game's clock
        assert text_of(board, "#leaderboard-pages").startswith("Nobody is ranked at the relaxed clock yet")
        await pilot.press("tab")
        await wait_until(pilot, lambda: board.board is not None and board.board.clock == "blitz",
                         what="the blitz leaderboard")
        assert text_of(board, "#leaderboard-clocks") == "[blitz]  normal  relaxed"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby again")
