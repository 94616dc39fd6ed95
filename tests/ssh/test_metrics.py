"""The SSH gateway in the metrics and the log (issue 16, point 4): logins by kind, refusals by
reason, its sessions apart from the game server's TCP ones; asyncssh's INFO lines stay out of
an INFO log."""

from __future__ import annotations

import subprocess
import sys

import asyncssh
import pytest

from ..server.test_operations import scrape
from .terminal import IN_LOBBY, connect, open_terminal
from .test_cli import ROOT

REFUSED = (asyncssh.DisconnectError, ConnectionError)


async def test_logins_refusals_and_sessions_are_counted_and_asyncssh_stays_quiet(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "--port", "0", "--ssh-port", "0", "--metrics-port", "0",
         "--db", str(tmp_path / "aton.db"), "--ssh-max-per-address", "1", "--log-level", "info"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    lines = [proc.stdout.readline() for _ in range(3)]
    assert lines[2].startswith("ssh listening on 127.0.0.1:"), "".join(lines) + proc.stderr.read()
    metrics, ssh_port = lines[1].split()[-1], int(lines[2].rsplit(":", 1)[1])
    try:
        player = await connect(ssh_port, "alice", asyncssh.generate_private_key("ssh-ed25519"))
        with pytest.raises(REFUSED, match="too many connections from your address"):
            await connect(ssh_port, "bob")
        _chan, term = await open_terminal(player)
        await term.wait_for(IN_LOBBY, timeout=20)
        seen = await scrape(metrics)
        assert seen['aton_ssh_logins_total{kind="key"}'] == 1
        assert seen['aton_ssh_refusals_total{reason="too_many_connections_from_your_address"}'] == 1
        # the player's client is a game server session too, but counted as the gateway's
        assert seen['aton_sessions{kind="ssh"}'] == 1 and seen['aton_sessions{kind="tcp"}'] == 0
        assert seen["aton_connections"] == 1
        player.close()
        await player.wait_closed()
        guest = await connect(ssh_port, "carol")  # the address has a place again
        guest.close()
        await guest.wait_closed()
        assert (await scrape(metrics))['aton_ssh_logins_total{kind="guest"}'] == 1
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0
    log = proc.stderr.read()
    assert "alice@127.0.0.1 logged in (SHA256:" in log and "carol@127.0.0.1 logged in (guest)" in log
    assert " asyncssh:" not in log  # its INFO chatter: every connection and channel opened and closed
