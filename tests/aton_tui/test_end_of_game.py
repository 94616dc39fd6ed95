"""The end of a game against a person, through a real server: Enter starts nothing, and the
opponent's rematch offer is shown where the player looks, with the keys to answer it."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Label

from aton_tui.app import AtonApp
from aton_tui.screens.end import EndScreen
from protocol import messages as m

from ..server.players import Recorder
from .driving import ann_against_bob, game_screen, wait_until


async def bob_resigns(app: AtonApp, pilot: Pilot, bob: Recorder) -> None:
    await bob.send(m.Resign(game=bob.game))
    await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")


def note(app: AtonApp) -> str:
    label = app.screen.query_one("#rematch-note", Label)
    return str(label.render()) if label.display else ""


async def test_enter_on_the_end_screen_starts_no_rematch(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob_resigns(app, pilot, bob)
        await pilot.pause(0.2)  # Textual gives a new screen its focus after it is shown
        await pilot.press("enter", "tab", "enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, EndScreen)  # nothing was pressed
        await bob.send(m.Ping(id=99))  # everything ann sent before it has reached the server
        await bob.until(lambda f: f.reply_to == 99, kind=m.Pong)
        assert not [e for e in bob.events() if e["type"].startswith("rematch")]
        await pilot.press("r")  # the rematch has its own key
        await bob.until(lambda f: any(e["type"] == "rematch_offered" for e in f.events), kind=m.Update)


async def test_the_opponents_offer_shows_on_the_end_screen_and_d_declines_it(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob_resigns(app, pilot, bob)
        assert note(app) == ""
        await bob.send(m.Rematch(game=bob.game))
        await wait_until(pilot, lambda: "offers a rematch" in note(app), what="the offer on the end screen")
        assert "r accepts, d declines" in note(app)
        assert app.screen.query_one("#decline").display
        await pilot.press("d")
        await bob.until(lambda f: any(e["type"] == "rematch_declined" for e in f.events), kind=m.Update)
        await wait_until(pilot, lambda: "You declined" in note(app), what="the answer on the end screen")
        assert not app.screen.query_one("#decline").display


async def test_an_offer_made_while_the_player_looks_at_the_board_brings_the_end_screen_back(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob_resigns(app, pilot, bob)
        await pilot.press("escape")  # to the board
        await wait_until(pilot, lambda: app.screen is game_screen(app), what="the board")
        await bob.send(m.Rematch(game=bob.game))
        # the toast first: it is shown for 10 s, which a loaded machine could spend before the screen is back
        await wait_until(pilot, lambda: any("offers a rematch" in n.message for n in app._notifications),
                         what="the offer in a notification")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen) and "offers a rematch" in note(app),
                         what="the end screen again, with the offer")
        first_game, first_seat = bob.game, bob.seat
        await pilot.press("r")  # accepted: the rematch starts, colours swapped
        state = await bob.expect(m.GameState)
        assert state.game != first_game and state.seat != first_seat


async def test_against_a_person_help_does_not_stop_the_clock(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        await bob.send(m.Ping(id=98))  # everything ann sent before it has reached the server
        await bob.until(lambda f: f.reply_to == 98, kind=m.Pong)
        await pilot.press("escape")
        assert not [e for e in bob.events() if e["type"].startswith("clock_")]
        assert not any(n.severity == "error" for n in app._notifications)


async def test_an_offer_that_comes_while_the_player_is_in_the_lobby_is_shown_there(tmp_path):
    async with ann_against_bob(tmp_path) as (app, pilot, bob):
        await bob_resigns(app, pilot, bob)
        await pilot.press("l")  # to the lobby
        await wait_until(pilot, lambda: game_screen(app) is None, what="the lobby")
        await bob.send(m.Rematch(game=bob.game))
        await wait_until(pilot, lambda: any("offers a rematch" in n.message and "Ctrl+P" in n.message
                                            for n in app._notifications), what="the offer, in the lobby")
        assert app.check_action("decline_rematch", ()) is True
        await app.run_action("decline_rematch")
        await bob.until(lambda f: any(e["type"] == "rematch_declined" for e in f.events), kind=m.Update)
