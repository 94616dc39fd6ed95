"""Two aton-bot processes play complete games through an aton-server process, across a server crash
(Aton's games, and Atlas & Zeus's)."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.server.test_crash_safety import ROOT, ServerProcess


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def moves_stored(db: str) -> int:
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def bot_process(port: int, name: str, seed: int, *more: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bots.cli", "--server", f"127.0.0.1:{port}", "--strategy", "random",
         "--games", "2", "--name", name, "--seed", str(seed), *more],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("game", [(), ("--game", "atlas-zeus")], ids=["aton", "atlas-zeus"])
def test_two_bot_processes_finish_their_games_although_the_server_dies_mid_game(tmp_path, game):
    db = str(tmp_path / "bots.db")
    port = free_port()
    server = ServerProcess(db, port=port)
    bots = [bot_process(port, "ada", 1, *game), bot_process(port, "bob", 2, *game)]
    deadline = time.monotonic() + 30
    while moves_stored(db) < 15 and time.monotonic() < deadline:
        time.sleep(0.02)
    server.kill()  # the connections drop in the middle of the first game
    server = ServerProcess(db, port=port)
    try:
        outputs = [bot.communicate(timeout=90) for bot in bots]
    finally:
        assert server.terminate() == 0
    for bot, (out, err) in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, err
        lines = out.strip().splitlines()
        assert len(lines) == 2, out
        assert all(line.startswith("game ") and " against " in line for line in lines)
        assert not any("(abandoned)" in line or "(time)" in line for line in lines), lines
    ada_games = [line.split(":")[0] for line in outputs[0][0].splitlines()]
    bob_games = [line.split(":")[0] for line in outputs[1][0].splitlines()]
    assert ada_games == bob_games  # they played each other, twice
    with sqlite3.connect(db) as conn:
        statuses = [row[0] for row in conn.execute("SELECT status FROM games ORDER BY id")]
    assert statuses == ["over", "over"]
