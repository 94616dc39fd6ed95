"""Gateway assertions: how a gateway (SSH, web) vouches for its player to the arbiter.

A gateway authenticates a player (an SSH key, a web sign-in) and starts a game client for them:
an ordinary protocol client of the arbiter, which must prove the player's account without
holding the player's key.  The gateway may run in another process or on another machine than
the arbiter, so it cannot share a secret with it: it signs instead.

For every session the gateway makes a fresh Ed25519 **session key** pair and signs, with its
**gateway key** (Ed25519), an assertion: the gateway's public key, the player's key fingerprint
(none: a guest), the name asked for, the player's address, the session's public key, whether the
client takes back the key's seats, and an expiry.  It hands the assertion and the session's
private key to the client it starts (``protocol.handoff``).  The client sends the assertion in
``hello`` (``gateway``) and answers the arbiter's ``challenge`` by signing the proof message
with the session key.  The arbiter checks that the gateway key is one it trusts
(``aton-server --trusted-gateways``, and its own in-process gateways'), the gateway's signature,
the expiry, and the session key's signature over its challenge: an assertion copied from a
client without its session key proves nothing, one signed by another key proves nothing, and
an old one proves nothing after it expires.

A web gateway apart from the arbiter does not know a browser's player before it is signed in:
the browser brings a **sign-in code** (``server.web_logins``), which only the arbiter can redeem
(it made it). Such an assertion names no player but carries the code (``code``); the arbiter
redeems it once the client has proved the session key, and the client is then the player of the
code's key, as if the gateway had named it (``ArbiterServer._proved``).

On the wire an assertion is its body, a msgpack map, followed by the gateway's 64-byte
signature of ``TAG``, a zero byte and the body (docs/protocol.md, "Accounts").
"""

from __future__ import annotations

import base64
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .account_keys import FINGERPRINT_CHARS, GatewayProof, key_fingerprint

TAG = b"aton-gateway-assertion/1"
FORMAT = "aton-gateway/1"
SIGNATURE_BYTES = 64
RAW_KEY_BYTES = 32  # an Ed25519 public (or private) key
#: The longest assertion (body and signature): a name of 24 four-byte characters and an IPv6
#: address with a zone fit with room to spare.
ASSERTION_BYTES = 600
#: How the player reached the gateway (``via``), as the operator's login table says it.
VIA = ("ssh", "web")
ADDRESS_CHARS = 64
CODE_CHARS = 32  # a web sign-in code, as a gateway passes it on (``server.web_logins``)
NAME_BYTES = 100


class BadAssertion(ValueError):
    """An assertion the arbiter does not take; the message says why, for the client to show."""


@dataclass(frozen=True, slots=True)
class Assertion:
    """What a gateway says of one session's player (see the module's docstring)."""

    gateway: bytes  # the gateway's Ed25519 public key, raw (32 bytes)
    player: str | None  # the fingerprint of the key the player logged in with; None: a guest
    name: str  # the name asked for (an SSH user name)
    address: str  # where the player connected to the gateway from (bans, the login table)
    via: str  # "ssh" or "web"
    session: bytes  # the session's Ed25519 public key, raw: the client signs challenges with it
    seats: bool  # the client takes back the key's seats (a game client); False: a session of its own
    expires: int  # seconds since the epoch (UTC) after which it proves nothing
    code: str | None = None  # a web sign-in code for the arbiter to redeem (then no player: it names them)

    @property
    def gateway_fingerprint(self) -> str:
        return raw_key_fingerprint(self.gateway)

    def body(self) -> bytes:
        fields = {"format": FORMAT, "gateway": self.gateway, "player": self.player, "name": self.name,
                  "address": self.address, "via": self.via, "session": self.session,
                  "seats": self.seats, "expires": self.expires}
        return msgpack.packb(fields if self.code is None else {**fields, "code": self.code})


def raw_key_line(raw: bytes) -> str:
    """The OpenSSH public key line (``ssh-ed25519 AAAA…``) of a raw Ed25519 public key."""
    public = Ed25519PublicKey.from_public_bytes(raw)
    return public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def raw_key_fingerprint(raw: bytes) -> str:
    """``SHA256:…`` of a raw Ed25519 public key, as ``ssh-keygen -l`` prints it for its line."""
    return key_fingerprint(raw_key_line(raw))


def public_raw(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def sign(assertion: Assertion, gateway_key: Ed25519PrivateKey) -> bytes:
    """The assertion on the wire: its body and the gateway key's signature of it."""
    if public_raw(gateway_key) != assertion.gateway:
        raise ValueError("an assertion is signed by the gateway key it names")
    body = assertion.body()
    return body + gateway_key.sign(TAG + b"\0" + body)


def parse(blob: bytes) -> tuple[Assertion, bytes, bytes]:
    """The assertion in ``blob``, its body and the signature, as they stand; BadAssertion if it is
    not one (nothing is checked but its form)."""
    if not SIGNATURE_BYTES < len(blob) <= ASSERTION_BYTES:
        raise BadAssertion("the gateway assertion is not one (wrong length)")
    body, signature = blob[:-SIGNATURE_BYTES], blob[-SIGNATURE_BYTES:]
    try:
        fields = msgpack.unpackb(body, raw=False, strict_map_key=True, max_str_len=ASSERTION_BYTES,
                                 max_bin_len=RAW_KEY_BYTES, max_array_len=0, max_map_len=16)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise BadAssertion("the gateway assertion is not one (its body does not decode)") from None
    if not isinstance(fields, dict) or fields.get("format") != FORMAT:
        raise BadAssertion(f"the gateway assertion is not one ({FORMAT} expected)")
    try:
        assertion = Assertion(
            gateway=_raw_key(fields, "gateway"), player=_player(fields.get("player")),
            name=_text(fields, "name", NAME_BYTES), address=_text(fields, "address", ADDRESS_CHARS),
            via=_one_of(fields, "via", VIA), session=_raw_key(fields, "session"), seats=_bool(fields, "seats"),
            expires=_int(fields, "expires"), code=_code(fields.get("code")))
    except (KeyError, TypeError, ValueError) as exc:
        raise BadAssertion(f"the gateway assertion is not one ({exc})") from None
    return assertion, body, signature


def verify(blob: bytes, trusted: Collection[bytes], now: float) -> Assertion:
    """The assertion in ``blob`` if it is signed by one of the ``trusted`` gateway keys (raw) and
    has not expired at ``now`` (seconds since the epoch); else BadAssertion, saying which."""
    assertion, body, signature = parse(blob)
    if assertion.gateway not in trusted:
        raise BadAssertion(f"the gateway key {assertion.gateway_fingerprint} is not one this server trusts")
    try:
        Ed25519PublicKey.from_public_bytes(assertion.gateway).verify(signature, TAG + b"\0" + body)
    except (InvalidSignature, ValueError):
        raise BadAssertion("the gateway assertion's signature is not its gateway's (forged or altered)") from None
    if assertion.expires <= now:
        raise BadAssertion("the gateway assertion has expired: log in to the gateway again")
    return assertion


def verify_session_signature(assertion: Assertion, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the session key's signature of ``message`` (a challenge's proof)."""
    try:
        Ed25519PublicKey.from_public_bytes(assertion.session).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def encode_private(private: Ed25519PrivateKey) -> str:
    """A session's private key as the client is handed it: its raw 32 bytes in URL-safe base64."""
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
    return base64.urlsafe_b64encode(raw).decode()


def decode_private(text: str) -> Ed25519PrivateKey:
    """The inverse of ``encode_private``; ValueError if ``text`` is not one."""
    try:
        raw = base64.urlsafe_b64decode(text.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise ValueError("not base64") from None
    if len(raw) != RAW_KEY_BYTES:
        raise ValueError("not an Ed25519 private key")
    return Ed25519PrivateKey.from_private_bytes(raw)


def proof(assertion: bytes, session_key: str) -> GatewayProof:
    """What a gateway's client proves its player with, from what the gateway handed it (the
    assertion, and ``encode_private``'s session key); ValueError (BadAssertion too) if they are not that."""
    player = parse(assertion)[0].player
    return GatewayProof(assertion, decode_private(session_key), player or "")


def _raw_key(fields: dict[str, Any], name: str) -> bytes:
    value = fields[name]
    if not isinstance(value, bytes) or len(value) != RAW_KEY_BYTES:
        raise ValueError(f"{name}: expected a raw Ed25519 public key")
    return value


def _player(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != FINGERPRINT_CHARS or not value.startswith("SHA256:"):
        raise ValueError("player: expected a key's fingerprint or nil")
    return value


def code_shaped(text: str) -> bool:
    """Whether ``text`` has the form of a web sign-in code: letters, digits and dashes, 1–``CODE_CHARS``."""
    return 0 < len(text) <= CODE_CHARS and text.replace("-", "").isalnum()


def _code(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not code_shaped(value):
        raise ValueError(f"code: expected a sign-in code (letters, digits and dashes, at most {CODE_CHARS})")
    return value


def _text(fields: dict[str, Any], name: str, longest: int) -> str:
    value = fields[name]
    if not isinstance(value, str) or not 0 < len(value.encode()) <= longest:
        raise ValueError(f"{name}: expected a text of 1–{longest} bytes")
    return value


def _one_of(fields: dict[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = fields[name]
    if value not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(choices)}")
    return str(value)


def _bool(fields: dict[str, Any], name: str) -> bool:
    value = fields[name]
    if type(value) is not bool:
        raise ValueError(f"{name}: expected true or false")
    return value


def _int(fields: dict[str, Any], name: str) -> int:
    value = fields[name]
    if type(value) is not int or not 0 <= value < 2**53:
        raise ValueError(f"{name}: expected seconds since the epoch")
    return value

