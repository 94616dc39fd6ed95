"""Text from the network (names, chat) is shown as it is, never read as markup.

A name such as ``[@click=app.resign]bob[/]`` would otherwise become a link in the opponent's client
that runs an action of the client when clicked, and ``[b]`` would restyle the screen.
"""

from __future__ import annotations

from textual.widgets import DataTable, Static

from aton_tui.app import AtonApp, Launch
from aton_tui.screens.lobby import LobbyScreen
from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from ..server.players import Recorder
from .conftest import quiet_settings
from .driving import game_screen_shown, model_of, wait_until
from .test_chat import log_text

CLICKABLE_NAME = "[@click=app.resign]bo[/]"  # 24 characters, a valid name
STYLED_CHAT = "[b]bold?[/b] [@click=app.quit]quit[/] [red"


def shown(static: Static) -> str:
    """The text a Static puts on the screen."""
    return str(static.render())


def squeezed(text: str) -> str:
    """Text without its white space (the log wraps long lines)."""
    return "".join(text.split())


def cell_texts(table: DataTable) -> list[str]:
    """The lines a table draws (its cells as rendered, not as stored)."""
    return ["".join(segment.text for segment in table.render_line(y)) for y in range(table.size.height)]


async def test_names_chat_and_server_messages_are_shown_literally_and_run_nothing(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "markup.db")))
    await srv.start()
    bob = None
    app = AtonApp(Launch(name="ann", port=srv.port, start="lobby", clock="relaxed"), quiet_settings())
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            bob = await Recorder.connect(srv.port, CLICKABLE_NAME, kind="human")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and any(
                CLICKABLE_NAME in text for text in cell_texts(app.screen.query_one("#players", DataTable))),
                             what="bob in ann's lobby, his name as he typed it")

            await bob.send(m.CreateTable(clock="relaxed"))
            await wait_until(pilot, lambda: bool(srv.lobby.tables), what="bob's table")
            await wait_until(pilot, lambda: any(CLICKABLE_NAME in text
                                                for text in cell_texts(app.screen.query_one("#tables", DataTable))),
                             what="bob's table in ann's lobby, under his literal name")
            await pilot.press("j")
            await bob.expect(m.GameState)
            await wait_until(pilot, lambda: game_screen_shown(app), what="the game screen")
            top_bar = app.screen.query_one("#top-bar", Static)
            assert CLICKABLE_NAME in shown(top_bar)

            await pilot.click(top_bar, offset=(shown(top_bar).index(CLICKABLE_NAME) + 2, 0))
            await pilot.pause(0.2)
            await bob.send(m.Chat(game=bob.game, text=STYLED_CHAT))
            await wait_until(pilot, lambda: squeezed(STYLED_CHAT) in squeezed(log_text(app)),
                             what="bob's chat line, literally")
            await bob.until(lambda f: any(e["type"] == "chat" for e in f.events), kind=m.Update)
            assert not model_of(app).is_over, "clicking the opponent's name must not resign"
            assert not any(isinstance(f, m.Update) and any(e["type"] in ("resigned", "game_over") for e in f.events)
                           for f in bob.frames)
    finally:
        if bob is not None:
            await bob.close()
        await srv.stop()


def test_every_text_widget_of_the_client_is_made_without_markup():
    """The client uses no markup at all, so no Static or Label of it reads its text as markup: a screen
    written later that shows a name cannot forget it."""
    import ast
    from pathlib import Path

    import aton_tui

    offenders = []
    for path in Path(aton_tui.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"Static", "Label"}
                    and not any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                                for k in node.keywords)):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []
