"""Small JSON files of this user's own (mode 0600), such as a client's saved session tokens and
games (``saved_sessions``, ``saved_games``): written whole and atomically; one that cannot be read
or written is treated as empty (each is a convenience, never a reason to stop)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


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
