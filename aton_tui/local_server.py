"""An arbiter server inside the client's own process, for ``aton`` and ``aton host``.

The client still talks to it through the protocol over a socket, exactly as it
would to a remote server.  Its database is private to this user (platformdirs).
"""

from __future__ import annotations

import socket
from multiprocessing import resource_tracker
from pathlib import Path

import platformdirs

from protocol.names import name_order


def data_dir() -> Path:
    path = Path(platformdirs.user_data_dir("aton"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_to_file(path: Path) -> None:
    """Send the server's log lines to a file, rotated (``server.config.LogFileSettings``): the
    terminal belongs to the client."""
    from server.logging_setup import configure, rotating_file

    configure("info", handler=rotating_file(path))


class CannotServe(Exception):
    """The server inside the client cannot start at all (its database is a newer release's)."""


class LocalServer:
    """Make it before the Textual app runs (see ``__init__``); start and stop it inside."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, db_path: str | None = None) -> None:
        # The searching bots think in a worker process.  Starting one needs the
        # multiprocessing resource tracker, which passes sys.stderr's file number to
        # its child; inside a running Textual app that is -1 and the start fails.
        # Started here, before the app captures stderr, the tracker is simply reused.
        resource_tracker.ensure_running()
        # imported here: `aton connect` (and every SSH session) never loads the server
        from server.app import ArbiterServer
        from server.config import ServerConfig
        from server.store import NewerSchema

        self.config = ServerConfig(host=host, port=port, db_path=db_path or str(data_dir() / "local.db"))
        try:
            self.server = ArbiterServer(self.config)
        except NewerSchema as exc:
            raise CannotServe(str(exc)) from None
        self._started = False

    async def start(self) -> None:
        """Restore the unfinished games and listen; OSError (the port is taken) leaves nothing
        running: no restored game's clock ticks on behind a server nobody can reach."""
        try:
            await self.server.start()
        except OSError:
            await self.server.stop()
            raise
        self._started = True

    @property
    def port(self) -> int:
        return self.server.port

    def others(self, own_token: str | None) -> list[str]:
        """The names of everyone connected but us (the session whose resume token is ``own_token``)."""
        names = (conn.name for conn in self.server.connections if conn.greeted and conn.token != own_token)
        return sorted(names, key=name_order)

    async def stop(self, reason: str | None = None) -> None:
        """Stop serving; everyone connected is told ``reason`` (default: the server's own words)."""
        if self._started:
            self._started = False
            await self.server.stop(reason)


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent to find it)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only selects the outgoing interface
        return probe.getsockname()[0]
    except OSError:
        return socket.gethostbyname(socket.gethostname())
    finally:
        probe.close()
