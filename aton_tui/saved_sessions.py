"""Session tokens kept between runs, so that starting ``aton`` again takes back its seats.

A server gives each session a resume token (``welcome.resume``); a later ``hello`` with
it resumes the session and every unfinished game it plays.  The client keeps the last
token of each server in one small file, readable by this user only, keyed by where
the server is: ``HOST:PORT`` for a remote server, the database path for the server
``aton`` runs inside itself (its port changes from run to run; its games do not).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

MAX_SERVERS = 50  # the file keeps the most recently used servers only


def sessions_path() -> Path:
    return Path(platformdirs.user_data_dir("aton")) / "sessions.json"


class SavedSessions:
    """The tokens file; every failure to read or write it is ignored (it is a convenience)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def token(self, server: str) -> str | None:
        return self._load().get(server)

    def remember(self, server: str, token: str) -> None:
        tokens = self._load()
        if tokens.get(server) == token:
            return
        tokens.pop(server, None)
        tokens[server] = token  # the most recent last
        kept = dict(list(tokens.items())[-MAX_SERVERS:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(kept, handle, indent=1)
            os.replace(temporary, self.path)
        except OSError:
            pass
