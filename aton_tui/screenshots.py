"""Where the palette's "Screenshot" goes: the ``screenshots`` folder of Aton's data directory.

Textual saves to the Downloads folder, which a machine need not have (a server, a fresh
account): there the command failed.  Aton's data directory is made when needed, and the
player is told the whole path.  A client hosted for a remote player (SSH) does not offer
the command at all: the file would be written on the server's disk (``AtonApp.get_system_commands``).
"""

from __future__ import annotations

import time
from pathlib import Path

from .local_server import data_dir


def screenshots_dir() -> Path:
    return data_dir() / "screenshots"


def screenshot_name(wall_time: float) -> str:
    """``aton-2026-12-03_14-05-09.svg``: sorted by when it was taken."""
    return time.strftime("aton-%Y-%m-%d_%H-%M-%S.svg", time.localtime(wall_time))


def save_svg(svg: str, folder: Path, name: str) -> Path:
    """Write ``svg`` to ``folder``/``name`` (the folder made if needed); the file's path. OSError if it cannot."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(svg, encoding="utf-8")
    return path.resolve()
