"""The three commands as a shell runs them (issue 13, defect 14): their versions, their help,
``python -m aton_tui``, ``aton replay`` into a pipe the reader closed, and a build that warns
of nothing."""

from __future__ import annotations

import email
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from aton import __version__
from protocol.messages import PROTOCOL_VERSION

from .aton.test_record_and_replay import RECORD

ROOT = Path(__file__).resolve().parents[1]
#: The console scripts pyproject.toml installs beside this interpreter.
SCRIPTS = Path(sys.executable).parent


def run(command: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("command", ["aton", "aton-server", "aton-bot"])
def test_every_command_says_its_version_and_the_protocol_it_speaks(command):
    done = run([str(SCRIPTS / command), "--version"])
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"{command} {__version__} (protocol {PROTOCOL_VERSION})\n"


def test_python_dash_m_aton_tui_is_the_aton_command():
    done = run([sys.executable, "-m", "aton_tui", "--version"])
    assert done.returncode == 0 and done.stdout.startswith(f"aton {__version__}")
    done = run([sys.executable, "-m", "aton_tui", "replay", "--help"])
    assert done.returncode == 0 and "usage: aton replay" in done.stdout


def test_every_option_of_the_server_says_what_it_does():
    server_help = " ".join(run([sys.executable, "-m", "server.cli", "--help"]).stdout.split())
    assert "--log-level {debug,info,warning,error} how much the log on standard error says" in server_help
    export_help = " ".join(run([sys.executable, "-m", "server.cli", "export", "--help"]).stdout.split())
    assert "--db PATH the server's database" in export_help
    assert "--out DIR the directory to write game-<id>.json into" in export_help


def test_replay_into_a_pipe_whose_reader_has_gone_ends_quietly(tmp_path):
    """``aton replay --json game.json | head -c 0``: the reader leaves before the line is written."""
    record = tmp_path / "game.json"
    record.write_text(json.dumps(RECORD))
    reader, writer = os.pipe()
    os.close(reader)  # nobody will ever read: the first write fails with EPIPE
    try:
        done = subprocess.run([sys.executable, "-m", "aton_tui", "replay", str(record), "--json"], cwd=ROOT,
                              stdout=writer, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(writer)
    assert done.stderr == ""  # no BrokenPipeError traceback
    assert done.returncode == 0


def test_the_package_builds_without_a_deprecation_warning(tmp_path):
    """A real (isolated) build of the wheel, as ``make`` installs it: setuptools once warned that
    ``project.license`` as a table is deprecated.  Built from a copy, as a build writes beside
    its sources."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source)
    for package in ("aton", "protocol", "server", "bots", "aton_tui"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    done = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path),
                str(source)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "deprecated" not in done.stdout + done.stderr
    [wheel] = tmp_path.glob("*.whl")
    assert wheel.name.startswith(f"aton_tui-{__version__}-")
    with zipfile.ZipFile(wheel) as contents:
        info = f"aton_tui-{__version__}.dist-info"
        metadata = email.message_from_bytes(contents.read(f"{info}/METADATA"))
        assert contents.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    # its own name (the package index's "aton" is another project's), the licence the file states
    assert metadata["Name"] == "aton-tui"
    assert metadata["License-Expression"] == "MIT" and "MIT License" in (ROOT / "LICENSE").read_text()
    # runtime dependencies as ranges, so that it installs beside other software
    runtime = [r for r in metadata.get_all("Requires-Dist", []) if "extra ==" not in r]
    assert runtime and all("==" not in r and "<" in r for r in runtime), runtime
