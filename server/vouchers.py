"""The SSH gateway's vouchers: how a client it started proves the key the gateway authenticated.

The gateway checked the player's SSH key; the game client it runs for them (a process of its
own, on the game protocol like any other client) must prove that key's account to the game
server without holding the key.  The gateway hands it a voucher in its environment
(``protocol.handoff.VOUCHER_VARIABLE``): HMAC-SHA256 of the fingerprint under a secret of the
server's data directory (``voucher_secret``, mode 0600).  The client answers the game server's
challenge with an HMAC of the proof message under the voucher (``protocol.account_keys``), and
the server, which can make every voucher, checks it.  A voucher is worth one fingerprint only,
is never sent on the wire, and an answer is worth one challenge only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from protocol.account_keys import VOUCHER_TAG, voucher_mac

from .private_files import load_or_create_secret

SECRET_FILE = "voucher_secret"


class Vouchers:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    @classmethod
    def in_directory(cls, data_dir: Path | None) -> Vouchers:
        """With the secret of ``data_dir`` (made on first use), or a new one for a server whose
        database lives in memory."""
        return cls(secrets.token_bytes(32) if data_dir is None else load_or_create_secret(data_dir / SECRET_FILE))

    def voucher(self, fingerprint: str) -> bytes:
        """The voucher for the key ``fingerprint``."""
        return hmac.new(self._secret, VOUCHER_TAG + b"\0" + fingerprint.encode(), hashlib.sha256).digest()

    def verify(self, fingerprint: str, message: bytes, answer: bytes) -> bool:
        """Whether ``answer`` is the HMAC of ``message`` under the voucher for ``fingerprint``."""
        return hmac.compare_digest(voucher_mac(self.voucher(fingerprint), message), answer)
