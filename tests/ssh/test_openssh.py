"""Smoke test with OpenSSH's own client in a real terminal (tmux): log in, see the lobby, quit."""

from __future__ import annotations

import asyncio
import os
import shutil
import time

import asyncssh
import pytest

from .terminal import client_children

pytestmark = pytest.mark.skipif(not (shutil.which("ssh") and shutil.which("tmux")),
                                reason="needs OpenSSH's ssh and tmux (.ci/run installs them)")


async def tmux(sock: str, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec("tmux", "-L", sock, *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")


async def screen_until(sock: str, target: str, text: str, timeout: float = 20) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        _code, screen = await tmux(sock, "capture-pane", "-p", "-t", target)
        if text in screen:
            return screen
        await asyncio.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the pane shows:\n{screen}")


@pytest.mark.parametrize("with_key", [True, False], ids=["key", "guest"])
async def test_openssh_in_tmux_logs_in_sees_the_lobby_and_quits(stack, tmp_path, with_key):
    sock, name = f"aton-ssh-{os.getpid()}-{with_key:d}", "smoke"
    target = f"{name}:"
    command = ["ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "LogLevel=ERROR", "-o", "IdentityAgent=none", "-p", str(stack.port)]
    if with_key:
        key_file = tmp_path / "id_ed25519"
        asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(key_file))
        key_file.chmod(0o600)
        command += ["-i", str(key_file), "-o", "IdentitiesOnly=yes", "-o", "PreferredAuthentications=publickey"]
    else:
        command += ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=keyboard-interactive"]
    command.append("olive@127.0.0.1")
    code, out = await tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "100", "-y", "30",
                           " ".join(command))
    assert code == 0, out
    try:
        await screen_until(sock, target, "lobby of this server")
        await screen_until(sock, target, "olive")  # in the players online
        [game] = stack.gateway.games
        assert game.link.identity.guest is not with_key
        assert game.size[:2] == (100, 30)
        await tmux(sock, "send-keys", "-t", target, "C-q")
        end = time.monotonic() + 10
        while (await tmux(sock, "has-session", "-t", target))[0] == 0:  # ssh ended, and its window with it
            assert time.monotonic() < end, "ssh did not end after the client quit"
            await asyncio.sleep(0.1)
        await stack.settled()
        assert client_children() == set()
    finally:
        await tmux(sock, "kill-server")
