"""Chat at the table: t opens a line to the opponent; both logs show what was said."""

from __future__ import annotations

from aton_tui.app import AtonApp, Launch
from aton_tui.screens.dialogs import Prompt
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from ..server.players import Recorder
from .conftest import quiet_settings
from .driving import game_screen, screen_of, wait_until


def log_text(app: AtonApp) -> str:
    log = screen_of(app).query_one(GameLog)
    return "\n".join("".join(segment.text for segment in line) for line in log.lines)


async def test_t_says_a_line_to_a_human_opponent_and_both_logs_show_the_chat(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "chat.db")))
    await srv.start()
    bob = None
    app = AtonApp(Launch(name="ann", port=srv.port, start="table", clock="relaxed"), quiet_settings())
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: bool(srv.lobby.tables), what="ann's table")
            bob = await Recorder.connect(srv.port, "bob", kind="human", lobby=False)
            await bob.send(m.JoinTable(table=next(iter(srv.lobby.tables))))
            await bob.expect(m.GameState)
            await wait_until(pilot, lambda: game_screen(app) is not None and app.screen is game_screen(app),
                             what="the game screen")
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
    finally:
        if bob is not None:
            await bob.close()
        await srv.stop()


async def test_there_is_no_chat_with_a_bot(embedded_app):
    app = embedded_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: game_screen(app) is not None and app.screen is game_screen(app),
                         what="the game screen")
        assert app.screen.check_action("chat", ()) is False
        await pilot.press("t")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, Prompt)
