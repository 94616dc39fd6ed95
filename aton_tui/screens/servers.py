"""``aton connect`` with no address: the servers found on the LAN, and an address typed by hand.

The list fills as servers answer (``discovery.Finder``); nothing is connected to until the
player chooses one (Enter) or types an address. ``r`` forgets the list and asks the network
again. Where multicast is blocked the list stays empty and says so: the address works as
``aton connect HOST[:PORT]`` always did.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ..discovery import DiscoverySettings, DiscoveryUnavailable, LanServer
from ..widgets.fitted_footer import FittedFooter
from ..widgets.notice import Notice
from .client_screen import ClientScreen

HEADING = " ATON  ·  servers on your network"
LOOKING = "Looking for servers on your network…"
NOTHING_FOUND = ("No server answered on your network (some networks block the multicast that finding "
                 "them needs): type its address below.")


class ServerSource(Protocol):
    """Where the list comes from: ``discovery.Finder`` (a test's own list for snapshots)."""

    on_change: Callable[[], None]

    @property
    def servers(self) -> list[LanServer]: ...

    async def start(self) -> None: ...

    async def refresh(self) -> None: ...

    async def close(self) -> None: ...


def parse_address(text: str) -> tuple[str, int] | str:
    """(host, port) from 'HOST[:PORT]', or what is wrong with it (in the words of ``aton connect``)."""
    from ..cli import host_and_port  # the command line's own reading of an address

    try:
        return host_and_port(text.strip())
    except argparse.ArgumentTypeError as exc:
        return str(exc)


class ServersScreen(ClientScreen, Screen[tuple[str, int] | None]):
    """Dismissed with the (host, port) chosen, or None when the player leaves."""

    BINDINGS = [
        Binding("r", "refresh", "Look again", tooltip="forget the list and ask the network again"),
        Binding("tab", "app.focus_next", "Address", show=False, tooltip="between the list and the address"),
        Binding("escape", "leave", "Leave", tooltip="leave without connecting"),
    ]

    def __init__(self, source: ServerSource, settings: DiscoverySettings | None = None) -> None:
        super().__init__()
        self.source = source
        self.settings = settings or DiscoverySettings()
        self.looking = True
        self.unavailable = ""  # why nothing can be found here, if mDNS cannot start
        self.shown: list[LanServer] = []

    def compose(self) -> ComposeResult:
        yield Static(HEADING, id="top-bar", markup=False)
        yield Notice("", id="banner")
        yield Label(LOOKING, id="servers-status", markup=False)
        yield OptionList(id="servers")
        yield Label("Or type an address (HOST or HOST:PORT) and press Enter:", id="address-label", markup=False)
        yield Input(placeholder="e.g. 192.168.1.5:2866", id="address", max_length=300)
        yield FittedFooter()

    def on_mount(self) -> None:
        self.source.on_change = self._show
        self.query_one("#servers", OptionList).focus()
        self._look()

    async def on_unmount(self) -> None:
        await self.source.close()

    @work(exclusive=True, group="look")
    async def _look(self, again: bool = False) -> None:
        self.looking = True
        self._show()
        try:
            await (self.source.refresh() if again else self.source.start())
        except DiscoveryUnavailable as exc:
            self.unavailable = str(exc)
        if not self.unavailable:
            self.set_timer(self.settings.look_seconds, self._looked)
        else:
            self._looked()

    def _looked(self) -> None:
        self.looking = False
        self._show()

    def _show(self) -> None:
        """Draw the list and the line above it again (a server came or went, the look ended)."""
        if not self.is_attached:
            return
        servers = self.source.servers
        options = self.query_one("#servers", OptionList)
        if servers != self.shown:
            highlighted = options.highlighted
            self.shown = servers
            options.clear_options()
            options.add_options(Option(server.describe()) for server in servers)
            if servers:
                options.highlighted = min(highlighted or 0, len(servers) - 1)
        count = len(servers)
        if self.unavailable:
            status = f"{self.unavailable}: type its address below."
        elif count:
            found = f"{count} server{'s' if count > 1 else ''} on your network"
            status = f"{found}{' (still looking)' if self.looking else ''}: Enter connects, r looks again."
        else:
            status = LOOKING if self.looking else NOTHING_FOUND
        self.query_one("#servers-status", Label).update(status)

    def action_refresh(self) -> None:
        self.unavailable = ""
        self._look(again=True)

    def action_leave(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#servers")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.shown):
            server = self.shown[event.option_index]
            self.dismiss((server.address, server.port))

    @on(Input.Submitted, "#address")
    def _typed(self, event: Input.Submitted) -> None:
        address = parse_address(event.value)
        if isinstance(address, str):
            self.query_one("#banner", Notice).show(address)
        else:
            self.dismiss(address)
