"""Web sign-in codes: how an account holder signs a browser in without a key in it.

A player logged in with a key (over SSH, or a native client that proved its key) asks for a
code (``ssh HOST web-login``, or the client's Account screen, ``get_web_login``); the web
gateway's page opened with it (``URL/?code=CODE``) runs that browser's client as the player
of that key, with the gateway's assertion of that key (``server.gateway_keys``), as the SSH gateway does.
A code is worth one sign-in, for ``WebLimits.login_code_seconds``; the server keeps only its
SHA-256, in memory (a restart spends every code).  The codes live with the arbiter, which makes
them: a web gateway beside it redeems a code here before the browser's client starts; one apart
from it passes the code on in its assertion of the browser's player, for the arbiter to redeem
when that client says hello (``protocol.gateway_assertions``).  Making codes is rate-limited per key, and
wrong or spent codes per address, so that nobody can try codes by the thousand.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from protocol.errors import ErrorCode, ProtocolError
from protocol.gateway_assertions import CODE_CHARS

from .config import WebLimits
from .rates import BucketsByKey

NO_WEB = "this server does not serve the game in a web browser"  # the answer where no page is known
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 letters and digits, none that looks like another
GROUPS, GROUP_CHARS = 3, 4  # XXXX-XXXX-XXXX: 60 bits
CODE_PATTERN = f"[A-Za-z0-9-]{{1,{CODE_CHARS}}}"  # what the gateway's routes accept as a code at all


@dataclass(frozen=True)
class Grant:
    """Whom a redeemed code signs in: the key's fingerprint, and the name its player had."""

    fingerprint: str
    name: str


@dataclass(frozen=True)
class Issued:
    """A code made for a player: the code, the link that carries it, and for how many seconds it is good."""

    code: str
    link: str
    seconds: float


def _digest(code: str) -> bytes:
    """The code as it is stored: its letters (any case, dashes and spaces ignored), hashed."""
    letters = "".join(code.split()).replace("-", "").upper()
    return hashlib.sha256(letters.encode()).digest()


class WebLogins:
    """The codes of one web gateway, whose page is ``url``."""

    def __init__(self, limits: WebLimits, url: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.url = url.rstrip("/")
        self.host = urlsplit(self.url).hostname or self.url  # the page's host, most likely the SSH gateway's too
        self.clock = clock
        self._codes: dict[bytes, tuple[Grant, float]] = {}  # digest -> (grant, expiry)
        self._made = BucketsByKey(1 / limits.login_code_refill_seconds, limits.login_codes_per_account, clock)
        self._failed = BucketsByKey(1 / limits.failed_login_refill_seconds, limits.failed_logins_per_address, clock)

    def issue(self, fingerprint: str, name: str) -> Issued:
        """A new code for the player of the key ``fingerprint``; ProtocolError when they made too many lately."""
        if self._made.empty(fingerprint):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many web sign-in codes lately: try again in a minute")
        self._made.take(fingerprint)
        self._sweep()
        letters = "".join(secrets.choice(ALPHABET) for _ in range(GROUPS * GROUP_CHARS))
        code = "-".join(letters[i:i + GROUP_CHARS] for i in range(0, len(letters), GROUP_CHARS))
        self._codes[_digest(code)] = (Grant(fingerprint, name), self.clock() + self.limits.login_code_seconds)
        return Issued(code, f"{self.url}/?code={code}", self.limits.login_code_seconds)

    def redeem(self, code: str, address: str) -> Grant | None:
        """The grant of ``code``, spent now; None if it is wrong, spent or expired, or if
        ``address`` offered too many such codes lately (then even a good one is kept for later)."""
        if self._failed.empty(address):
            return None
        entry = self._codes.pop(_digest(code), None)
        if entry is None or entry[1] <= self.clock():
            self._failed.take(address)
            return None
        return entry[0]

    def refusal(self) -> str:
        """What a browser whose code is wrong, spent or expired is told."""
        return ("That sign-in link is spent or has expired (each works once, for a few minutes). "
                "Get a new one from your game client's Account screen, or by adding web-login to your ssh "
                f"command (ssh {self.host} web-login, with your usual port), or open {self.url}/ to play as a guest.")

    def __len__(self) -> int:
        return len(self._codes)

    def _sweep(self) -> None:
        now = self.clock()
        self._codes = {digest: entry for digest, entry in self._codes.items() if entry[1] > now}
