"""Sealed moves: a commitment is SHA-256 over a domain tag, the move and a nonce.

Aton's cartouches:

    digest = SHA-256( b"aton-commit/1" || bytes([c1, c2, c3, c4]) || nonce )

with each card value as one byte (1–4).  Atlas & Zeus's programming:

    digest = SHA-256( b"atlas-zeus-program/1\n" || text || b"\n" || nonce )

where ``text`` is the programming in slot order as ASCII, ``slot:card`` joined by commas
(``1:transfer,3:crab,6:fog``; cards by their wire names).  The nonce is fresh and random,
16–64 bytes (clients use 32).  The server cannot learn the cards from the digest; the
opening (cards + nonce) must reproduce it exactly.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

DOMAIN = b"aton-commit/1"
PROGRAM_DOMAIN = b"atlas-zeus-program/1\n"
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


def program_text(cards: Sequence[Sequence[int | str]]) -> bytes:
    """An Atlas & Zeus programming's canonical text: ``[[slot, card], ...]`` (a ``program``
    move's ``cards``) in slot order, ``slot:card`` joined by commas."""
    return ",".join(f"{slot}:{card}" for slot, card in sorted((int(s), str(c)) for s, c in cards)).encode()


def program_digest(cards: Sequence[Sequence[int | str]], nonce: bytes) -> bytes:
    return hashlib.sha256(PROGRAM_DOMAIN + program_text(cards) + b"\n" + nonce).digest()


def seal_program(cards: Sequence[Sequence[int | str]]) -> tuple[bytes, bytes]:
    """(digest, nonce) for a fresh commitment to an Atlas & Zeus programming."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    return program_digest(cards, nonce), nonce


def opens_program(digest: bytes, cards: Sequence[Sequence[int | str]], nonce: bytes) -> bool:
    """Whether (programming, nonce) is the opening of ``digest``."""
    return hmac.compare_digest(digest, program_digest(cards, nonce))
