"""Finding games on the LAN without an address (issue 16, point 2): ``aton host`` advertises a
``_aton._tcp`` service, ``aton connect`` with no address lists what it finds and connects to the
one chosen; strangers' records that are malformed or implausible are ignored.

mDNS stays on the loopback interface here: every advertiser and finder is given
``127.0.0.1`` as its only interface, so that no packet leaves this machine. Other test runs on
the same machine may advertise there too: every test looks for the names it made up itself
(``unique``), never for "the only server".
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
from collections.abc import Callable

import pytest
from textual.widgets import Label, OptionList
from zeroconf import ServiceInfo
from zeroconf.asyncio import AsyncZeroconf

from aton_tui.app import AtonApp, Launch
from aton_tui.cli import build_parser
from aton_tui.discovery import (
    SERVICE_TYPE,
    Advertiser,
    DiscoverySettings,
    Finder,
    LanServer,
    lan_address_allowed,
    parse_service,
)
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.screens.servers import ServersScreen
from protocol.transport import Endpoint
from server.app import ArbiterServer
from server.config import ServerConfig

from .conftest import quiet_settings
from .driving import wait_until
from .test_connecting import closed_port
from .test_terminal import Tmux, aton_command

LOOPBACK = ["127.0.0.1"]


def unique(name: str) -> str:
    """A name no other test run on this machine advertises."""
    return f"{name}-{secrets.token_hex(3)}"


async def until(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """Wait until ``condition()``; ``timeout`` only bounds the wait."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.02)


def record(host: bytes | None = b"hana", clock: bytes = b"normal", table: bytes | None = b"3",
           address: str = "192.168.1.5", port: int = 2866, server: str = "hanas-laptop.local.",
           name: str = "hana on hanas-laptop") -> ServiceInfo:
    """A service record as the network may bring it, right or wrong in any field."""
    properties: dict[bytes, bytes | None] = {b"clock": clock}
    if host is not None:
        properties[b"host"] = host
    if table is not None:
        properties[b"table"] = table
    return ServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}", addresses=[ipaddress.ip_address(address).packed],
                       port=port, properties=properties, server=server)


def test_a_plausible_record_is_a_server_to_list():
    assert parse_service(record()) == LanServer(host="hana", machine="hanas-laptop", table=3, clock="normal",
                                                address="192.168.1.5", port=2866)
    assert parse_service(record(table=None)) == LanServer(host="hana", machine="hanas-laptop", table=None,
                                                          clock="normal", address="192.168.1.5", port=2866)


@pytest.mark.parametrize("wrong", [
    {"host": None}, {"host": b""}, {"host": b"h" * 250}, {"host": b"x" * 25}, {"host": b"\xff\xfe"},
    {"host": b"\x1b[2Jhana"}, {"host": b"ha\nna"}, {"clock": b"forever"}, {"clock": b""},
    {"table": b"-1"}, {"table": b"three"}, {"table": b"9" * 40}, {"port": 0},
    {"address": "8.8.8.8"}, {"address": "224.0.0.251"}, {"address": "0.0.0.0"}, {"address": "2001:4860::8888"},
    {"server": "x" * 70 + ".local."}, {"server": ".local."},
], ids=lambda wrong: ",".join(f"{k}={str(v)[:12]}" for k, v in wrong.items()))
def test_a_malformed_or_implausible_record_is_ignored(wrong):
    assert parse_service(record(**wrong)) is None


def test_only_private_lan_addresses_are_listed():
    for address in ("192.168.1.5", "10.0.0.7", "172.16.4.2", "169.254.3.3", "fd00::5", "127.0.0.1"):
        assert lan_address_allowed(address), address
    for address in ("8.8.8.8", "1.1.1.1", "2001:4860::8888", "224.0.0.251", "0.0.0.0", "::", "not an address"):
        assert not lan_address_allowed(address), address


async def test_a_hosted_server_is_found_and_gone_when_it_stops():
    host = unique("hana")
    advertiser = Advertiser(host, "blitz", "127.0.0.1", 40123, interfaces=LOOPBACK)
    await advertiser.start(table=7)
    finder = Finder(interfaces=LOOPBACK)
    await finder.start()
    try:
        await until(lambda: any(s.host == host for s in finder.servers), "the server to be found")
        [found] = [s for s in finder.servers if s.host == host]
        assert (found.table, found.clock, found.address, found.port) == (7, "blitz", "127.0.0.1", 40123)
        await advertiser.close()  # its goodbye is heard: it leaves the list at once
        await until(lambda: not any(s.host == host for s in finder.servers), "the server to be gone")
    finally:
        await advertiser.close()
        await finder.close()


async def test_hostile_records_on_the_network_are_not_listed_and_a_flood_fills_no_more_than_the_limit():
    tag = unique("x")
    good = [record(host=f"good{n}-{tag}".encode(), address="127.0.0.1", name=f"good{n} {tag}",
                   server=f"good{n}-{tag}.local.") for n in range(4)]
    hostile = [
        record(host=f"far-{tag}".encode(), address="8.8.8.8", name=f"far {tag}",  # not a LAN address
               server=f"far-{tag}.local."),
        record(host=b"h" * 250, address="127.0.0.1", name=f"huge {tag}", server=f"huge-{tag}.local."),
        record(host=f"clock-{tag}".encode(), clock=b"\x00" * 10, address="127.0.0.1", name=f"clock {tag}",
               server=f"clock-{tag}.local."),
        record(host=f"\x1b]0;pwned\x07{tag}".encode(), address="127.0.0.1", name=f"escape {tag}",
               server=f"escape-{tag}.local."),
    ]
    stranger = AsyncZeroconf(interfaces=LOOPBACK)
    for info in good + hostile:
        await stranger.async_register_service(info, allow_name_change=True)
    finder = Finder(DiscoverySettings(max_servers=3), interfaces=LOOPBACK)
    await finder.start()
    try:
        def ours() -> list[str]:
            return [s.host for s in finder.servers if tag in s.host]

        await until(lambda: len(finder.found) >= 3, "three servers")
        await asyncio.sleep(1.0)  # time for the rest to arrive, and be refused
        assert len(finder.found) == 3  # the limit, whoever else advertises on this machine
        assert all(host.startswith("good") for host in ours())
    finally:
        await finder.close()
        await stranger.async_close()


class FixedSource:
    """Servers as a finder would list them, without a network (for the screen's snapshots)."""

    def __init__(self, servers: list[LanServer]) -> None:
        self.servers = servers
        self.on_change: Callable[[], None] = lambda: None

    async def start(self) -> None:
        self.on_change()

    async def refresh(self) -> None:
        self.on_change()

    async def close(self) -> None:
        pass


FOUND = [
    LanServer(host="hana", machine="hanas-laptop", table=3, clock="normal", address="192.168.1.5", port=2866),
    LanServer(host="Kofi", machine="study-pc", table=None, clock="blitz", address="192.168.1.23", port=2866),
    LanServer(host="Zainab-the-patient", machine="a-machine-with-a-rather-long-name-on-this-network",
              table=12, clock="relaxed", address="10.0.0.7", port=40123),
]


class ServersApp(AtonApp):
    """``aton connect`` with no address, its list coming from ``source``."""

    def __init__(self, source: FixedSource) -> None:
        super().__init__(Launch(name="gus", discover=True), quiet_settings())
        self.source = source

    def lan_finder(self):
        return self.source


def servers_listed(count: int):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ServersScreen)
                         and len(pilot.app.screen.shown) == count, what="the list")
        pilot.app.screen._looked()  # the look is over (its timer, fired at once)
        await pilot.pause()
    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_of_the_servers_found(snap_compare, size):
    assert snap_compare(ServersApp(FixedSource(FOUND)), terminal_size=size, run_before=servers_listed(3))


def test_snapshot_when_nothing_answers(snap_compare):
    assert snap_compare(ServersApp(FixedSource([])), terminal_size=(80, 24), run_before=servers_listed(0))


async def test_connect_lists_the_advertised_server_and_connects_only_to_the_one_chosen(tmp_path):
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")))
    await server.start()
    host = unique("hana")
    advertiser = Advertiser(host, "normal", "127.0.0.1", server.port, interfaces=LOOPBACK)
    decoy = Advertiser(unique("aaa-decoy"), "normal", "127.0.0.1", closed_port(), interfaces=LOOPBACK)
    await asyncio.gather(advertiser.start(table=1), decoy.start(table=2))
    app = AtonApp(Launch(name="gus", discover=True, discover_via="127.0.0.1"), quiet_settings())
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen)
                             and any(s.host == host for s in app.screen.shown), what="the host in the list")
            screen = app.screen
            assert isinstance(screen, ServersScreen)
            assert not server.connections  # nothing is connected to before the player chooses
            for _ in range(len(screen.shown)):
                if screen.shown[screen.query_one("#servers", OptionList).highlighted or 0].host == host:
                    break
                await pilot.press("down")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.status.state == "connected", what="the connection")
            assert isinstance(app.screen, LobbyScreen)
            assert [conn.name for conn in server.connections] == ["gus"]
            assert app.launch.port == server.port
    finally:
        await advertiser.close()
        await decoy.close()
        await server.stop()


async def test_without_multicast_an_address_typed_by_hand_works_as_before(tmp_path):
    """No multicast here: mDNS is asked to use an interface this machine does not have (TEST-NET-1),
    so it cannot start, as on a network that blocks it; no packet is sent."""
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")))
    await server.start()
    app = AtonApp(Launch(name="gus", discover=True, discover_via="192.0.2.1"), quiet_settings())
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), what="the screen")
            status = app.screen.query_one("#servers-status", Label)
            await wait_until(pilot, lambda: "mDNS cannot start here" in str(status.render()), what="the reason")
            assert str(status.render()).endswith(": type its address below.")
            await pilot.press("tab")
            await pilot.press(*"127.0.0.1:99999", "enter")
            await pilot.pause()
            assert isinstance(app.screen, ServersScreen) and not server.connections
            banner = str(app.screen.query_one("#banner").render())
            assert banner == "99999 is not a port number: ports go from 1 to 65535", banner
            address = app.screen.query_one("#address")
            address.value = f"127.0.0.1:{server.port}"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.status.state == "connected", what="the connection")
            assert [conn.name for conn in server.connections] == ["gus"]
    finally:
        await server.stop()


async def test_escape_leaves_without_connecting():
    app = ServersApp(FixedSource(FOUND))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), what="the screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.is_running, what="aton to quit")
    assert app.session is None


async def test_two_aton_processes_find_each_other_without_an_address(tmp_path):
    """``aton host`` and ``aton connect`` as a player runs them, in two terminals (tmux), on loopback."""
    port = closed_port()
    hana = unique("hana")
    host = Tmux(aton_command(tmp_path / "host", f"host --bind 127.0.0.1 --port {port} --name {hana}"),
                width=120, height=40)
    guest = None
    try:
        host.wait_for("You host table")
        guest = Tmux(aton_command(tmp_path / "guest", "connect --via 127.0.0.1 --name gus"), width=120, height=40)
        screen = guest.wait_for(f"{hana} · table #1 · normal clock", timeout=20)
        listed = [line for line in screen.splitlines() if " clock · " in line]
        index = next(n for n, line in enumerate(listed) if hana in line)
        for _ in range(index):
            guest.keys("Down")
        guest.keys("Enter")
        screen = guest.wait_for(f"lobby of 127.0.0.1:{port}", timeout=20)
        # the host's open table, first in its lobby's list of tables (whatever the list's columns): Enter joins it
        guest.wait_for(f"1  {hana}", f"#1     {hana}", timeout=20)
        guest.keys("Enter")
        host.wait_for("Round 1")  # the game has started, on both screens
        guest.wait_for("Round 1")
    finally:
        if guest is not None:
            guest.kill()
        host.kill()


def test_aton_host_advertises_where_it_serves_and_connect_without_an_address_looks():
    assert Launch(name="hana", serve="127.0.0.1", start="table").lan_interfaces == ["127.0.0.1"]
    assert Launch(name="hana", serve="0.0.0.0", start="table").lan_interfaces is None  # every network
    args = build_parser().parse_args(["connect"])
    assert args.address is None and args.via is None
    assert build_parser().parse_args(["connect", "--via", "127.0.0.1"]).via == "127.0.0.1"
    assert build_parser().parse_args(["connect", "h:1"]).address == Endpoint("h", 1)
