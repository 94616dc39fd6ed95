"""Finding games on the local network without an address: mDNS/DNS-SD (python-zeroconf).

``aton host`` advertises its server as a ``_aton._tcp`` service (``Advertiser``): the host's
name, its table and the table's clock in the TXT record, its LAN address and port.
``aton connect`` with no address looks for them (``Finder``) and lists what it found; it
connects only to the one the player chooses.

Whatever the network says is a stranger's word: a record is listed only if it is whole and
plausible (``parse_service``: names and texts of bounded length, a clock this client knows,
a port, a private LAN address), anything else is ignored, and at most
``DiscoverySettings.max_servers`` are kept. Where multicast is blocked nothing is found (or
zeroconf cannot start at all: ``DiscoveryUnavailable``), and an address typed by hand works as
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zeroconf import BadTypeInNameException, IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from protocol.messages import CLOCKS, PROTOCOL_VERSION

SERVICE_TYPE = "_aton._tcp.local."
#: The longest a shown text may be (the host's name, its machine's name): a name at a table
#: has at most 24 characters; a machine's, a DNS label's 63.
NAME_CHARS = 24
HOST_CHARS = 63


@dataclass(frozen=True)
class DiscoverySettings:
    """How ``aton connect`` looks for servers on the LAN."""

    #: The list is complete enough after this long (the screen says "looking" until then);
    #: servers that answer later are still added.
    look_seconds: float = 2.0
    resolve_seconds: float = 1.5  # time for one service's address and TXT record
    max_servers: int = 50  # at most this many are listed: a flood of records fills no more


class DiscoveryUnavailable(Exception):
    """mDNS cannot start here (no multicast, no network interface): type an address instead."""


@dataclass(frozen=True)
class LanServer:
    """A server that advertised itself on the LAN: what the list shows, and where it is."""

    host: str  # the host's name at the table
    machine: str  # the machine's name
    table: int | None  # its open table, if it said one
    clock: str
    address: str
    port: int

    @property
    def target(self) -> str:
        """Where ``aton connect`` goes: ``HOST:PORT`` (IPv6 in brackets)."""
        return f"[{self.address}]:{self.port}" if ":" in self.address else f"{self.address}:{self.port}"

    def describe(self) -> str:
        table = f"table #{self.table}" if self.table is not None else "no open table"
        return f"{self.host} · {table} · {self.clock} clock · {self.machine} ({self.target})"


def lan_address_allowed(text: str) -> bool:
    """A private LAN address (RFC 1918, link-local, IPv6 unique-local; loopback for a server on
    this machine): never a public address a stranger's record could point a client at."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return address.is_private and not (address.is_multicast or address.is_unspecified or address.is_reserved)


def _text(properties: dict, key: bytes, limit: int) -> str | None:
    """The TXT value of ``key`` as printable text of at most ``limit`` characters, else None."""
    raw = properties.get(key)
    if not isinstance(raw, bytes) or not raw or len(raw) > 4 * limit:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if len(text) <= limit and text.isprintable() else None


def parse_service(info: ServiceInfo) -> LanServer | None:
    """The server ``info`` describes, or None if anything in it is missing, malformed or implausible."""
    properties = info.properties or {}
    host = _text(properties, b"host", NAME_CHARS)
    clock = _text(properties, b"clock", 16)
    machine = (info.server or "").removesuffix(".local.").removesuffix(".")
    if host is None or clock not in CLOCKS or not machine or len(machine) > HOST_CHARS or not machine.isprintable():
        return None
    table_text = _text(properties, b"table", 9) if b"table" in properties else ""
    if table_text is None or (table_text and not (table_text.isascii() and table_text.isdigit())):
        return None  # a table it says, but not a table number
    port = info.port
    if not isinstance(port, int) or not 1 <= port <= 65535:
        return None
    addresses = [a for a in info.parsed_addresses() if lan_address_allowed(a)]
    if not addresses:
        return None
    return LanServer(host=host, machine=machine, table=int(table_text) if table_text else None,
                     clock=clock, address=addresses[0], port=port)


def _zeroconf(interfaces: Sequence[str] | None) -> AsyncZeroconf:
    """mDNS on ``interfaces`` (addresses; None: every interface of this machine)."""
    try:
        if interfaces is None:
            return AsyncZeroconf(ip_version=IPVersion.V4Only)
        v4 = all(ipaddress.ip_address(address).version == 4 for address in interfaces)
        return AsyncZeroconf(interfaces=list(interfaces), ip_version=IPVersion.V4Only if v4 else IPVersion.All)
    except (OSError, ValueError) as exc:
        raise DiscoveryUnavailable(f"mDNS cannot start here: {getattr(exc, 'strerror', None) or exc}") from exc


def instance_name(host: str, machine: str) -> str:
    """The service's instance name, unique on the LAN in practice: the host and the machine."""
    label = f"{host} on {machine}"[:63]  # a DNS label
    return f"{label}.{SERVICE_TYPE}"


class Advertiser:
    """``aton host``'s service on the LAN, from ``start`` until ``close``."""

    def __init__(self, host: str, clock: str, address: str, port: int,
                 interfaces: Sequence[str] | None = None) -> None:
        """``address``: where the other player reaches the server (the screen says the same);
        ``interfaces``: where to advertise (None: every interface)."""
        self.host, self.clock, self.address, self.port = host, clock, address, port
        self.interfaces = interfaces
        self.machine = socket.gethostname().split(".")[0][:HOST_CHARS] or "aton"
        self._zc: AsyncZeroconf | None = None
        self._info: ServiceInfo | None = None

    def _service(self, table: int | None) -> ServiceInfo:
        properties = {"host": self.host, "clock": self.clock, "version": PROTOCOL_VERSION}
        if table is not None:
            properties["table"] = str(table)
        return ServiceInfo(SERVICE_TYPE, instance_name(self.host, self.machine),
                           addresses=[ipaddress.ip_address(self.address).packed], port=self.port,
                           properties=properties, server=f"{self.machine}.local.")

    async def start(self, table: int | None) -> None:
        """Advertise the server, with ``table`` (its open table); DiscoveryUnavailable if mDNS cannot start."""
        self._zc = _zeroconf(self.interfaces)
        self._info = self._service(table)
        try:
            await (await self._zc.async_register_service(self._info, allow_name_change=True))  # its announcements sent
        except (OSError, BadTypeInNameException) as exc:
            await self.close()
            raise DiscoveryUnavailable(f"cannot advertise the server: {exc}") from exc

    async def close(self) -> None:
        """Withdraw the service (a goodbye the others hear) and stop."""
        zc, self._zc = self._zc, None
        if zc is not None:
            with contextlib.suppress(OSError, RuntimeError):
                if self._info is not None:
                    await (await zc.async_unregister_service(self._info))  # the goodbye sent
            await zc.async_close()


class Finder:
    """The servers advertised on the LAN, as they come and go, from ``start`` until ``close``.

    ``on_change`` is called (on the event loop) whenever the list changes."""

    def __init__(self, settings: DiscoverySettings | None = None, interfaces: Sequence[str] | None = None,
                 on_change: Callable[[], None] = lambda: None) -> None:
        self.settings = settings or DiscoverySettings()
        self.interfaces = interfaces
        self.on_change = on_change
        self.found: dict[str, LanServer] = {}  # by instance name
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._lookups: set[asyncio.Task] = set()

    @property
    def servers(self) -> list[LanServer]:
        return sorted(self.found.values(), key=lambda s: (s.host.casefold(), s.machine, s.port))

    async def start(self) -> None:
        """Start looking; DiscoveryUnavailable if mDNS cannot start here."""
        if self._zc is None:
            self._zc = _zeroconf(self.interfaces)
        self._browser = AsyncServiceBrowser(self._zc.zeroconf, [SERVICE_TYPE], handlers=[self._changed])

    async def refresh(self) -> None:
        """Forget the list and ask the network again."""
        if self._browser is not None:
            await self._browser.async_cancel()
        self.found.clear()
        self.on_change()
        await self.start()

    async def close(self) -> None:
        for task in list(self._lookups):
            task.cancel()
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        zc, self._zc = self._zc, None
        if zc is not None:
            await zc.async_close()

    def _changed(self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            if self.found.pop(name, None) is not None:
                self.on_change()
            return
        task = asyncio.ensure_future(self._look_up(zeroconf, service_type, name))
        self._lookups.add(task)
        task.add_done_callback(self._lookups.discard)

    async def _look_up(self, zeroconf: Zeroconf, service_type: str, name: str) -> None:
        """Read the service's record and list it if it is plausible; anything wrong: not listed."""
        info = AsyncServiceInfo(service_type, name)
        try:
            known = await info.async_request(zeroconf, int(self.settings.resolve_seconds * 1000))
            server = parse_service(info) if known else None
        except Exception:  # a stranger's record that zeroconf itself cannot make sense of
            server = None
        if server is None:
            if self.found.pop(name, None) is not None:
                self.on_change()
            return
        if name in self.found or len(self.found) < self.settings.max_servers:
            self.found[name] = server
            self.on_change()
