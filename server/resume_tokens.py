"""Resume tokens: the server issues them, and recognises its own by their signature.

A token is 16 bytes and a 16-byte tag, HMAC-SHA256 of those bytes under the server's
secret, in URL-safe base64 (43 characters).  No list of tokens is kept: a token is the
server's own if its tag is right, however long ago it was issued, and across restarts too,
as the secret is kept in the data directory (``resume_secret``, mode 0600).  A token a
client made up ("aaaa…") has no valid tag.  The SSH gateway asks for one stable token per
key (``for_key``), so that a key takes its seats back from any login through any gateway.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from pathlib import Path

from .private_files import load_or_create_secret

SECRET_FILE = "resume_secret"
BODY_BYTES = 16
TAG_BYTES = 16


class ResumeTokens:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    @classmethod
    def in_directory(cls, data_dir: Path | None) -> ResumeTokens:
        """With the secret of ``data_dir`` (made on first use), or a new one for a server whose
        database lives in memory (its tokens end with it)."""
        return cls(secrets.token_bytes(32) if data_dir is None else load_or_create_secret(data_dir / SECRET_FILE))

    def issue(self) -> str:
        """A new token, for a new session."""
        return self._signed(secrets.token_bytes(BODY_BYTES))

    def for_identity(self, identity: str) -> str:
        """The same token for the same ``identity`` (an SSH key's fingerprint), and only for it."""
        body = hmac.new(self._secret, b"aton-identity/1\0" + identity.encode(), hashlib.sha256).digest()
        return self._signed(body[:BODY_BYTES])

    def for_key(self, fingerprint: str) -> str:
        """The session of the key ``fingerprint`` when a gateway vouches for it: the same whichever
        gateway (SSH, web; in-process or apart) the player logs in through."""
        return self.for_identity("ssh-key:" + fingerprint)

    def for_key_commands(self, fingerprint: str) -> str:
        """The session of the key ``fingerprint``'s commands through a gateway apart from the game server
        (``ssh HOST games``): one per key, so that its requests are counted together, and not its
        game client's, which it would take over."""
        return self.for_identity("ssh-key-commands:" + fingerprint)

    def recognises(self, token: str) -> bool:
        """Whether this server issued ``token``."""
        try:
            raw = base64.b64decode(token.encode("ascii") + b"=" * (-len(token) % 4), altchars=b"-_", validate=True)
        except (ValueError, binascii.Error):  # not ASCII, or not base64
            return False
        body, tag = raw[:BODY_BYTES], raw[BODY_BYTES:]
        return len(raw) == BODY_BYTES + TAG_BYTES and hmac.compare_digest(tag, self._tag(body))

    def _tag(self, body: bytes) -> bytes:
        return hmac.new(self._secret, b"aton-resume/1\0" + body, hashlib.sha256).digest()[:TAG_BYTES]

    def _signed(self, body: bytes) -> str:
        return base64.urlsafe_b64encode(body + self._tag(body)).rstrip(b"=").decode()
