"""Connecting (issue 13, defect 13): an address that cannot be one is refused by the command,
an unreachable server is given up on with a retry key, and a port that is taken is said
without the top bar claiming that we host."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from aton_tui.app import AtonApp, Launch
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.session import CONNECT_ATTEMPTS
from aton_tui.widgets.fitted_footer import FittedFooter
from server.app import ArbiterServer
from server.config import ServerConfig

from .conftest import quiet_settings
from .driving import wait_until

ROOT = Path(__file__).resolve().parents[2]
#: Waits between attempts short enough for a test; the attempts are counted, not timed.
QUICK_RETRIES = (0.01,)


@pytest.mark.parametrize("arguments, complaint", [
    (["connect", "127.0.0.1:99999"], "99999 is not a port number: ports go from 1 to 65535"),
    (["connect", "127.0.0.1:0"], "0 is not a port number: ports go from 1 to 65535"),
    (["connect", "example.org:http"], "'http' is not a port number (1–65535)"),
    (["connect", ":2866"], "no host in ':2866'"),
    (["host", "--port", "70000"], "70000 is not a port number"),
    (["host", "--bind", "my.laptop"], "'my.laptop' is not an IP address"),
])
def test_an_address_that_cannot_be_one_is_refused_before_anything_starts(arguments, complaint):
    done = subprocess.run([sys.executable, "-m", "aton_tui", *arguments], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert complaint in done.stderr


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: the lobby's keys that ask the server for something: dimmed while the client is not connected
SERVER_KEYS = ("Bot", "Quick match", "New table", "Invite", "Account")


def footer_states(app: AtonApp) -> dict[str, bool]:
    """The footer's keys, each on or off."""
    return {key.description: key.enabled for key in app.screen.query_one(FittedFooter).keys or ()}


def banner_of(app: AtonApp) -> str:
    return str(app.screen.query_one("#banner", Static).render())


async def test_an_unreachable_server_is_given_up_on_and_r_tries_again(tmp_path):
    port = closed_port()
    app = AtonApp(Launch(name="ada", port=port), quiet_settings(), retry_delays=QUICK_RETRIES)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.status.state == "failed", what="the client to give up")
        assert app.status.retry and app.status.attempt == CONNECT_ATTEMPTS
        await wait_until(pilot, lambda: all(w.is_finished for w in app.workers if w.name == "session"),
                         what="the connection to stop trying")
        banner = banner_of(app)
        assert f"Gave up after {CONNECT_ATTEMPTS} attempts: cannot reach 127.0.0.1:{port}: Connection refused" in banner
        assert "r tries again, Ctrl+Q quits" in banner
        for key in SERVER_KEYS:  # shown, dimmed: nothing the server would start
            assert footer_states(app)[key] is False, key

        server = ArbiterServer(ServerConfig(host="127.0.0.1", port=port, db_path=str(tmp_path / "aton.db")))
        await server.start()  # the server is up now: r reaches it
        try:
            await pilot.press("r")
            await wait_until(pilot, lambda: app.status.state == "connected", what="the retry to connect")
            await wait_until(pilot, lambda: len(app.lobby.players) == 1, what="the lobby")
            assert banner_of(app) == ""
            await wait_until(pilot, lambda: all(footer_states(app).get(key) for key in SERVER_KEYS),
                             what="the keys that start a game to come on")
            await app.action_quit()
        finally:
            await server.stop()


async def test_a_taken_port_is_said_and_the_top_bar_does_not_claim_to_host(tmp_path):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        launch = Launch(name="hana", port=port, serve="127.0.0.1", start="table", lan_address="127.0.0.1",
                        db_path=str(tmp_path / "aton.db"))
        app = AtonApp(launch, quiet_settings())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.status.state == "failed", what="the server to fail to start")
            assert isinstance(app.screen, LobbyScreen)
            top = str(app.screen.query_one("#top-bar", Static).render())
            assert "not hosting: cannot serve on port" in top and "lobby of this machine" not in top
            assert f"cannot serve on port {port}: Address already in use" in banner_of(app)
            assert app.local is not None and not app.local.server.rooms  # nothing left running behind it
            await app.action_quit()


async def test_a_client_told_to_wait_connects_only_once_told(tmp_path):
    """An app host has its drawn apps wait for the first frames of those that came after them
    (``AtonApp.connect_after``, ``aton_tui.start_turns``) before they connect."""
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")))
    await server.start()
    go = asyncio.Event()
    app = AtonApp(Launch(name="ada", port=server.port), quiet_settings())
    app.connect_after = go.wait
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen) and app.session is None and not server.connections
            go.set()
            await wait_until(pilot, lambda: app.status.state == "connected", what="the client to connect")
            await app.action_quit()
    finally:
        await server.stop()
