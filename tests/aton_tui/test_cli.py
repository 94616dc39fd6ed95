"""The ``aton`` command line: its addresses, its defaults, and a fast ``aton replay``."""

import argparse
import os
import sqlite3
import subprocess
import sys

import pytest

from aton_tui.cli import DEFAULT_PORT, build_parser, host_and_port
from protocol.transport import DEFAULT_TLS_PORT, Endpoint
from server.store import SCHEMA_VERSION


@pytest.mark.parametrize("text, expected", [
    ("example.org", ("example.org", DEFAULT_PORT)),
    ("example.org:2900", ("example.org", 2900)),
    ("192.168.1.5:2866", ("192.168.1.5", 2866)),
    ("[::1]:2900", ("::1", 2900)),
    ("::1", ("::1", DEFAULT_PORT)),
])
def test_connect_takes_a_host_and_an_optional_port(text, expected):
    assert host_and_port(text) == expected


def test_the_name_may_come_before_or_after_the_command():
    parser = build_parser()
    assert parser.parse_args(["--name", "Ada"]).name == "Ada"
    assert parser.parse_args(["connect", "h:1", "--name", "Bea"]).name == "Bea"
    assert parser.parse_args(["--name", "Cy", "host"]).name == "Cy"
    assert parser.parse_args([]).level == "normal"


def test_replay_does_not_import_textual():
    code = "import sys, aton_tui.cli; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_database_of_a_newer_release_is_refused_in_one_line(tmp_path):
    """The built-in server's database was written by a newer release: ``aton`` says so and
    stops (status 1) before any screen opens, with no traceback and the file untouched."""
    database = tmp_path / "aton" / "local.db"
    database.parent.mkdir()
    with sqlite3.connect(database) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = database.read_bytes()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "aton_tui", "--name", "Ada"], capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("aton: ") and "newer release" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert database.read_bytes() == before


def test_connect_takes_a_tls_address_and_an_authority_to_trust():
    args = build_parser().parse_args(["connect", "tls://aton.example.org", "--tls-ca", "ca.pem"])
    assert args.address == Endpoint("aton.example.org", DEFAULT_TLS_PORT, tls=True)
    assert str(args.tls_ca) == "ca.pem"
    with pytest.raises(argparse.ArgumentTypeError, match="a TLS address is for the command line"):
        host_and_port("tls://aton.example.org")  # (the servers screen's typed address)
