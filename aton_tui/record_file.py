"""Saving a finished game's ``aton-record/1`` (asked of the server with ``get_record``)."""

from __future__ import annotations

import json
from pathlib import Path


def record_filename(game: int) -> str:
    return f"aton-game-{game}.json"


def save_record(record: dict, path: Path) -> Path:
    """Write the record as JSON; ``aton replay`` reads it back."""
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
