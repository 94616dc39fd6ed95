"""Session tokens kept between runs, so that a client started again takes back its seats.

A server gives each session a resume token (``welcome.resume``); a later ``hello`` with
it resumes the session and every unfinished game it plays.  A client keeps the last
token of each server in one small file, readable by this user only, keyed by where
the server is: ``HOST:PORT`` for a remote server; for the server ``aton`` runs inside
itself, its database path (its port changes from run to run; its games do not).  The
Textual client keeps one file (``sessions_path``); each bot that keeps its session, one of
its own (``bots.network``).
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

from .private_json import directory_lock, read_json_object, write_private_json

MAX_SERVERS = 50  # the file keeps the most recently used servers only


def server_key(host: str, port: int) -> str:
    """The key of a server reached over the network (``HOST:PORT``), here and in ``saved_games``."""
    return f"{host}:{port}"


def sessions_path() -> Path:
    """The Textual client's tokens file."""
    return Path(platformdirs.user_data_dir("aton")) / "sessions.json"


class SavedSessions:
    """The tokens file; every failure to read or write it is ignored (it is a convenience)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, str]:
        return {k: v for k, v in read_json_object(self.path).items() if isinstance(v, str)}

    def token(self, server: str) -> str | None:
        return self._load().get(server)

    def remember(self, server: str, token: str) -> None:
        """Keep ``token`` for ``server``; the other servers' tokens stay as they are, even if another
        process changes them at this moment (``private_json.directory_lock``)."""
        with directory_lock(self.path.parent):
            tokens = self._load()
            if tokens.get(server) == token:
                return
            tokens.pop(server, None)
            tokens[server] = token  # the most recent last
            write_private_json(self.path, dict(list(tokens.items())[-MAX_SERVERS:]))
