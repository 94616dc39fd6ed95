"""The Textual client checks each game's decks when the server reveals its deal (issue 15,
point 6): "Decks verified" in the game's log; a mismatch also as an error notification."""

from __future__ import annotations

from aton_tui.app import AtonApp, Frame
from aton_tui.screens.end import EndScreen
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from protocol.fairness import MISMATCH, Verdict

from .driving import game_screen, game_screen_shown, wait_until


def log_lines(app: AtonApp) -> list[str]:
    screen = game_screen(app)
    return [] if screen is None else [line for _, line in screen.query_one(GameLog).story]


async def test_a_game_against_the_bot_is_checked_and_says_decks_verified(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(app), what="the game")
        assert app.model is not None
        await app.send(m.Resign(game=app.model.game))
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await wait_until(pilot, lambda: any(line.startswith("Decks verified: ") for line in log_lines(app)),
                         what="the check of the decks in the log")
        assert not any(n.severity == "error" for n in app._notifications)


async def test_decks_that_do_not_match_are_said_loudly(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(app), what="the game")
        assert app.model is not None
        text = f"{MISMATCH}: the cards this client was dealt or shown are not the ones that seed deals."
        app.post_message(Frame(Verdict(app.model.game, False, text)))
        await wait_until(pilot, lambda: text in log_lines(app), what="the mismatch in the log")
        assert any(n.severity == "error" and n.message == text for n in app._notifications)
