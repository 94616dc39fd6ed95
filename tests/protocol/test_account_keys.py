"""Account keys (issue 15, point 1): the client's key file, fingerprints as ssh-keygen prints
them, public key lines, and docs/protocol.md's worked example of a proof."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from protocol.account_keys import (
    AccountKey,
    BadKey,
    key_file_name,
    key_fingerprint,
    parse_key_line,
    proof_message,
    verify_signature,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
#: docs/protocol.md's worked example: ann's key (``AccountKey.from_seed(b"ann")``) and the nonce
#: the example server challenged her with.
EXAMPLE_NONCE = bytes.fromhex("eb1a9b260310f45cc83464924db0180534ebfbc0ae29e9e369b785ed297f13fe")


def test_the_worked_example_of_the_docs_is_what_the_code_computes():
    key = AccountKey.from_seed(b"ann")
    message = proof_message(EXAMPLE_NONCE, "aton-server", key.fingerprint)
    signature = key.answer(message)
    docs = DOCS.read_text(encoding="utf-8")
    assert key.public_line in docs and key.fingerprint in docs
    assert f"these {len(message)} bytes" in docs
    assert "".join(docs.split("these 129 bytes (hex, split at the fields):")[1].split("and its")[0].split()) == \
        message.hex()
    assert f"`{signature.hex()[:8]}…{signature.hex()[-8:]}`" in docs
    assert signature.hex() in docs  # the exchange's prove
    assert verify_signature(key.public_line, message, signature)
    assert not verify_signature(key.public_line, proof_message(bytes(32), "aton-server", key.fingerprint), signature)
    assert not verify_signature(AccountKey.generate().public_line, message, signature)


def test_the_key_file_is_private_in_openssh_format_and_kept(tmp_path):
    path = tmp_path / "keys" / key_file_name("example.org:2866")
    made = AccountKey.load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    again = AccountKey.load_or_create(path)
    assert again.public_line == made.public_line and again.fingerprint == made.fingerprint
    assert key_file_name("example.org:2866") != key_file_name("example.org:2867")
    assert "/" not in key_file_name("local:/home/ann/.local/share/aton/local.db")


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_the_fingerprint_is_the_one_ssh_keygen_prints(tmp_path):
    path = tmp_path / "key"
    key = AccountKey.load_or_create(path)
    public = subprocess.run(["ssh-keygen", "-y", "-f", str(path)], capture_output=True, text=True, check=True)
    assert public.stdout.split()[:2] == key.public_line.split()[:2]
    listed = subprocess.run(["ssh-keygen", "-l", "-f", str(path)], capture_output=True, text=True, check=True)
    assert listed.stdout.split()[1] == key.fingerprint


@pytest.mark.parametrize("line, problem", [
    ("", "a public key line is its type"),
    ("ssh-dss AAAAB3NzaC1kc3M=", "are not accepted"),
    ("ssh-ed25519 not*base64", "not valid base64"),
    ("ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQ==", "is not a ssh-ed25519 key"),
    ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBdC", "not a valid ssh-ed25519 key"),
    ("ssh-ed25519 " + "A" * 2000, "at most"),
])
def test_a_bad_public_key_line_says_what_is_wrong(line, problem):
    with pytest.raises(BadKey, match=problem):
        parse_key_line(line)


def test_a_public_line_with_a_comment_has_the_keys_fingerprint():
    key = AccountKey.generate()
    assert key_fingerprint(key.public_line + " ann@laptop") == key.fingerprint
