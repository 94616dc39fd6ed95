"""Who an SSH client is: its key's fingerprint, the name it plays under, its resume token.

A client that logs in with a public key is identified by the key's SHA-256
fingerprint.  The first login's SSH user name becomes the player's name and is
remembered in the server's SQLite database (table ``ssh_identities``), so the
same key is the same player next time.  The key's resume token is the game
server's token for the fingerprint (``ResumeTokens.for_identity``), so the same key
always resumes the same seats and no table of tokens has to be kept.  Guests get a
new token of the game server's: their seats cannot be resumed by anyone.

The host key (ed25519) is created on first start with mode 0600 and reused afterwards.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from protocol.errors import ProtocolError
from protocol.names import player_name

from ..private_files import keep_private, private_umask, warn_if_readable, write_private
from ..resume_tokens import ResumeTokens

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"

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


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key; created (mode 0600) if the file does not exist."""
    if path.exists():
        warn_if_readable(path)
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="aton-server host key")
    try:
        write_private(path, key.export_private_key())
    except FileExistsError:  # another process made it first: use theirs
        return asyncssh.read_private_key(str(path))
    log.info("created the SSH host key %s (%s)", path, key.get_fingerprint("sha256"))
    return key


class Identities:
    """Fingerprint → remembered name (SQLite), and the resume tokens of keys and guests.

    ``reserved``: the names the game server keeps for itself (``server.lobby.reserved_names``),
    which no SSH user name becomes."""

    def __init__(self, db_path: str | Path, tokens: ResumeTokens, reserved: tuple[str, ...] = ()) -> None:
        self.tokens = tokens
        self.reserved = reserved
        if str(db_path) != ":memory:":
            keep_private(Path(db_path))
        with private_umask():  # the game server's database: private, as it holds the games' seeds
            self.db = sqlite3.connect(str(db_path), isolation_level=None)
            self.db.execute("PRAGMA busy_timeout=2000")
            if str(db_path) != ":memory:":
                self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def resume_token(self, fp: str) -> str:
        """Stable per key, and one the game server recognises as its own."""
        return self.tokens.for_identity("ssh-key:" + fp)

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
        return Identity(name=self.name_for(proposed), resume_token=self.tokens.issue())

    def name_for(self, proposed: str | None) -> str:
        """The SSH user name if it can be a player's name, else a guest name."""
        return valid_name(proposed, self.reserved) or guest_name()
