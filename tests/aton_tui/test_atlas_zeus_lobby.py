"""The lobby and Atlas & Zeus: a table or a game of it is tagged, and the dialogs that start a game
choose the game (casual: Atlas & Zeus is never rated)."""

from __future__ import annotations

from textual.widgets import DataTable

from aton_tui.cli import build_parser
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.widgets.choice_row import ChoiceRow
from protocol import messages as m

from .driving import wait_until
from .test_rating_choices import WITH_AN_ACCOUNT, app_for, open_dialog


async def test_play_a_bot_of_atlas_zeus_from_the_lobby_dialog_is_casual():
    app = app_for(WITH_AN_ACCOUNT)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(app, pilot, "b")
        play = dialog.query_one("#choice-play", ChoiceRow)
        assert (play.value, play.shown) == ("aton", ("Aton", "Atlas & Zeus"))
        play.action_step(1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.recording.sent), what="play_bot")
    sent = app.recording.sent[0]
    assert isinstance(sent, m.PlayBot) and sent.game == "atlas-zeus" and sent.rated is None


async def test_a_table_and_a_quick_match_of_atlas_zeus():
    app = app_for(WITH_AN_ACCOUNT)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("n", "q"):
            dialog = await open_dialog(app, pilot, key)
            dialog.query_one("#choice-play", ChoiceRow).action_step(1)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")
        await wait_until(pilot, lambda: len(app.recording.sent) == 2, what="both requests")
    table, match = app.recording.sent
    assert isinstance(table, m.CreateTable) and table.game == "atlas-zeus" and table.rated is None
    assert isinstance(match, m.QuickMatch) and match.game == "atlas-zeus"


async def test_the_lobby_tags_a_table_and_a_game_of_atlas_zeus():
    lobby = m.Lobby(players=({"name": "Ada", "kind": "human", "status": "lobby"},),
                    tables=({"table": 3, "host": "Bea", "clock": "normal", "private": False, "since": 0,
                             "kind": "atlas-zeus"},),
                    games=({"game": 8, "red": "Cy", "blue": "Dee", "clock": "blitz", "spectators": 0, "round": 2,
                            "scores": {}, "kind": "atlas-zeus"},))
    app = app_for(WITH_AN_ACCOUNT)
    app.frames = [lobby]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.lobby.tables) and bool(app.lobby.games), what="the lobby")
        await pilot.pause()
        tables = app.screen.query_one("#tables", DataTable)
        games = app.screen.query_one("#games", DataTable)
        assert "A&Z normal" in [str(cell) for cell in tables.get_row_at(0)]
        assert any("A&Z blitz" in str(cell) for cell in games.get_row_at(0))


def test_aton_takes_the_game_to_play_against_the_bot_or_to_host():
    """``aton --game atlas-zeus`` and ``aton host --game atlas-zeus`` (the whole games above start
    from the same ``Launch.game``); Aton when not said."""
    parser = build_parser()
    assert parser.parse_args(["--game", "atlas-zeus"]).game == "atlas-zeus"
    assert parser.parse_args(["host", "--game", "atlas-zeus"]).game == "atlas-zeus"
    assert parser.parse_args([]).game == "aton" and parser.parse_args(["host"]).game == "aton"
