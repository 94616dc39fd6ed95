"""A real SSH session: key login, the lobby, a bot game, a move, a resize, and nothing left behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import asyncssh
import pytest

from protocol import handoff
from server.config import FORKED_SESSIONS, INPROCESS_SESSIONS
from server.ssh.session import forkserver_environment

from .terminal import (
    LOBBY,
    client_children,
    connect,
    leaked_fds,
    open_fds,
    open_terminal,
    process_gone,
    wait_for_extent,
)

SIGHUP_BIT = 1 << (signal.SIGHUP - 1)


def proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def session_and_tty(pid: int) -> tuple[int, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[3]), int(fields[4])  # session id, controlling tty


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def environ(pid: int) -> dict[str, str]:
    """The environment /proc shows: the one the process's last exec left."""
    items = Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0")
    return dict(item.split("=", 1) for item in items if item)


def my_seat_moved(store, game: int, seat, room) -> bool:
    """The server holds a commitment of this seat, or has applied one of its moves.

    (Through the server's own connection: a second SQLite connection in this process
    would keep a descriptor open until the first one closes, by SQLite's design.)"""
    if seat in room.seals:
        return True
    query = "SELECT COUNT(*) FROM moves WHERE game = ? AND seat = ?"
    return store.db.execute(query, (game, str(seat))).fetchone()[0] > 0


def check_forked_or_spawned(stack, pid: int, fork_server: bool) -> None:
    """The session's client is a process of its own, fresh, with nothing of the server's."""
    assert client_children() == {pid}
    sid, tty = session_and_tty(pid)
    assert sid == pid and tty != 0  # its own session, with the PTY as controlling terminal
    assert not int(proc_status(pid)["SigIgn"], 16) & SIGHUP_BIT
    env = environ(pid)
    if fork_server:
        assert parent_of(pid) == stack.gateway.forkserver.pid
        # /proc shows the environment exec left: for a forked child, the fork server's own,
        # which has nothing of this process's; the session's (TERM, the resume token) is set
        # in the child after the fork (test_forkserver.py reads it from inside), and the
        # 256 colours above show that TERM arrived
        assert env == forkserver_environment()
    else:
        assert parent_of(pid) == os.getpid()
        assert env["TERM"] == "xterm-256color" and "COLORTERM" not in env
        # a key's session is the game server's to derive: its client is handed the gateway's word, no token
        assert handoff.ASSERTION_VARIABLE in env and handoff.SESSION_KEY_VARIABLE in env
        assert handoff.RESUME_VARIABLE not in env


@pytest.mark.parametrize(("ssh_sessions", "fork_server"), [(FORKED_SESSIONS, True), (FORKED_SESSIONS, False),
                                                         (INPROCESS_SESSIONS, False)],
                         ids=["forked", "spawned", "inprocess"])
async def test_a_key_login_plays_a_bot_resizes_and_leaves_nothing_behind(stack_factory, ssh_sessions, fork_server):
    stack = await stack_factory(fork_server=fork_server)
    hosts = stack.gateway.app_hosts
    if hosts is not None:
        assert await hosts.wait_ready()
        host_fds = open_fds(hosts.pids[0])
    if fork_server:
        await stack.forkserver_ready()  # or the session could be spawned instead, if it took long
        forkserver_fds = open_fds(stack.gateway.forkserver.pid)
    fds_before = open_fds()
    key = asyncssh.generate_private_key("ssh-ed25519")
    # a server started with nohup ignores SIGHUP: its players' clients must not inherit that
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        conn = await connect(stack.port, "alice", key)
        chan, term = await open_terminal(conn, size=(100, 30))
        first_frame = await term.wait_for(LOBBY, timeout=15)
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert "lobby of this server" in term.text()
    await term.wait_for("alice")  # in the players online
    assert b"\x1b[38;5;" in term.output  # colours, 256 of them for xterm-256color
    assert b"38;2;" not in term.output  # and no truecolor, which the terminal did not announce
    await wait_for_extent(term, (100, 30))

    [pid] = stack.gateway.child_pids()
    if hosts is not None:  # an app in the app host: no process of its own
        assert client_children() == set() and pid == hosts.pids[0]
        assert handoff.ASSERTION_VARIABLE not in environ(pid)  # the session's environment is its app's alone
        assert handoff.SESSION_KEY_VARIABLE not in environ(pid)
    else:
        check_forked_or_spawned(stack, pid, fork_server)

    # b: the bot dialog; Enter: start with its defaults
    chan.write(b"b")
    await term.wait_for("Strength")
    mark = len(term.output)
    chan.write(b"\r")
    await term.wait_for("(you)", since=mark)
    await term.wait_for("Card", since=mark)
    [room] = [r for r in stack.server.rooms.values() if any(s.name == "alice" for s in r.seats.values())]
    seat = next(name for name, s in room.seats.items() if s.name == "alice")

    # a move: put cards on the four cartouches (1-4 puts a value; three passes fill any hand), seal.
    # Keys that come while the opening's playback runs may only jump to its end (the seal does):
    # the cards and the seal go again each second until the commitment is there.
    end = time.monotonic() + 10
    while not my_seat_moved(stack.server.store, room.game_id, seat, room):
        assert time.monotonic() < end, "the commitment never reached the server:\n" + term.text()[-2000:]
        chan.write(b"1234" * 3)
        await asyncio.sleep(0.3)
        chan.write(b"\r")
        for _ in range(20):
            if my_seat_moved(stack.server.store, room.game_id, seat, room):
                break
            await asyncio.sleep(0.05)

    # a resize re-lays the screen out at once, at the new size
    mark = len(term.output)
    chan.change_terminal_size(120, 40)
    await wait_for_extent(term, (120, 40), since=mark)

    # closing the connection ends the client and frees everything
    conn.close()
    await conn.wait_closed()
    await stack.settled()
    assert process_gone(pid) == (hosts is None)
    assert client_children() == set()
    assert stack.gateway.session_count == 0
    assert stack.gateway.by_fingerprint == {}
    assert not leaked_fds(fds_before, open_fds())
    if hosts is not None:  # nothing in the app host either
        assert hosts.hosts[0].clients == {} and open_fds(pid) == host_fds
    if fork_server:  # and nothing in the fork server either
        assert open_fds(stack.gateway.forkserver.pid) == forkserver_fds and stack.gateway.forkserver.statuses == {}
    # the seat is kept for the player's return
    assert room.seats[seat].participant is None and not room.game.is_over
    print(f"first frame {first_frame:.2f}s")


async def test_quitting_the_client_ends_the_ssh_session_with_its_status(stack):
    conn = await connect(stack.port, "bob", asyncssh.generate_private_key("ssh-ed25519"))
    # a terminal that says it has 24-bit colour (ssh -o SendEnv=COLORTERM) gets it
    chan, term = await open_terminal(conn, env={"COLORTERM": "truecolor", "LD_PRELOAD": "/tmp/evil.so"})
    await term.wait_for(LOBBY, timeout=15)
    [pid] = stack.gateway.child_pids()  # its own process, or its app host
    assert "LD_PRELOAD" not in environ(pid)
    await term.wait_for("bob")
    assert b"38;2;" in term.output  # COLORTERM reached the (forked) client
    chan.write(b"\x11")  # ctrl+q
    await asyncio.wait_for(term.closed.wait(), 10)
    assert term.exit_status == 0
    assert term.output.endswith(b"\x1b[?25h")  # the terminal put back as it was
    conn.close()
    await conn.wait_closed()
    await stack.settled()
    assert process_gone(pid) == (stack.gateway.app_hosts is None)
