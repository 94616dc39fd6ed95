"""Small JSON files of this user's own (mode 0600), such as a client's saved session tokens and
deals (``saved_sessions``, ``saved_deals``): written whole and atomically; one that cannot be read
or written is treated as empty (each is a convenience, never a reason to stop)."""

from __future__ import annotations

import json
import os
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
        temporary = path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
        os.replace(temporary, path)
    except OSError:
        pass
