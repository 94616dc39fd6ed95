"""Account keys: how a client proves, on every ``hello``, the account it plays under.

A native client keeps an Ed25519 key pair per server, in OpenSSH's own file format, so that
an account's keys are named by the fingerprint ``ssh-keygen -l`` prints (``SHA256:…``, the
SHA-256 of the public key's wire blob, in base64 without padding) whether they log in over
SSH or sign a native ``hello``; one account may hold both kinds.

The proof (docs/protocol.md, "Accounts"): a ``hello`` carries ``key`` (the OpenSSH public key
line) and the server answers ``challenge`` with a fresh random ``nonce`` and its name; the
client answers ``prove`` with its signature over ``proof_message``: a domain tag, the nonce,
the server's name and the key's fingerprint, each length-prefixed.  A signature made for one
connection's nonce is worth nothing on another, and one made for one key or server nothing
for another.

A client a gateway (SSH, web) started proves the player the gateway authenticated in the same
way, with ``gateway`` (the gateway's signed assertion, ``protocol.gateway_assertions``) instead
of ``key``, and a signature by the session key the gateway handed it (``GatewayProof``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import struct
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: The key type native clients make and sign with.
NATIVE_KEY_TYPE = "ssh-ed25519"
#: The public key types an account may hold (``add_key``): OpenSSH's own, security keys included.
ACCOUNT_KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
                     "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")
#: The longest public key line accepted (it fits in a request frame; an RSA key of 8192 bits does).
KEY_LINE_CHARS = 1600
NONCE_BYTES = 32
#: A fingerprint as ``ssh-keygen -l`` prints it: ``SHA256:`` and 43 characters of base64.
FINGERPRINT_PATTERN = r"SHA256:[A-Za-z0-9+/]{43}"
FINGERPRINT_CHARS = len("SHA256:") + 43
PROOF_TAG = b"aton-account-proof/1"


class BadKey(ValueError):
    """A public key line that is not one an account may hold; the message says why."""


def _length_prefixed(*parts: bytes) -> bytes:
    return b"".join(struct.pack(">I", len(part)) + part for part in parts)


def proof_message(nonce: bytes, server: str, fingerprint: str) -> bytes:
    """What a client signs (or MACs) to answer a ``challenge``."""
    return _length_prefixed(PROOF_TAG, nonce, server.encode(), fingerprint.encode())


def blob_fingerprint(blob: bytes) -> str:
    """``SHA256:…`` of a public key's wire blob, as ``ssh-keygen -l`` prints it."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def parse_key_line(line: str) -> tuple[str, bytes]:
    """The type and wire blob of an OpenSSH public key line (``type base64 [comment]``); BadKey
    says what is wrong.  The blob must name the same type, and be a key of a type an account may
    hold; Ed25519, RSA and ECDSA keys must also load as keys of their type."""
    if len(line) > KEY_LINE_CHARS:
        raise BadKey(f"a public key line is at most {KEY_LINE_CHARS} characters")
    words = line.strip().split()
    if len(words) < 2:
        raise BadKey("a public key line is its type, its key in base64 and perhaps a comment "
                     "(as in ~/.ssh/id_ed25519.pub)")
    key_type, encoded = words[0], words[1]
    if key_type not in ACCOUNT_KEY_TYPES:
        raise BadKey(f"keys of type {key_type[:40]!r} are not accepted (accepted: {', '.join(ACCOUNT_KEY_TYPES)})")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (ValueError, binascii.Error):
        raise BadKey("the key is not valid base64") from None
    if not blob.startswith(_length_prefixed(key_type.encode())):
        raise BadKey(f"the key's data is not a {key_type} key")
    if not key_type.startswith("sk-"):
        try:
            serialization.load_ssh_public_key(f"{key_type} {encoded}".encode())
        except (ValueError, TypeError):
            raise BadKey(f"the key's data is not a valid {key_type} key") from None
    return key_type, blob


def key_fingerprint(line: str) -> str:
    """The fingerprint of an OpenSSH public key line; BadKey if it is not one."""
    return blob_fingerprint(parse_key_line(line)[1])


def verify_signature(line: str, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the Ed25519 signature of ``message`` by the key of ``line``."""
    try:
        key_type, blob = parse_key_line(line)
    except BadKey:
        return False
    if key_type != NATIVE_KEY_TYPE:
        return False
    public = serialization.load_ssh_public_key(f"{key_type} {base64.b64encode(blob).decode()}".encode())
    assert isinstance(public, Ed25519PublicKey)
    try:
        public.verify(signature, message)
    except InvalidSignature:
        return False
    return True


class GatewayProof:
    """What a client a gateway started proves its player with: the gateway's signed assertion
    (``protocol.gateway_assertions``) and the session key it names.  ``fingerprint``: the player's
    key's, as the assertion says it ("" for a guest), which the proof message binds."""

    def __init__(self, assertion: bytes, session_key: Ed25519PrivateKey, fingerprint: str) -> None:
        self.assertion = assertion
        self.session_key = session_key
        self.fingerprint = fingerprint

    def claim(self) -> dict[str, Any]:
        """What a hello says of this proof."""
        return {"gateway": self.assertion}

    def answer(self, message: bytes) -> bytes:
        """The session key's signature of ``message``."""
        return self.session_key.sign(message)


class AccountKey:
    """A client's Ed25519 key pair: what it proves an account with."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self.private = private
        raw = private.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        self.public_line = raw.decode()  # "ssh-ed25519 AAAA…"
        self.fingerprint = key_fingerprint(self.public_line)

    @classmethod
    def generate(cls) -> AccountKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> AccountKey:
        """The key of a 32-byte seed (tests make one key per name this way)."""
        return cls(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest()))

    def claim(self) -> dict[str, Any]:
        """What a hello says of this proof."""
        return {"key": self.public_line}

    def answer(self, message: bytes) -> bytes:
        """The signature of ``message``."""
        return self.private.sign(message)

    def private_file(self) -> bytes:
        """The private key in OpenSSH's format (``ssh-keygen -y -f`` reads it)."""
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                          serialization.NoEncryption())

    @classmethod
    def load_or_create(cls, path: Path) -> AccountKey:
        """The key kept in ``path`` (OpenSSH format, mode 0600), made there on first use; its
        directory is made 0700."""
        try:
            private = serialization.load_ssh_private_key(path.read_bytes(), password=None)
        except FileNotFoundError:
            key = cls.generate()
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another client made it first: use theirs
                return cls.load_or_create(path)
            with os.fdopen(fd, "wb") as handle:
                handle.write(key.private_file())
            return key
        if not isinstance(private, Ed25519PrivateKey):
            raise BadKey(f"{path} is not an Ed25519 key")
        return cls(private)


def key_file_name(server: str) -> str:
    """The file a client keeps its key for ``server`` in (``HOST:PORT``, or a local server's
    database path): readable, and distinct for distinct servers."""
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", server)[-40:].strip("_.") or "server"
    return f"{readable}-{hashlib.sha256(server.encode()).hexdigest()[:10]}"


def keys_directory(data_dir: Path) -> Path:
    """Where a client keeps its account keys: one file per server."""
    return data_dir / "keys"


#: What a client proves an account with.
Proof = AccountKey | GatewayProof
