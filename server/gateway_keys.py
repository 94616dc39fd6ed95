"""Gateway keys: what a gateway signs its players' assertions with, and which keys the arbiter trusts.

Every gateway has an Ed25519 **gateway key** of its own (``gateway_ed25519_key`` in its data
directory, OpenSSH format, mode 0600, made on first start, its public line beside it in
``gateway_ed25519_key.pub``).  It is not the SSH host key: gateways behind one name (a load
balancer, round-robin DNS) must all show players the same host key, while each gateway keeps
a key of its own, so that the arbiter can stop trusting one gateway (a machine retired or
broken into) without the others.  For every session the gateway signs an assertion of its
player (``protocol.gateway_assertions``) with a fresh session key (``GatewaySigner.vouch``).

The arbiter trusts its own key (its in-process gateways, ``aton-server --ssh-port``, sign
with it) and the keys of the file ``aton-server --trusted-gateways FILE`` names: one
``ssh-ed25519 AAAA… [comment]`` line a gateway, as ``authorized_keys`` holds them, ``#``
comments and blank lines ignored (``read_trusted_gateways``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import gateway_assertions
from protocol.account_keys import NATIVE_KEY_TYPE, AccountKey, BadKey, parse_key_line
from protocol.gateway_assertions import Assertion

GATEWAY_KEY_FILE = "gateway_ed25519_key"


class BadTrustFile(ValueError):
    """A trusted gateways file that cannot be used; the message names the line and why."""


@dataclass(frozen=True)
class Vouch:
    """What a gateway hands the client it starts for one session: the signed assertion and the
    session key's private half (``protocol.handoff``'s variables)."""

    assertion: bytes
    session_key: str  # ``gateway_assertions.encode_private``


def load_or_create_gateway_key(path: Path) -> Ed25519PrivateKey:
    """The gateway key kept in ``path`` (made there on first use, mode 0600), its public line
    written beside it (``.pub``) for the arbiter's operator to trust."""
    key = AccountKey.load_or_create(path)
    public = path.with_name(path.name + ".pub")
    if not public.exists():
        public.write_text(f"{key.public_line} aton-gateway\n")
    return key.private


class GatewaySigner:
    """A gateway's key, vouching for the players of its sessions for ``seconds`` each (``wall``:
    the wall clock of the expiries, ``time.time`` by default)."""

    def __init__(self, key: Ed25519PrivateKey, seconds: float, wall: Callable[[], float] = time.time) -> None:
        self.key = key
        self.seconds = seconds
        self.wall = wall
        self.public = gateway_assertions.public_raw(key)
        self.public_line = gateway_assertions.raw_key_line(self.public)
        self.fingerprint = gateway_assertions.raw_key_fingerprint(self.public)

    def vouch(self, player: str | None, name: str, address: str, via: str, seats: bool = True,
              code: str | None = None) -> Vouch:
        """A new session's assertion, for the player of the key ``player`` (None: a guest, or the
        player of the web sign-in ``code``, for the arbiter to redeem) asking for ``name``, from
        ``address``; ``seats``: its client takes back the key's seats."""
        session = Ed25519PrivateKey.generate()
        assertion = Assertion(gateway=self.public, player=player, name=name, address=address[:64] or "?",
                              via=via, session=gateway_assertions.public_raw(session), seats=seats,
                              expires=int(self.wall() + self.seconds), code=code)
        return Vouch(gateway_assertions.sign(assertion, self.key), gateway_assertions.encode_private(session))


def read_trusted_gateways(path: Path) -> frozenset[bytes]:
    """The raw gateway keys of a trusted gateways file; BadTrustFile says what is wrong with it."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadTrustFile(f"cannot read the trusted gateways file {path}: {exc}") from None
    keys = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            key_type, blob = parse_key_line(line)
        except BadKey as exc:
            raise BadTrustFile(f"{path}, line {number}: {exc}") from None
        if key_type != NATIVE_KEY_TYPE:
            raise BadTrustFile(f"{path}, line {number}: a gateway key is an {NATIVE_KEY_TYPE} key")
        keys.add(blob[-gateway_assertions.RAW_KEY_BYTES:])
    return frozenset(keys)
