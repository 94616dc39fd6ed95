"""The web gateway in a real browser (issue 16, point 1): headless Chromium opens the page, sees
the lobby, starts a game against the server's bot, plays cards by keys and by clicks, resigns by
a click, and takes a screenshot; a link from ``ssh HOST web-login`` (OpenSSH's client) signs it in
as the key's account, once.  The game server and its gateway run in the test's event loop;
the browser, whose calls block, in a thread."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys

from protocol import handoff
from server.kept_games import kept_games_in, player_directory
from server.ssh.identity import fingerprint

from ..ssh.terminal import key_file, openssh
from .browser import CHROMEDRIVER, CHROMIUM, Browser
from .conftest import WebStack, run, screenshot

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")

def hand_of(screen: str) -> list[str]:
    """The free cards of the hand, as the commit panel shows them ("Hand  1   2   3   4")."""
    line = next(line for line in screen.splitlines() if line.lstrip().startswith("Hand"))
    return re.findall(r"\b[1-4]\b", line.split("←")[0])


async def test_a_browser_sees_the_lobby_and_plays_a_game_against_a_bot_by_keys_and_clicks(
        web_stack: WebStack, browser: Browser, tmp_path: Path):
    await run(browser.open, web_stack.url + "/")
    await run(browser.wait_for, "lobby of this server")
    screen = await run(browser.wait_for, "~guest-")  # the lobby drawn before the server's snapshot came is empty
    assert "Open tables" in screen and "Players online" in screen
    await run(browser.type, "b")
    await run(browser.wait_for, "Strength")
    await run(browser.type, Keys.ENTER)
    screen = await run(browser.wait_for, "Put one card on each of your four cartouches")
    assert "(you)" in screen and "Bot (normal)" in screen
    [room] = web_stack.server.rooms.values()
    hand = hand_of(screen)
    await run(browser.type, hand[0])  # a card by its key: on cartouche 1
    screen = await run(browser.wait_until, lambda screen: len(hand_of(screen)) == 3, "the key placed no card")
    column, row = browser.where("Hand")
    first_free = screen.splitlines()[row].index(hand_of(screen)[0], column + len("Hand"))
    await run(browser.click, first_free, row)  # a card by a click: on cartouche 2
    screen = await run(browser.wait_until, lambda screen: len(hand_of(screen)) == 2, "the click placed no card")
    await run(browser.type, hand_of(screen)[0], Keys.ENTER)  # a third by its key; Enter seals all four
    screen = await run(browser.wait_for, "▶ Place", "is placing stones", "▶ Remove", "is removing stones")
    assert room.move_count >= 2  # both commitments opened: the cards played
    shot = screenshot(browser, tmp_path, "game")
    assert shot.read_bytes().startswith(b"\x89PNG")
    await run(browser.type, "R")  # resign, by a click on the dialog's button
    await run(browser.wait_for, "Resign this game?")
    column, row = browser.where("Resign (y)")
    await run(browser.click, column + 3, row)
    screen = await run(browser.wait_for, "resigned")
    assert room.game.is_over
    screenshot(browser, tmp_path, "end")


@pytest.mark.skipif(not shutil.which("ssh"), reason="needs OpenSSH's ssh (.ci/run installs it)")
async def test_ssh_web_login_signs_a_browser_in_as_the_keys_account_once(web_stack_factory, browser: Browser,
                                                                           tmp_path: Path):
    stack = await web_stack_factory(ssh=True)
    assert stack.ssh is not None
    key_path, key = key_file(tmp_path, "alice")
    status, out, err = await openssh(stack.ssh.port, key_path, "web-login")
    assert status == 0, err
    link = re.search(r"http://\S+\?code=[A-Z0-9-]+", out.decode())
    assert link is not None and "within 5 minutes" in out.decode()
    await run(browser.open, link.group(0))
    await run(browser.wait_for, "lobby of this server")
    screen = await run(browser.wait_for, "alice ")  # the lobby drawn before the server's snapshot came is empty
    assert "~" not in screen.split("Players online", 1)[1]  # the account, not a guest
    assert "?code=" not in browser.driver.current_url  # the page drops the code from its address
    account = stack.server.accounts.by_fingerprint(fingerprint(key))
    assert account is not None and account.name == "alice"
    session = next(iter(stack.gateway.sessions))
    assert session.identity is not None and session.identity.fingerprint == fingerprint(key)
    # the key's own directory for its unfinished games, beside the database (docs/hosting.md)
    assert session.service is not None and session.service.pid is not None
    environ = Path(f"/proc/{session.service.pid}/environ").read_bytes().decode()
    kept = kept_games_in(stack.server.data_dir)
    assert kept is not None
    assert f"{handoff.KEPT_GAMES_VARIABLE}={player_directory(kept, session.identity)}" in environ.split("\0")
    screenshot(browser, tmp_path, "signed-in")
    await run(browser.open, link.group(0))  # the same link again: spent
    screen = await run(browser.wait_for, "spent or has expired")
    await stack.settled()  # the signed-in page closed its WebSocket on leaving: its client has ended
