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


def test_a_bot_process_killed_mid_game_and_started_again_takes_back_its_game(tmp_path):
    """``aton-bot`` keeps its session in the data directory (one per bot name and server): killed
    in the middle of a game and started again, it plays that game to its end, the server's only
    game, and the game is not lost on time or abandoned."""
    db = str(tmp_path / "bots.db")
    port = free_port()
    server = ServerProcess(db, port=port)
    try:
        ada = bot_process(port, "ada", 1, "--games", "1")
        bob = bot_process(port, "bob", 2, "--games", "1")
        deadline = time.monotonic() + 30
        while moves_stored(db) < 15 and time.monotonic() < deadline:
            time.sleep(0.02)
        ada.kill()
        ada.communicate(timeout=10)
        ada = bot_process(port, "ada", 3, "--games", "1")  # the same name and server: the same directory
        (ada_out, ada_err), (bob_out, bob_err) = ada.communicate(timeout=90), bob.communicate(timeout=90)
    finally:
        assert server.terminate() == 0
    assert ada.returncode == 0, ada_err
    assert bob.returncode == 0, bob_err
    assert ada_out.split(":")[0] == bob_out.split(":")[0] == "game 1", (ada_out, bob_out)
    assert "(abandoned)" not in ada_out and "(time)" not in ada_out, ada_out
    assert f"aton-bot: connected to 127.0.0.1:{port} as ada" in ada_err
    assert "aton-bot: took back game 1" in ada_err
    assert "aton-bot: game 1: playing " in bob_err and " against ada" in bob_err
    assert "aton-bot: game 1: Decks verified" in ada_err  # what it saw before it was killed was kept
    with sqlite3.connect(db) as conn:
        assert [row[0] for row in conn.execute("SELECT status FROM games")] == ["over"]
