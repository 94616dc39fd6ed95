"""Moderation over SSH (issue 15, point 5): a banned key's account or a banned address gets one
line and the connection closes; a ban made while a player is logged in ends their session within
the server's polling time (on the server's own clock, moved by the test); logins over SSH are
listed by ``aton-server admin``."""

from __future__ import annotations

import asyncio
import json
import shutil

import asyncssh
import pytest

from server.cli import main as server_main
from server.config import ServerConfig, SSHLimits

from ..manual_clock import ManualClock
from .terminal import LOBBY, Stack, connect, open_terminal
from .test_records_over_ssh import key_file

POLL = ServerConfig.moderation_poll_seconds


def admin(stack: Stack, *args: str) -> None:
    assert server_main(["admin", *args, "--db", stack.db]) == 0


async def refused(port: int, **options) -> tuple[str, int | None]:
    """Log in and ask for a terminal; what the session said and its exit status, once the
    server closed the connection."""
    conn = await connect(port, **options)
    _chan, term = await open_terminal(conn)
    await asyncio.wait_for(term.closed.wait(), 10)
    await asyncio.wait_for(conn.wait_closed(), 10)
    return term.text(), term.exit_status


async def test_a_banned_keys_account_gets_one_line_and_the_connection_closes(stack):
    key = asyncssh.generate_private_key("ssh-ed25519")
    stack.server.accounts.create("mallory", "human", fingerprint=key.get_fingerprint("sha256"))
    admin(stack, "ban", "mallory", "--reason", "cheating", "--for", "7d")

    text, status = await refused(stack.port, username="mallory", key=key)
    assert text.startswith("You are banned from this server (reason: cheating) until 20") and text.endswith(" UTC.\r\n")
    assert status == 1
    other = await connect(stack.port, username="ann", key=asyncssh.generate_private_key("ssh-ed25519"))
    _, term = await open_terminal(other)
    await term.wait_for(LOBBY, timeout=20)  # another key from the same address plays
    other.close()

    admin(stack, "unban", "mallory")
    again = await connect(stack.port, username="mallory", key=key)
    _chan, term = await open_terminal(again)
    await term.wait_for(LOBBY, timeout=20)
    again.close()
    await stack.settled(10)


async def test_a_banned_address_gets_one_line_whether_guest_or_key(stack):
    admin(stack, "ban", "127.0.0.2")
    for options in ({}, {"key": asyncssh.generate_private_key("ssh-ed25519")}):
        text, status = await refused(stack.port, username="mallory", local_addr=("127.0.0.2", 0), **options)
        assert (text, status) == ("You are banned from this server.\r\n", 1)
    assert not stack.gateway.games  # no client was ever started
    await stack.settled(10)


async def test_a_ban_ends_a_live_ssh_session_within_the_polling_time(stack_factory):
    clock = ManualClock()
    stack = await stack_factory(server_clock=clock)
    conn = await connect(stack.port, username="mallory", local_addr=("127.0.0.2", 0))
    _chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=20)
    admin(stack, "ban", "127.0.0.0/30", "--reason", "spam")
    clock.advance(POLL * 0.9)
    await asyncio.sleep(0.2)
    assert not term.closed.is_set()

    since = len(term.output)
    clock.advance(POLL * 0.1)
    await asyncio.wait_for(term.closed.wait(), 10)
    assert "You are banned from this server (reason: spam)." in term.text(since)
    assert term.exit_status == 1
    await stack.settled(10)


async def test_logins_over_ssh_are_listed_with_their_address_and_account(stack, capsys):
    key = asyncssh.generate_private_key("ssh-ed25519")
    stack.server.accounts.create("ann", "human", fingerprint=key.get_fingerprint("sha256"))
    for options in ({"username": "ann", "key": key}, {"username": "ben", "local_addr": ("127.0.0.3", 0)}):
        conn = await connect(stack.port, **options)
        _chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=20)
        conn.close()
    await stack.settled(10)
    capsys.readouterr()
    admin(stack, "logins", "--json")
    logins = json.loads(capsys.readouterr().out)
    ssh = [(e["name"], e["account"], e["address"]) for e in logins if e["via"] == "ssh"]
    assert ssh == [("ben", None, "127.0.0.3"), ("ann", "ann", "127.0.0.1")]
    assert not [e for e in logins if e["name"] == "ann" and e["via"] == "native"]  # its client, vouched for


@pytest.mark.skipif(not shutil.which("ssh"), reason="needs OpenSSH's ssh (.ci/run installs it)")
async def test_a_banned_login_that_asks_for_no_session_is_refused_at_once_not_at_the_login_time_out(
        stack_factory, tmp_path):
    """``ssh -N`` (no session, where the ban's line would be said): the gateway does not keep it for
    its login time-out (30 s) but disconnects it with the line as soon as it asked for none."""
    clock = ManualClock()  # the gateway's: its time-outs move only with the test
    stack = await stack_factory(fork_server=False, clock=clock)
    path, key = key_file(tmp_path, "mallory")
    stack.server.accounts.create("mallory", "human", fingerprint=key.get_fingerprint("sha256"))
    admin(stack, "ban", "mallory", "--reason", "cheating")
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-N", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "LogLevel=INFO", "-o", "IdentityAgent=none", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
        "-o", "PreferredAuthentications=publickey", "-i", str(path), "-p", str(stack.port), "mallory@127.0.0.1",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    for _ in range(500):  # until the gateway has authenticated it (and found the ban)
        if any(link.banned is not None for link in stack.gateway.links):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the banned login never authenticated")
    assert SSHLimits().banned_session_wait < SSHLimits().login_timeout
    clock.advance(SSHLimits().banned_session_wait)
    _out, err = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 255
    assert "You are banned from this server (reason: cheating)." in err.decode()
    await stack.settled(10)
