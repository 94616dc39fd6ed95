"""Who an SSH client is: its key's fingerprint, the name it asks for, its resume token, and the
gateway's voucher for its key.

A client that logs in with a public key is identified by the key's SHA-256 fingerprint: the
key is an account key (``server.accounts``).  The gateway does not keep accounts itself: the
game client it runs for the player proves the key to the game server with the gateway's
voucher for it (``server.vouchers``), and the game server signs the key in: the account it
belongs to, or on its first login a new account under the SSH user name (or, if another account
has that name, a free variant, which the player is told).  The key's resume token is the game
server's token for the fingerprint (``ResumeTokens.for_identity``), so the same key always
resumes the same seats and no table of tokens has to be kept.  Guests get a new token of the
game server's: their seats cannot be resumed by anyone.

The host key (ed25519) is created on first start with mode 0600 and reused afterwards.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from protocol.errors import ProtocolError
from protocol.names import player_name

from ..private_files import warn_if_readable, write_private
from ..resume_tokens import ResumeTokens
from ..vouchers import Vouchers

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"

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


def stand_in_name() -> str:
    """The name of a login whose SSH user name cannot be a player's."""
    return f"guest-{secrets.token_hex(2)}"


def fingerprint(key: asyncssh.SSHKey) -> str:
    """``SHA256:…``, as ``ssh-keygen -l`` prints it."""
    return key.get_fingerprint("sha256")


@dataclass(frozen=True)
class Identity:
    """The player one SSH connection plays as."""

    name: str  # the name asked for (a new key's account takes it if it is free)
    resume_token: str
    fingerprint: str | None = None  # None: a guest
    voucher: bytes | None = None  # the gateway's voucher for the key (``server.vouchers``)

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
    """The identity of each login: a key's (its fingerprint, its stable resume token, the
    voucher that proves it) or a guest's.

    ``reserved``: the names the game server keeps for itself (``server.lobby.reserved_names``),
    which no SSH user name becomes."""

    def __init__(self, tokens: ResumeTokens, vouchers: Vouchers, reserved: tuple[str, ...] = ()) -> None:
        self.tokens = tokens
        self.vouchers = vouchers
        self.reserved = reserved

    def resume_token(self, fp: str) -> str:
        """Stable per key, and one the game server recognises as its own."""
        return self.tokens.for_identity("ssh-key:" + fp)

    def for_key(self, fp: str, proposed: str | None) -> Identity:
        """The player of this key; ``proposed`` (the SSH user name) names its account if it is new."""
        return Identity(name=self.name_for(proposed), resume_token=self.resume_token(fp), fingerprint=fp,
                        voucher=self.vouchers.voucher(fp))

    def guest(self, proposed: str | None) -> Identity:
        return Identity(name=self.name_for(proposed), resume_token=self.tokens.issue())

    def name_for(self, proposed: str | None) -> str:
        """The SSH user name if it can be a player's name, else a guest name."""
        return valid_name(proposed, self.reserved) or stand_in_name()
