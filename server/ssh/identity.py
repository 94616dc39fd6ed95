"""Who an SSH client is: its key's fingerprint, the name it asks for, its session, and the
gateway's assertion of it.

A client that logs in with a public key is identified by the key's SHA-256 fingerprint: the
key is an account key (``server.accounts``).  The gateway does not keep accounts itself: it
signs an assertion of the player (``server.gateway_keys``: the fingerprint, the name asked
for, the address, a fresh session key), and the game client it runs for the player proves it
to the game server, which signs the key in: the account it belongs to, or on its first login a
new account under the SSH user name (or, if another account has that name, a free variant,
which the player is told).  The key's session is the game server's token for the fingerprint
(``ResumeTokens.for_key``), which the game server derives itself, so the same key resumes the
same seats through any gateway and no table of tokens has to be kept.  A guest's client gets a
new session of the game server's: its seats cannot be resumed by anyone.

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

from ..gateway_keys import GatewaySigner, Vouch
from ..private_files import warn_if_readable, write_private
from ..resume_tokens import ResumeTokens

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
    vouch: Vouch  # the gateway's assertion of the player, and its session key
    #: The player's session on the game server, where the gateway can know it (beside the arbiter:
    #: the key's, or a new one for a guest); None for a gateway apart from it.
    resume_token: str | None = None
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
    """The identity of each login: a key's (its fingerprint, the assertion that proves it) or a
    guest's.

    ``signer``: the gateway's key; ``via``: how players reach this gateway (``ssh``, ``web``);
    ``tokens``: the game server's resume tokens when the gateway runs beside it (None: apart);
    ``reserved``: the names the game server keeps for itself (``server.lobby.reserved_names``),
    which no SSH user name becomes."""

    def __init__(self, signer: GatewaySigner, via: str, tokens: ResumeTokens | None = None,
                 reserved: tuple[str, ...] = ()) -> None:
        self.signer = signer
        self.via = via
        self.tokens = tokens
        self.reserved = reserved

    def for_key(self, fp: str, proposed: str | None, address: str) -> Identity:
        """The player of this key, logged in from ``address``; ``proposed`` (the SSH user name) names
        its account if it is new."""
        name = self.name_for(proposed)
        return Identity(name=name, vouch=self.signer.vouch(fp, name, address, self.via),
                        resume_token=None if self.tokens is None else self.tokens.for_key(fp), fingerprint=fp)

    def guest(self, proposed: str | None, address: str) -> Identity:
        name = self.name_for(proposed)
        return Identity(name=name, vouch=self.signer.vouch(None, name, address, self.via),
                        resume_token=None if self.tokens is None else self.tokens.issue())

    def for_code(self, code: str, address: str) -> Identity:
        """The player of a web sign-in code, for the arbiter to redeem (a gateway apart from it
        cannot): no player named yet, and a stand-in name the arbiter replaces with theirs."""
        name = stand_in_name()
        return Identity(name=name, vouch=self.signer.vouch(None, name, address, self.via, code=code))

    def name_for(self, proposed: str | None) -> str:
        """The SSH user name if it can be a player's name, else a guest name."""
        return valid_name(proposed, self.reserved) or stand_in_name()
