"""``aton`` in a real terminal: tmux runs it at 80×24, we read the screen, play a card, and quit."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One tmux server of our own (private socket), one session, one window."""

    def __init__(self, command: str, width: int = 80, height: int = 24) -> None:
        self.socket = f"aton-test-{uuid.uuid4().hex[:8]}"
        self.target = "aton:"  # "NAME:" so that tmux never matches another session by prefix
        self.run("new-session", "-d", "-s", "aton", "-x", str(width), "-y", str(height), command)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.target).stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", self.target, key)
            time.sleep(0.2)

    def wait_for(self, *texts: str, timeout: float = 60.0) -> str:
        """The screen, as soon as one of ``texts`` is on it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if any(text in screen for text in texts):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"none of {texts!r} showed; the screen was:\n{self.screen()}")

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.target).returncode == 0

    def kill(self) -> None:
        self.run("kill-server")


def aton_command(tmp_path, arguments: str) -> str:
    """``aton ARGUMENTS`` as a new user with a home of their own (no settings yet) runs it."""
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm-256color"}
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"cd {shlex.quote(os.getcwd())} && env {assignments} {shlex.quote(sys.executable)} -m aton_tui.cli " \
           f"{arguments}"


@pytest.fixture
def terminal(tmp_path):
    """``aton`` started for the first time: it offers the lesson, and the new user plays the bot (p)."""
    tmux = Tmux(aton_command(tmp_path, "--level random --name Smoke"))
    tmux.wait_for("New to Aton?")
    tmux.keys("p")
    yield tmux
    tmux.kill()


def test_aton_starts_a_game_in_a_real_terminal_and_quits(terminal, tmp_path):
    screen = terminal.wait_for("Put one card on each of your four cartouches")
    for part in ("ATON", "Round 1", "Temple 1", "Temple 4", "Kingdom of the Dead", "Hand", "C1 points",
                 "Smoke (you)", "Bot (random)"):
        assert part in screen, part
    assert all(len(line) <= 80 for line in screen.splitlines())
    hand = next(line for line in screen.splitlines() if line.startswith(" Hand")).split()[1:5]
    terminal.keys(*hand[:3], "Enter")
    # the cartouches are open: one of us places (or removes) stones now
    terminal.wait_for("▶ Place", "is placing stones", "is removing stones")
    terminal.keys("C-q")
    deadline = time.monotonic() + 10
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not terminal.alive(), "aton did not quit on Ctrl+Q"
    assert (tmp_path / "data" / "aton" / "local.db").exists()  # the private database, in the user's data dir


def test_the_terminal_title_says_whose_move_it_is(terminal):
    """The title a real terminal shows (tmux's pane title, set by OSC 2) follows the game."""
    terminal.wait_for("Put one card on each of your four cartouches")
    deadline = time.monotonic() + 10
    title = ""
    while time.monotonic() < deadline and title != "Aton · your move":
        title = terminal.run("display-message", "-p", "-t", terminal.target, "#{pane_title}").stdout.strip()
        time.sleep(0.2)
    assert title == "Aton · your move"


def test_aton_learn_shows_the_lesson_and_escape_leaves_it_saying_how_to_come_back(tmp_path):
    """``aton learn`` in a real terminal: the first step, said whole at 80×24; Esc ends the program
    with status 0 and the way back on the terminal."""
    tmux = Tmux(aton_command(tmp_path, "--name Smoke learn") + "; echo status=$?; sleep 30")
    try:
        screen = tmux.wait_for("Type 4 1 2 3")
        assert "Lesson" in screen and "Welcome! You are Red" in screen and "esc Leave" in screen
        assert all(len(line) <= 80 for line in screen.splitlines())
        tmux.keys("Escape")
        screen = tmux.wait_for("status=")
        assert "status=0" in screen and "aton learn" in screen and "starts it again" in screen
        assert not (tmp_path / "data" / "aton" / "local.db").exists()  # the lesson needs no server
    finally:
        tmux.kill()
