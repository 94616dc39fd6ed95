"""Chat at the table: t opens a line to the opponent; both logs show what was said."""

from __future__ import annotations

from aton_tui.app import AtonApp
from aton_tui.screens.dialogs import Prompt
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m

from .driving import ann_against_bob, game_screen_shown, screen_of, wait_until


def log_text(app: AtonApp) -> str:
    log = screen_of(app).query_one(GameLog)
    return "\n".join("".join(segment.text for segment in line) for line in log.lines)


async def test_t_says_a_line_to_a_human_opponent_and_both_logs_show_the_chat(tmp_path):
    async with ann_against_bob(tmp_path, size=(120, 40)) as (app, pilot, bob):
        assert app.screen.check_action("chat", ()) is True
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="the chat prompt")
        await pilot.press("g", "l", "space", "h", "f", "enter")
        update = await bob.until(lambda f: any(e["type"] == "chat" for e in f.events), kind=m.Update)
        chat = next(e for e in update.events if e["type"] == "chat")
        assert (chat["name"], chat["text"]) == ("ann", "gl hf")
        await bob.send(m.Chat(game=bob.game, text="you too"))
        await wait_until(pilot, lambda: "bob: you too" in log_text(app), what="bob's line in ann's log")
        assert "ann: gl hf" in log_text(app)


async def test_there_is_no_chat_with_a_bot(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: game_screen_shown(app), what="the game screen")
        assert app.screen.check_action("chat", ()) is False
        await pilot.press("t")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, Prompt)
