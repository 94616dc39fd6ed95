"""The ``aton`` command line: its addresses, its defaults, and a fast ``aton replay``."""

import subprocess
import sys

import pytest

from aton_tui.cli import DEFAULT_PORT, build_parser, host_and_port


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
