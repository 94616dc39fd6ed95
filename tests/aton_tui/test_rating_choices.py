"""The dialogs that start a game and ratings (issue 15, point 2): a player with an account chooses
rated or casual, a guest is told that guests play casual games, and "Play a bot" writes each
level with its rating and chooses the one nearest the player's."""

from __future__ import annotations

import functools

import pytest

from aton_tui.rating_choices import GUEST_NOTE
from aton_tui.screens.dialogs import Choices
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.widgets.choice_row import ChoiceRow
from protocol import messages as m

from .driving import wait_until
from .scripted import FramesApp


def rating(value: int, provisional: bool = False, games: int = 0) -> dict:
    return {"rating": value, "provisional": provisional, "games": games}


#: the server's bots, as a 1.6 lobby tells them
BOTS = {level: {clock: rating(value, True) for clock in m.CLOCKS}
        for level, value in (("random", 700), ("easy", 1300), ("normal", 1500), ("hard", 1700))}


def lobby(ada: dict) -> m.Lobby:
    return m.Lobby(players=(ada,), tables=(), games=(), totals={"players": 1, "tables": 0, "games": 0}, bots=BOTS)


WITH_AN_ACCOUNT = {"name": "Ada", "kind": "human", "status": "lobby",
                   "ratings": {"blitz": rating(1500, True), "normal": rating(1500, True),
                               "relaxed": rating(1340, games=30)}}
A_GUEST = {"name": "Ada", "kind": "human", "status": "lobby"}


def app_for(ada: dict) -> FramesApp:
    app = FramesApp([lobby(ada)])
    app.recording.welcome = m.Welcome(  # type: ignore[assignment]
        server="aton-server", version=m.PROTOCOL_VERSION, session="s", resume="r" * 16, name="Ada", limits={})
    return app


def sent_count_is(app: FramesApp, count: int) -> bool:
    return len(app.recording.sent) == count


async def open_dialog(app: FramesApp, pilot, key: str) -> Choices:
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.lobby.player("Ada") is not None)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, Choices), what="the dialog")
    assert isinstance(app.screen, Choices)
    return app.screen


async def test_play_a_bot_chooses_the_bot_nearest_the_players_rating_and_a_rated_game():
    app = app_for(WITH_AN_ACCOUNT)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(app, pilot, "b")
        level = dialog.query_one("#choice-level", ChoiceRow)
        assert level.value == "easy"  # 1300 is nearest 1340
        assert level.shown == ("random 700?", "easy 1300?", "normal 1500?", "hard 1700?")
        assert dialog.note == "Your relaxed rating is 1340: the easy bot is about your strength."
        assert dialog.query_one("#choice-game", ChoiceRow).value == "rated"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.recording.sent), what="play_bot")
    assert app.recording.sent == [m.PlayBot(level="easy", clock="relaxed", seat=None, rated=True)]


async def test_a_player_with_an_account_may_ask_for_a_casual_table():
    app = app_for(WITH_AN_ACCOUNT)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(app, pilot, "n")
        dialog.query_one("#choice-game", ChoiceRow).action_step(1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.recording.sent), what="create_table")
    assert app.recording.sent == [m.CreateTable(clock="normal", private=False, rated=None)]


async def test_a_guest_is_told_that_guests_play_casual_games():
    app = app_for(A_GUEST)
    async with app.run_test(size=(80, 24)) as pilot:
        requests: tuple[tuple[str, m.Message], ...] = (("q", m.QuickMatch(clock="normal")),
                                                       ("b", m.PlayBot(level="normal", clock="relaxed")))
        for sent, (key, request) in enumerate(requests, start=1):
            dialog = await open_dialog(app, pilot, key)
            assert dialog.note == GUEST_NOTE and not dialog.query("#choice-game")
            await pilot.press("enter")
            await wait_until(pilot, functools.partial(sent_count_is, app, sent), what=request.TYPE)
            assert app.recording.sent[-1] == request
            assert all(getattr(sent, "rated", None) is None for sent in app.recording.sent)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_of_play_a_bot_with_ratings(snap_compare, size):
    """Each level with its rating, the one nearest the player's chosen and said why, rated or casual."""
    app = app_for(WITH_AN_ACCOUNT)

    async def run_before(pilot) -> None:
        await open_dialog(app, pilot, "b")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
