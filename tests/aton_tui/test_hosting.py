"""``aton host`` (issue 13, defect 5): quitting asks first when others are connected, they are
told plainly that the host closed the server, and ``--bind`` serves this machine only."""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from aton_tui.app import AtonApp, Launch, table_notice
from aton_tui.screens.dialogs import Confirm
from aton_tui.session import RECONNECT_ATTEMPTS
from aton_tui.widgets.notice import Notice
from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from ..server.players import Recorder
from .conftest import quiet_settings
from .driving import game_screen, wait_until
from .test_connecting import QUICK_RETRIES, banner_of, closed_port
from .test_terminal import Tmux

ROOT = Path(__file__).resolve().parents[2]
#: What ``bye`` tells the others when hana, who hosts, quits.
HANA_CLOSED = "hana, who hosted this server, quit Aton and closed it"


def host_app(tmp_path: Path) -> AtonApp:
    """``aton host --bind 127.0.0.1 --name hana`` (loopback only, as every test is)."""
    launch = Launch(name="hana", serve="127.0.0.1", start="table", clock="relaxed", lan_address="127.0.0.1",
                    db_path=str(tmp_path / "aton.db"))
    return AtonApp(launch, quiet_settings())


@pytest.mark.parametrize(("size", "form"), [((80, 24), "text"), ((60, 18), "short")])
async def test_the_notice_of_a_hosted_table_shows_each_line_unbroken(tmp_path, size, form):
    """How the other player reaches a hosted table, on this machine only or on the LAN (the
    longest IPv4 address and port), in as many lines on the screen as the text has: the whole
    notice in an 80-column lobby, its short form at the smallest size, where the whole would wrap."""
    app = host_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: "You host table" in app.lobby_notice.text, what="the table")
        notice = app.screen.query_one("#notice", Notice)
        for launch in (app.launch, on_the_lan(app.launch)):
            said = table_notice(launch, m.TableCreated(table=99999, clock="relaxed", private=False))
            notice.show(said)
            await pilot.pause()
            shown = getattr(said, form)
            assert notice.content_size.height == len(shown.splitlines()), shown
        assert "aton connect 255.255.255.255:65535" in shown


def on_the_lan(launch: Launch) -> Launch:
    """``launch`` serving the LAN at the longest IPv4 address and port."""
    return dataclasses.replace(launch, serve="0.0.0.0", lan_address="255.255.255.255", port=65535)


async def test_at_the_smallest_size_the_hosted_table_shows_in_its_list_below_the_short_notice(tmp_path):
    app = host_app(tmp_path)
    async with app.run_test(size=(60, 18)) as pilot:
        await wait_until(pilot, lambda: "You host table" in app.lobby_notice.text, what="the table")
        tables = app.screen.query_one("#tables", DataTable)
        await wait_until(pilot, lambda: tables.row_count == 1, what="the table in its list")
        notice = app.screen.query_one("#notice", Notice)
        assert notice.content_size.height == 3
        assert tables.size.height >= tables.header_height + 1, "the table's row shows"
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert notice.content_size.height == len(app.lobby_notice.text.splitlines()), "the whole notice again"


async def test_quitting_with_a_guest_at_the_table_asks_first_and_tells_the_guest_why(tmp_path):
    app = host_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "You host table" in app.lobby_notice.text, what="the table")
        assert app.local is not None
        guest = await Recorder.connect(app.local.port, "gus", kind="human", lobby=False)
        await guest.send(m.JoinTable(table=next(iter(app.local.server.lobby.tables))))
        await guest.expect(m.GameState)
        await wait_until(pilot, lambda: game_screen(app) is not None, what="the game")

        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), what="the question")
        question = " ".join(" ".join(str(w.render()) for w in app.screen.query(Static)).split())
        assert "Quit and close your server? Connected to it: gus. They will be told that you closed it." in question
        await pilot.press("n")  # stay: the game goes on
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, Confirm)
        await guest.send(m.Chat(game=guest.game, text="still there?"))
        await guest.expect(m.Ack)

        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm), what="the question again")
        await pilot.press("y")
        bye = await guest.expect(m.Bye)
        assert (bye.code, bye.reason) == ("shutdown", HANA_CLOSED)
    await guest.close()


async def test_quitting_alone_asks_nothing(tmp_path):
    app = host_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "You host table" in app.lobby_notice.text, what="the table")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, what="aton to quit")


async def test_the_guest_is_told_that_the_host_closed_the_server(tmp_path):
    port = closed_port()
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=port, db_path=str(tmp_path / "aton.db")))
    await server.start()
    app = AtonApp(Launch(name="gus", port=port), quiet_settings(), retry_delays=QUICK_RETRIES)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.status.state == "connected", what="the lobby")
        shown: list[str] = []  # every banner, however briefly it shows
        show = app._banner

        def recording_banner(text: str) -> None:
            shown.append(text)
            show(text)

        app._banner = recording_banner  # type: ignore[method-assign]
        await server.stop(HANA_CLOSED)
        await wait_until(pilot, lambda: app.status.state == "failed", what="the client to give up")
        assert shown[0] == f"✕ The server closed: {HANA_CLOSED}.  Reconnecting (attempt 1)…  the connection broke"
        banner = banner_of(app)
        assert banner.startswith(f"✕ The server closed: {HANA_CLOSED}.")
        assert f"Gave up after {RECONNECT_ATTEMPTS} attempts" in banner and "r tries again" in banner


def listening_addresses(port: int) -> set[str]:
    """The IPv4 addresses on which something listens on ``port`` (from /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, _, hex_port = local.partition(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            found.add(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return found


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
async def test_aton_host_bind_serves_this_machine_only_and_says_how_to_reach_it(tmp_path):
    port = closed_port()
    environment = f"HOME={tmp_path} XDG_DATA_HOME={tmp_path / 'data'} XDG_CONFIG_HOME={tmp_path / 'config'}"
    command = (f"cd {shlex.quote(str(ROOT))} && env {environment} TERM=xterm-256color {shlex.quote(sys.executable)} "
               f"-m aton_tui host --bind 127.0.0.1 --port {port} --name hana")
    terminal = Tmux(command, width=120, height=40)
    try:
        screen = terminal.wait_for("You host table")
        assert f"lobby of this machine (127.0.0.1:{port}, this machine only)" in screen
        assert "only this machine reaches it" in screen and f"ssh -L {port}:127.0.0.1:{port}" in screen
        assert listening_addresses(port) == {"127.0.0.1"}
        guest = await Recorder.connect(port, "gus", kind="human", lobby=False)
        terminal.keys("C-q")
        screen = terminal.wait_for("Quit and close your server?")
        assert "Connected to it: gus" in screen
        terminal.keys("y")
        bye = await guest.expect(m.Bye)
        assert bye.reason == HANA_CLOSED
        await guest.close()
        deadline = time.monotonic() + 10
        while terminal.alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert not terminal.alive(), "aton host did not quit"
    finally:
        terminal.kill()
