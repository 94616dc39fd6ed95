"""The Account screen against a real server (issue 15, point 1): reached from the lobby (a) and
the palette, it shows the account's name and keys and this client's own key; r renames, k adds a
pasted key, d removes the selected one; a name another account owns is refused with a free
variant offered; the client keeps its key for the server in its data directory; w shows a link
that signs a web browser in as the account (issue 16)."""

from __future__ import annotations

import stat
from functools import partial

import pytest
from textual.events import Paste
from textual.widgets import DataTable, Input, Label

from aton_tui.app import AtonApp, Launch
from aton_tui.cli import build_app, build_parser
from aton_tui.screens.account import AccountScreen
from aton_tui.screens.dialogs import Confirm, Prompt
from aton_tui.screens.lobby import LobbyScreen
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.handoff import HOSTED_VARIABLE
from server.config import WebLimits
from server.web_logins import Grant, WebLogins

from .conftest import quiet_settings
from .driving import wait_until
from .test_layout import screen_text


def connected(app: AtonApp) -> bool:
    return app.status.state == "connected"


def label(app: AtonApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Label).render())


def key_rows(app: AtonApp) -> list[str]:
    table = app.screen.query_one("#account-keys", DataTable)
    return [str(table.get_row_at(row)[0]).strip("› ") for row in range(table.row_count)]


async def answer_prompt(pilot, text: str) -> None:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, Prompt), what="the prompt")
    pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")


async def test_the_account_screen_renames_adds_and_removes_keys(server, tmp_path):
    taken = await Client.connect("127.0.0.1", server.port, name="bob", proof=AccountKey.generate())
    app = AtonApp(Launch(name="ada", port=server.port), quiet_settings(), keys=tmp_path / "keys")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        own = next((tmp_path / "keys").iterdir())  # made on the first connection, private
        assert stat.S_IMODE(own.stat().st_mode) == 0o600
        key = AccountKey.load_or_create(own)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AccountScreen)
                         and "Name: ada" in label(app, "#account-name"), what="the account screen")
        await wait_until(pilot, lambda: key_rows(app) == [key.fingerprint], what="the key")
        assert key.public_line in label(app, "#own-key")
        await pilot.press("r")
        await answer_prompt(pilot, "BOB")
        await wait_until(pilot, lambda: any('"BOB-2" is free' in str(n.message) for n in app._notifications),
                         what="the refusal")
        await pilot.press("r")
        await answer_prompt(pilot, "Ada Lovelace")
        await wait_until(pilot, lambda: "Name: Ada Lovelace" in label(app, "#account-name"), what="the new name")
        account = server.accounts.by_fingerprint(key.fingerprint)
        assert account is not None and account.name == "Ada Lovelace"
        laptop = AccountKey.generate()
        await pilot.press("k")
        await answer_prompt(pilot, laptop.public_line + " ada@laptop")
        await wait_until(pilot, lambda: len(key_rows(app)) == 2, what="the second key")
        assert set(key_rows(app)) == {key.fingerprint, laptop.fingerprint}
        app.screen.query_one("#account-keys", DataTable).move_cursor(row=key_rows(app).index(laptop.fingerprint))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: key_rows(app) == [key.fingerprint], what="the key removed")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby again")
    await taken.close()


async def test_the_same_key_is_the_same_account_next_time(server, tmp_path):
    for asked in ("cleo", "someone else"):
        app = AtonApp(Launch(name=asked, port=server.port), quiet_settings(), keys=tmp_path / "keys")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, partial(connected, app))
            assert app.session is not None and app.session.welcome is not None
            assert app.session.welcome.name == "cleo" and not app.session.welcome.guest
    assert len(list((tmp_path / "keys").iterdir())) == 1


async def test_the_own_key_is_one_line_at_80_columns_c_copies_it_and_a_pasted_key_may_end_or_break_lines(
        server, tmp_path):
    app = AtonApp(Launch(name="ada", port=server.port), quiet_settings(), keys=tmp_path / "keys")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        key = AccountKey.load_or_create(next((tmp_path / "keys").iterdir()))
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AccountScreen) and key_rows(app) == [key.fingerprint],
                         what="the account screen")
        await wait_until(pilot, lambda: any(key.public_line in line for line in screen_text(app)),
                         what="this client's key, whole on one line of the screen")
        await pilot.press("c")
        assert app.clipboard == key.public_line

        laptop, phone = AccountKey.generate(), AccountKey.generate()
        for pasted in (f"{laptop.public_line} ada@laptop\n",  # as `cat id.pub` gives it: ending with a newline
                       phone.public_line.replace(" ", "\n", 1) + "\n"):  # wrapped where a narrow terminal wraps it
            await pilot.press("k")
            await wait_until(pilot, lambda: isinstance(app.screen, Prompt), what="the prompt")
            app.screen.query_one(Input).post_message(Paste(pasted))
            await pilot.pause()
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, AccountScreen), what="the account screen again")
        await wait_until(pilot, lambda: len(key_rows(app)) == 3, what="both pasted keys added")
        assert set(key_rows(app)) == {key.fingerprint, laptop.fingerprint, phone.fingerprint}
        assert not [n for n in app._notifications if "not" in str(n.message)]  # nothing refused


async def test_the_account_screen_shows_a_link_that_signs_a_browser_in_as_the_account(server, tmp_path):
    server.web_logins = WebLogins(WebLimits(), "http://aton.test:8080")
    app = AtonApp(Launch(name="ada", port=server.port), quiet_settings(), keys=tmp_path / "keys")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.status.state == "connected")
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AccountScreen)
                         and "Name: ada" in label(app, "#account-name"), what="the account screen")
        await pilot.press("w")
        await wait_until(pilot, lambda: "?code=" in label(app, "#web-login"), what="the link")
        text = label(app, "#web-login")
        assert "within 5 minutes" in text and "http://aton.test:8080/?code=" in text
        key = AccountKey.load_or_create(next((tmp_path / "keys").iterdir()))
        code = text.split("?code=", 1)[1].split()[0]
        assert server.web_logins.redeem(code, "192.0.2.1") == Grant(key.fingerprint, "ada")


@pytest.mark.parametrize("asked", [True, False], ids=["--name hana", "the login name, hana"])
async def test_a_name_asked_for_that_the_keys_account_does_not_have_is_explained(server, tmp_path, asked):
    """``aton --name hana`` with a key whose account is "tester" plays as tester: the key's account
    keeps its name. The player who named themselves is told why, and how to rename; one who did
    not name themselves (the login name, say) is not."""
    first = AtonApp(Launch(name="tester", port=server.port), quiet_settings(), keys=tmp_path / "keys")
    async with first.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: connected(first), what="the account made")
    app = AtonApp(Launch(name="hana", port=server.port, name_asked=asked), quiet_settings(), keys=tmp_path / "keys")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: connected(app) and app.session is not None
                         and app.session.welcome is not None, what="the welcome")
        await pilot.pause()
        assert app.session is not None and app.session.welcome is not None
        assert app.session.welcome.name == "tester"
        said = [str(n.message) for n in app._notifications]
        explained = ('You play as "tester", the name of your account on this server: --name names a new '
                     "account only. Rename yours in the lobby with a.")
        assert (explained in said) is asked, said


def test_only_a_name_given_on_the_command_line_is_asked_for():
    assert build_app(build_parser().parse_args(["--name", "hana"]), {}).launch.name_asked
    assert build_app(build_parser().parse_args(["connect", "example.org:2866", "--name", "hana"]), {}).launch.name_asked
    assert not build_app(build_parser().parse_args([]), {}).launch.name_asked
    hosted = build_parser().parse_args(["connect", "example.org:2866", "--name=hana"])
    assert not build_app(hosted, {HOSTED_VARIABLE: "1"}).launch.name_asked
