"""Sealed cartouches: the digest is pinned (bot authors check their code against it),
openings must match exactly, and every seal has a fresh nonce."""

from __future__ import annotations

from itertools import permutations

import pytest

from protocol import messages as m
from protocol.commitment import DOMAIN, NONCE_BYTES, commitment_digest, opens, seal
from protocol.errors import ProtocolError
from protocol.messages import Direction, parse

# The worked example: cards for cartouches 1–4, and a nonce of the bytes 0x00…0x1f.
EXAMPLE_CARDS = [3, 1, 4, 2]
EXAMPLE_NONCE = bytes(range(32))
# The exact bytes hashed: b"aton-commit/1", one byte per card, then the nonce.
EXAMPLE_PREIMAGE = bytes.fromhex(
    "61746f6e2d636f6d6d69742f31"  # "aton-commit/1"
    "03010402"  # cards 3, 1, 4, 2
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"  # nonce
)
EXAMPLE_DIGEST = "0ab2ba824532d2604b94b0e9fe03291452ee06ce4cf538eff271c731fccf9b7d"


def test_worked_example_is_stable():
    assert commitment_digest(EXAMPLE_CARDS, EXAMPLE_NONCE).hex() == EXAMPLE_DIGEST
    assert commitment_digest(tuple(EXAMPLE_CARDS), EXAMPLE_NONCE).hex() == EXAMPLE_DIGEST


def test_worked_example_preimage():
    import hashlib

    assert DOMAIN + bytes(EXAMPLE_CARDS) + EXAMPLE_NONCE == EXAMPLE_PREIMAGE
    assert hashlib.sha256(EXAMPLE_PREIMAGE).hexdigest() == EXAMPLE_DIGEST


def test_opens_accepts_the_true_opening():
    digest = bytes.fromhex(EXAMPLE_DIGEST)
    assert opens(digest, EXAMPLE_CARDS, EXAMPLE_NONCE)
    assert opens(digest, tuple(EXAMPLE_CARDS), EXAMPLE_NONCE)


@pytest.mark.parametrize("nonce", [
    bytes(range(1, 33)),  # another nonce of the same length
    bytes(range(31)),  # a prefix
    bytes(range(32)) + b"\x00",  # an extension
    bytes(32),
    b"",
], ids=["other", "prefix", "extended", "zeros", "empty"])
def test_opens_rejects_a_wrong_nonce(nonce):
    assert not opens(bytes.fromhex(EXAMPLE_DIGEST), EXAMPLE_CARDS, nonce)


def test_opens_rejects_any_other_cards():
    digest = bytes.fromhex(EXAMPLE_DIGEST)
    others = {p for p in permutations([1, 2, 3, 4])} | {(3, 1, 4, 4), (3, 1, 4), (3, 1, 4, 2, 1)}
    others.discard(tuple(EXAMPLE_CARDS))
    for cards in others:
        assert not opens(digest, cards, EXAMPLE_NONCE), cards


def test_only_four_card_openings_are_unambiguous():
    # The preimage has no separators: three cards and a nonce that starts with the fourth
    # hash alike.  Openings stay unambiguous because ``open`` must carry exactly four cards.
    assert commitment_digest(EXAMPLE_CARDS[:3], bytes([2]) + EXAMPLE_NONCE).hex() == EXAMPLE_DIGEST
    with pytest.raises(ProtocolError) as caught:
        parse({"type": "open", "game": 1, "cards": EXAMPLE_CARDS[:3],
               "nonce": bytes([2]) + EXAMPLE_NONCE}, Direction.CLIENT)
    assert caught.value.field == "cards"


def test_opens_rejects_a_wrong_digest():
    digest = bytearray.fromhex(EXAMPLE_DIGEST)
    digest[-1] ^= 1
    assert not opens(bytes(digest), EXAMPLE_CARDS, EXAMPLE_NONCE)
    assert not opens(bytes.fromhex(EXAMPLE_DIGEST)[:31], EXAMPLE_CARDS, EXAMPLE_NONCE)


def test_seal_makes_fresh_32_byte_nonces():
    sealed = [seal(EXAMPLE_CARDS) for _ in range(50)]
    nonces = [nonce for _, nonce in sealed]
    assert NONCE_BYTES == 32
    assert all(isinstance(n, bytes) and len(n) == 32 for n in nonces)
    assert len(set(nonces)) == len(nonces)
    assert len({digest for digest, _ in sealed}) == len(sealed)  # same cards, unlinkable digests
    for digest, nonce in sealed:
        assert len(digest) == 32
        assert digest == commitment_digest(EXAMPLE_CARDS, nonce)
        assert opens(digest, EXAMPLE_CARDS, nonce)
        assert not opens(digest, [2, 1, 4, 3], nonce)


def test_sealed_commitment_fits_the_commit_and_open_messages():
    digest, nonce = seal((4, 4, 1, 2))
    commit = m.Commit(game=5, digest=digest, id=1)
    opening = m.Open(game=5, cards=(4, 4, 1, 2), nonce=nonce, id=2)
    assert parse(commit.to_wire(), Direction.CLIENT) == commit
    assert parse(opening.to_wire(), Direction.CLIENT) == opening
    assert opening.cards is not None and opens(commit.digest, opening.cards, opening.nonce)
