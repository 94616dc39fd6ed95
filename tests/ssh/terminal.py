"""A game server with its SSH gateway on loopback, and an SSH terminal to drive it.

The gateway runs in the test's own process (as ``aton-server --ssh-port`` runs it
beside the game server), so the tests can look at what it holds: its sessions,
its children, its open file descriptors.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from dataclasses import replace
from pathlib import Path

import asyncssh

from protocol.handoff import CLIENT_MODULE, CLIENT_NAME, FORKSERVER_NAME
from server.app import ArbiterServer
from server.clock import Clock
from server.config import ServerConfig, SSHConfig
from server.ssh import SSHGateway

from ..conftest import GAME_SEED

ANSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>78]")
CURSOR_TO = re.compile(rb"\x1b\[(\d+);(\d+)H")
LOBBY = "lobby of"  # the lobby screen's top bar: " ATON  ·  lobby of this server"
#: the player's own status in the lobby's list of players: on the screen once the client is connected.
#: The session's first frame (``LOBBY``) may come before: an app host has the clients it has drawn
#: connect once those that came after them are drawn too (``aton_tui.start_turns``).  Said so where the
#: names fit beside it, as the tests' names do at their 100 columns; a list too narrow says "lobby"
#: (``aton_tui.screens.lobby.player_rows``).
IN_LOBBY = "in the lobby"


def plain(data: bytes) -> str:
    return ANSI.sub(b"", data).decode("utf-8", errors="replace")


class Stack:
    """A game server and its gateway, started and stopped together."""

    def __init__(self, tmp_path: Path, ssh: SSHConfig, clock: Clock | None = None,
                 server_clock: Clock | None = None) -> None:
        """``clock``: the gateway's (idle sessions), ``server_clock`` the game server's (games,
        the polling of the operator's bans); by default the event loop's."""
        self.db = str(tmp_path / "aton.db")
        self.server = ArbiterServer(ServerConfig(port=0, db_path=self.db, game_seed=GAME_SEED), clock=server_clock)
        self.ssh = replace(ssh, port=0, data_dir=ssh.data_dir or str(tmp_path))
        self.clock = clock
        self._gateway: SSHGateway | None = None
        self.stopped = False

    async def start(self) -> Stack:
        await self.server.start()
        self._gateway = SSHGateway(self.ssh, "127.0.0.1", self.server.port, self.db, self.server.tokens,
                                   self.server.gateway_signer, clock=self.clock, history=self.server.history,
                                   moderation=self.server.moderation)
        await self._gateway.start()
        return self

    @property
    def gateway(self) -> SSHGateway:
        assert self._gateway is not None, "the stack has not started"
        return self._gateway

    async def forkserver_ready(self) -> int:
        """Wait until the fork server answers at once; its pid."""
        forkserver = self.gateway.forkserver
        assert forkserver is not None, "the gateway runs no fork server"
        assert await forkserver.wait_ready(), "the fork server never got ready"
        return forkserver.pid

    @property
    def port(self) -> int:
        return self.gateway.port

    async def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        if self._gateway is not None:
            await self._gateway.stop()
        await self.server.stop()

    async def settled(self, timeout: float = 8.0) -> None:
        """Wait until the gateway holds no session and runs no task."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.gateway.games and not self.gateway.tasks and not self.gateway.links:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"the gateway still holds {self.gateway.games=} {self.gateway.tasks=} "
                             f"{self.gateway.links=}")


class GuestClient(asyncssh.SSHClient):
    """A client without a key: keyboard-interactive with no prompt to answer."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return ["" for _ in prompts]


class Terminal(asyncssh.SSHClientSession):
    """The far end of an SSH session with a terminal: collects the screen's bytes."""

    def __init__(self) -> None:
        self.output = bytearray()
        self.exit_status: int | None = None
        self.closed = asyncio.Event()
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype) -> None:
        self.output += data
        self.changed.set()

    def exit_status_received(self, status: int) -> None:
        self.exit_status = status

    def connection_lost(self, exc) -> None:
        self.closed.set()

    def text(self, since: int = 0) -> str:
        return plain(bytes(self.output[since:]))

    async def wait_for(self, text: str, timeout: float = 10.0, since: int = 0) -> float:
        """Seconds until ``text`` is on screen (in the output after offset ``since``)."""
        start = time.monotonic()
        while text not in self.text(since):
            left = timeout - (time.monotonic() - start)
            if left <= 0 or self.closed.is_set():
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{self.text(since)[-3000:]}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.2))
        return time.monotonic() - start

    def extent(self, since: int = 0) -> tuple[int, int]:
        """(columns, rows) the client drew to: the farthest cell any positioned run of text reaches."""
        data = bytes(self.output[since:])
        columns = rows = 0
        for match in CURSOR_TO.finditer(data):
            row, column = int(match[1]), int(match[2])
            nxt = CURSOR_TO.search(data, match.end())
            run = plain(data[match.end():nxt.start() if nxt else len(data)]).split("\r\n", 1)[0]
            rows, columns = max(rows, row), max(columns, column - 1 + len(run))
        return columns, rows


async def wait_for_extent(term: Terminal, size: tuple[int, int], since: int = 0, timeout: float = 5.0) -> None:
    """Wait until the client has drawn out to exactly ``size`` (columns, rows) after ``since``."""
    end = time.monotonic() + timeout
    while not term.output[since:] or term.extent(since) != size:
        if time.monotonic() > end:
            drawn = term.extent(since) if term.output[since:] else None
            raise AssertionError(f"the client drew to {drawn}, not {size}")
        await asyncio.sleep(0.02)


async def connect(port: int, username: str = "alice", key: asyncssh.SSHKey | None = None,
                  **options) -> asyncssh.SSHClientConnection:
    if key is None:
        options.setdefault("client_factory", GuestClient)
        options.setdefault("client_keys", None)
        options.setdefault("agent_path", None)
    else:
        options.setdefault("client_keys", [key])
        options.setdefault("agent_path", None)
    return await asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None,
                                  config=None, **options)


def server_fingerprint(conn: asyncssh.SSHClientConnection) -> str:
    """The SHA-256 fingerprint of the host key the server showed ``conn``."""
    key = conn.get_server_host_key()
    assert key is not None
    return key.get_fingerprint("sha256")


async def open_terminal(conn: asyncssh.SSHClientConnection, size: tuple[int, int] = (100, 30),
                        **options) -> tuple[asyncssh.SSHClientChannel, Terminal]:
    chan, session = await conn.create_session(Terminal, term_type="xterm-256color", term_size=size, encoding=None,
                                              **options)
    assert isinstance(session, Terminal)
    return chan, session


async def sit_down_against_a_bot(chan: asyncssh.SSHClientChannel, term: Terminal, timeout: float = 20.0) -> None:
    """From the lobby, once connected: ``b`` opens the bot dialog, Enter starts a game with its
    defaults; wait until the player is seated."""
    await term.wait_for(IN_LOBBY, timeout=timeout)
    chan.write(b"b")
    await term.wait_for("Strength", timeout=timeout)
    chan.write(b"\r")
    await term.wait_for("(you)", timeout=timeout)


def process_gone(pid: int) -> bool:
    """No such process, not even a zombie waiting to be reaped."""
    return not Path(f"/proc/{pid}").exists()


def children_of(pid: int) -> set[int]:
    pids: set[int] = set()
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):
                pids.update(int(p) for p in (task / "children").read_text().split())
    except FileNotFoundError:
        pass
    return pids


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``: its children, theirs, and so on."""
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = set().union(*(children_of(p) for p in frontier)) - found
        found |= frontier
    return found


def children_of_this_process() -> set[int]:
    return children_of(os.getpid())


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def is_client(pid: int) -> bool:
    """Runs the game client: spawned (``aton_tui.cli``) or forked by a fork server (its name)."""
    return (CLIENT_MODULE.encode() in _read(f"/proc/{pid}/cmdline")
            or _read(f"/proc/{pid}/comm") == CLIENT_NAME + b"\n")


def is_forkserver(pid: int) -> bool:
    return _read(f"/proc/{pid}/comm") == FORKSERVER_NAME + b"\n"


def forkservers_of(pid: int) -> set[int]:
    return {child for child in children_of(pid) if is_forkserver(child)}


def clients_of(pid: int) -> set[int]:
    """The game clients process ``pid`` runs: its own children, and its fork servers' (the
    bots' process pool is neither)."""
    found = {child for child in children_of(pid) if is_client(child)}
    for server in forkservers_of(pid):
        found |= {child for child in children_of(server) if is_client(child)}
    return found


def client_children() -> set[int]:
    """The game clients this process runs (see ``clients_of``)."""
    return clients_of(os.getpid())


def open_fds(pid: int | str = "self") -> set[str]:
    """A process's open files (this one's by default), as 'fd->target'."""
    fds = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(FileNotFoundError):
            fds.add(f"{fd}->{os.readlink(f'/proc/{pid}/fd/{fd}')}")
    return fds


def leaked_fds(before: set[str], after: set[str]) -> set[str]:
    """Files opened since ``before`` and still open, except the bots' process pool's pipes."""
    return {fd for fd in after - before if not fd.split("->", 1)[1].startswith(("pipe:", "/dev/shm/"))}


def key_file(directory: Path, name: str) -> tuple[Path, asyncssh.SSHKey]:
    """A new ed25519 key, written as OpenSSH's ``ssh -i`` reads it (mode 0600)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = directory / f"id_{name}"
    key.write_private_key(str(path))
    path.chmod(0o600)
    return path, key


async def openssh(port: int, key: Path, *command: str) -> tuple[int, bytes, str]:
    """Run ``command`` over OpenSSH's ``ssh`` on loopback ``port`` as alice with ``key``: exit status,
    stdout, stderr."""
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "LogLevel=ERROR", "-o", "IdentityAgent=none", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
        "-o", "PreferredAuthentications=publickey", "-i", str(key), "-p", str(port), "alice@127.0.0.1",
        *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode is not None
    return proc.returncode, out, err.decode()
