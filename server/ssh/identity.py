"""Who an SSH client is: its key's fingerprint, the name it plays under, its resume token.

A client that logs in with a public key is identified by the key's SHA-256
fingerprint.  The first login's SSH user name becomes the player's name and is
remembered in the server's SQLite database (table ``ssh_identities``), so the
same key is the same player next time.  The key's resume token is derived from
the fingerprint with HMAC-SHA256 under a secret kept in the data directory, so
the same key always resumes the same seats and no table of tokens has to be
kept.  Guests get a random token: their seats cannot be resumed by anyone.

The host key (ed25519) and the secret are created on first start with mode 0600
and reused afterwards.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from protocol.errors import ProtocolError
from protocol.names import player_name

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"
SECRET_FILE = "ssh_resume_secret"

SCHEMA = """
CREATE TABLE IF NOT EXISTS ssh_identities (
    fingerprint TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    logins INTEGER NOT NULL DEFAULT 1
);
"""


def valid_name(proposed: str | None, reserved: tuple[str, ...] = ()) -> str | None:
    """The proposed name if the game server accepts it as it is (``protocol.names.player_name``,
    which would not change it), else None."""
    if not proposed:
        return None
    try:
        name = player_name(proposed, reserved)
    except ProtocolError:
        return None
    return name if name == proposed else None


def guest_name() -> str:
    return f"guest-{secrets.token_hex(2)}"


def fingerprint(key: asyncssh.SSHKey) -> str:
    """``SHA256:…``, as ``ssh-keygen -l`` prints it."""
    return key.get_fingerprint("sha256")


@dataclass(frozen=True)
class Identity:
    """The player one SSH connection plays as."""

    name: str
    resume_token: str
    fingerprint: str | None = None  # None: a guest

    @property
    def guest(self) -> bool:
        return self.fingerprint is None


def _write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 (never readable by others, not even for a moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _warn_if_readable(path: Path) -> None:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("%s is readable by others (mode %o): chmod 600 it", path, stat.S_IMODE(mode))


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key; created (mode 0600) if the file does not exist."""
    if path.exists():
        _warn_if_readable(path)
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="aton-server host key")
    try:
        _write_private(path, key.export_private_key())
    except FileExistsError:  # another process made it first: use theirs
        return asyncssh.read_private_key(str(path))
    log.info("created the SSH host key %s (%s)", path, key.get_fingerprint("sha256"))
    return key


def load_or_create_secret(path: Path) -> bytes:
    """32 random bytes (hex in the file, mode 0600), created on first use."""
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            _write_private(path, secrets.token_hex(32).encode() + b"\n")
    _warn_if_readable(path)
    secret = bytes.fromhex(path.read_text().strip())
    if len(secret) < 16:
        raise ValueError(f"{path}: the resume secret is too short")
    return secret


class Identities:
    """Fingerprint → remembered name (SQLite), and the resume tokens of keys and guests.

    ``reserved``: the names the game server keeps for itself (``server.lobby.reserved_names``),
    which no SSH user name becomes."""

    def __init__(self, db_path: str | Path, secret: bytes, reserved: tuple[str, ...] = ()) -> None:
        self.secret = secret
        self.reserved = reserved
        if str(db_path) != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(db_path), isolation_level=None)
        self.db.execute("PRAGMA busy_timeout=2000")
        if str(db_path) != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def resume_token(self, fp: str) -> str:
        """Stable per key: 43 URL-safe characters (the protocol allows 16–64)."""
        digest = hmac.new(self.secret, b"aton-ssh-resume/1\0" + fp.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def remembered(self, fp: str) -> str | None:
        row = self.db.execute("SELECT name FROM ssh_identities WHERE fingerprint = ?", (fp,)).fetchone()
        return row[0] if row else None

    def for_key(self, fp: str, proposed: str | None) -> Identity:
        """The player of this key: its remembered name, or the proposed one on its first login.

        A remembered name that is not a valid name by today's rules (kept by an older server)
        is replaced, as on a first login, and the replacement is remembered."""
        now = time.time()
        name = self.remembered(fp)
        if name is None:
            name = self.name_for(proposed)
            self.db.execute("INSERT OR IGNORE INTO ssh_identities (fingerprint, name, first_seen, last_seen) "
                            "VALUES (?, ?, ?, ?)", (fp, name, now, now))
            name = self.remembered(fp) or name
        else:
            if valid_name(name, self.reserved) is None:
                repaired = self.name_for(proposed)
                log.info("%s: the remembered name %r is not valid: now %r", fp, name, repaired)
                name = repaired
            self.db.execute("UPDATE ssh_identities SET name = ?, last_seen = ?, logins = logins + 1 "
                            "WHERE fingerprint = ?", (name, now, fp))
        return Identity(name=name, resume_token=self.resume_token(fp), fingerprint=fp)

    def guest(self, proposed: str | None) -> Identity:
        return Identity(name=self.name_for(proposed), resume_token=secrets.token_urlsafe(24))

    def name_for(self, proposed: str | None) -> str:
        """The SSH user name if it can be a player's name, else a guest name."""
        return valid_name(proposed, self.reserved) or guest_name()
