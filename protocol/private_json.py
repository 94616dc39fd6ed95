"""Small JSON files of this user's own (mode 0600), such as a client's saved session tokens and
games (``saved_sessions``, ``saved_games``): written whole and atomically, changed under a lock
(``directory_lock``) so that two processes changing one file at once both keep their change; one
that cannot be read or written is treated as empty (each is a convenience, never a reason to stop)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # (Windows: no advisory locks; a change made at the same moment as another can be lost)
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """Hold, for a read of a file of ``directory``, its change and its write, the lock that every
    process of this user takes to change a file there (``flock`` on the directory, made if need be):
    two clients keeping their games in one file at the same moment (each for its own server) would
    otherwise each write what it read before the other's write, and lose that write.  Without the
    lock (the directory cannot be made or opened) the change is made all the same."""
    with contextlib.ExitStack() as stack:
        if fcntl is not None:
            with contextlib.suppress(OSError):
                directory.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(directory, os.O_RDONLY)
                stack.callback(os.close, descriptor)  # (closing it lets go of the lock)
                fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield


def read_json_object(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} when it is missing, damaged or not an object)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Replace the file with ``data``, readable by this user only (a failure is ignored)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a temporary file of this write's own (mode 0600): two processes writing at once each
        # replace the file whole, never with the other's half-written one
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1)
            os.replace(temporary, path)
        except OSError:
            os.unlink(temporary)
            raise
    except OSError:
        pass
