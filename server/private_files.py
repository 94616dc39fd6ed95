"""Files only the server's own user may read: the data directory, the database and the secrets.

The database holds every live game's seed (from which both hands follow), the secrets sign
the resume tokens and identify the SSH host: none may be readable by others, not even for
a moment while being created.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

#: The database's companions; SQLite gives them the database's own mode when it creates them.
DATABASE_FILE_SUFFIXES = ("", "-wal", "-shm")


@contextmanager
def private_umask() -> Iterator[None]:
    """Files created meanwhile are readable by their owner only (the umask is process-wide)."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def keep_private(db_path: Path) -> None:
    """The database's directory, when created here, is 0700, and the database files that
    exist already are made 0600."""
    if not db_path.parent.exists():
        with private_umask():
            db_path.parent.mkdir(mode=0o700, parents=True)
    for suffix in DATABASE_FILE_SUFFIXES:
        existing = db_path.with_name(db_path.name + suffix)
        if existing.exists():
            existing.chmod(0o600)


def write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 (never readable by others, not even for a moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def warn_if_readable(path: Path) -> None:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("%s is readable by others (mode %o): chmod 600 it", path, stat.S_IMODE(mode))


def load_or_create_secret(path: Path) -> bytes:
    """32 random bytes (hex in the file, mode 0600), created on first use."""
    if not path.exists():
        with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
            write_private(path, secrets.token_hex(32).encode() + b"\n")
    warn_if_readable(path)
    secret = bytes.fromhex(path.read_text().strip())
    if len(secret) < 16:
        raise ValueError(f"{path}: the secret is too short")
    return secret
