"""Muting and reporting from the game screen (issue 15, point 5): the palette's commands, on a
real server, with the notices that confirm them."""

from __future__ import annotations

import json

from aton_tui.app import AtonApp
from aton_tui.screens.dialogs import Prompt
from aton_tui.screens.game import GameScreen
from aton_tui.widgets.players import PlayersPanel
from protocol import messages as m
from server.admin import run_admin
from server.cli import build_parser

from .driving import ann_against_bob, wait_until
from .test_chat import log_text
from .test_keys_and_help import help_text
from .test_layout import screen_text


async def palette(pilot, command: str) -> None:
    """Run a command of the palette (Ctrl+P) by its title."""
    await pilot.press("ctrl+p", *command)
    await pilot.pause(0.3)
    await pilot.press("enter")


def notices(app: AtonApp) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def bobs_row(app: AtonApp) -> str:
    panel = app.screen.query_one(PlayersPanel)
    return next(row.name + (" (muted)" if row.chat_muted else "") for row in panel.rows if not row.you)


async def test_the_palette_mutes_the_opponents_chat_for_us_and_unmutes_it(tmp_path):
    async with ann_against_bob(tmp_path, size=(120, 40)) as (app, pilot, bob):
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.check_action("unmute_opponent", ()) is False
        await palette(pilot, "Mute the opponent's chat")
        await wait_until(pilot, lambda: app.muted == {"bob"}, what="the server's word that bob is muted")
        await wait_until(pilot, lambda: "bob's chat lines are hidden from you now" in notices(app), what="a notice")
        assert screen.check_action("mute_opponent", ()) is False and screen.check_action("unmute_opponent", ())
        await wait_until(pilot, lambda: bobs_row(app) == "bob (muted)", what="bob's row marked")

        await bob.send(m.Chat(game=bob.game, text="you will lose"))
        said = await bob.until(lambda u: any(e["type"] == "chat" for e in u.events), kind=m.Update)
        await wait_until(pilot, lambda: app.model is not None and app.model.version >= said.version,
                         what="ann's client at the version of bob's line")
        assert "you will lose" not in log_text(app)

        await palette(pilot, "Unmute the opponent's chat")
        await wait_until(pilot, lambda: not app.muted and "You see bob's chat lines again." in notices(app),
                         what="the server's word that bob is heard again")
        await bob.send(m.Chat(game=bob.game, text="gg"))
        await wait_until(pilot, lambda: "bob: gg" in log_text(app), what="bob's next line in ann's log")
        assert bobs_row(app) == "bob"


async def test_m_mutes_the_opponent_and_m_again_unmutes_and_the_footer_and_help_say_so(tmp_path):
    async with ann_against_bob(tmp_path, size=(120, 40)) as (app, pilot, _bob):
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await wait_until(pilot, lambda: "M Mute" in screen_text(app)[-1], what="the key in the footer")
        await pilot.press("M")
        await wait_until(pilot, lambda: app.muted == {"bob"}, what="the server's word that bob is muted")
        await wait_until(pilot, lambda: "M (Shift+m) shows them again" in notices(app), what="the notice")
        await wait_until(pilot, lambda: bobs_row(app) == "bob (muted)", what="bob's row marked")
        await pilot.press("M")
        await wait_until(pilot, lambda: not app.muted and "You see bob's chat lines again." in notices(app),
                         what="the server's word that bob is heard again")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: "| `Shift+m` | hide your opponent's chat lines" in help_text(app),
                         what="the key in the help")


async def test_the_palette_reports_the_opponent_with_a_reason(tmp_path):
    async with ann_against_bob(tmp_path, size=(80, 24)) as (app, pilot, bob):
        await palette(pilot, "Report the opponent")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="the question why")
        await pilot.press(*"insults in chat", "enter")
        await wait_until(pilot, lambda: "Your report of bob is with the server's operator" in notices(app),
                         what="the notice that the report is stored")
        printed: list[str] = []  # (the app under test holds standard output)
        args = build_parser().parse_args(["admin", "reports", "--json", "--db", str(tmp_path / "ann_and_bob.db")])
        assert run_admin(args, out=printed.append) == 0
        (report,) = json.loads(printed[0])
        assert (report["reporter"], report["reported"], report["game"], report["reason"]) == \
            ("ann", "bob", bob.game, "insults in chat")
