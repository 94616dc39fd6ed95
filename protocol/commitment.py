"""Sealed cartouches: a commitment is SHA-256 over a domain tag, the four cards and a nonce.

    digest = SHA-256( b"aton-commit/1" || bytes([c1, c2, c3, c4]) || nonce )

with each card value as one byte (1–4) and a fresh random nonce of 16–64 bytes
(clients use 32).  The server cannot learn the cards from the digest; the opening
(cards + nonce) must reproduce it exactly.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

DOMAIN = b"aton-commit/1"
NONCE_BYTES = 32


def commitment_digest(cards: tuple[int, ...] | list[int], nonce: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + bytes(cards) + nonce).digest()


def seal(cards: tuple[int, ...] | list[int]) -> tuple[bytes, bytes]:
    """(digest, nonce) for a fresh commitment to ``cards``."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    return commitment_digest(cards, nonce), nonce


def opens(digest: bytes, cards: tuple[int, ...] | list[int], nonce: bytes) -> bool:
    """Whether (cards, nonce) is the opening of ``digest``."""
    return hmac.compare_digest(digest, commitment_digest(cards, nonce))
