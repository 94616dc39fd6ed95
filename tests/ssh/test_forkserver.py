"""The fork server: what its children are, their exit statuses, its death, its restart, its end.

The first tests drive ``ForkServerSupervisor`` and ``PtyChild`` directly with a probe fork server
(forkserver_probe.py) whose children describe themselves; the others drive real SSH
sessions of the gateway, whose fork server is the real one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path

import asyncssh
import pytest

from protocol.handoff import become_subreaper
from server.config import FORKED_SESSIONS
from server.gateway_keys import Vouch
from server.ssh.forkserver import ForkServerSupervisor, ForkServerUnavailable
from server.ssh.identity import Identity
from server.ssh.session import PtyChild, child_environment, forkserver_environment

from .terminal import (
    LOBBY,
    children_of,
    client_children,
    clients_of,
    connect,
    forkservers_of,
    leaked_fds,
    open_fds,
    open_terminal,
    process_gone,
)
from .test_cli import start_server
from .test_pty_child import Collector as Screen

PROBE = Path(__file__).with_name("forkserver_probe.py")


def pid_of(stack, name: str) -> int:
    [game] = [g for g in stack.gateway.games if g.link.identity.name == name]
    return game.child.pid


def state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


async def ended(pid: int, timeout: float = 15.0) -> None:
    """Wait until ``pid`` has exited (gone, or a zombie that is reaped here if it is ours)."""
    end = time.monotonic() + timeout
    while state(pid) not in ("gone", "Z"):
        assert time.monotonic() < end, f"process {pid} still runs ({state(pid)})"
        await asyncio.sleep(0.05)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


@pytest.fixture
async def probe_server(monkeypatch):
    monkeypatch.setenv("ATON_SERVER_SECRET", "the server's own")  # must reach no client
    server = ForkServerSupervisor(forkserver_environment(), command=[sys.executable, str(PROBE)])
    server.start()
    assert await server.wait_ready(60)
    yield server
    await server.stop()


#: A gateway's word for the player, as the session hands it over (only passed on here, never checked)
VOUCH = Vouch(assertion=b"the gateway's assertion", session_key="the-session-key")


def session_environment(tmp_path: Path, term: str, colorterm: str | None = None) -> dict[str, str]:
    client_env = {"COLORTERM": colorterm} if colorterm else {}
    client_env["LD_PRELOAD"] = "/tmp/evil.so"  # a client may send anything: none of it is passed on
    guest = Identity(name="ann", vouch=VOUCH, resume_token="resume-token-0123456789")
    return child_environment(term, client_env, guest, str(tmp_path))


async def facts_of(child: PtyChild, screen: Screen) -> dict:
    facts = json.loads(await screen.line("FACTS "))
    child.write(b"hello\r")
    assert await screen.line("GOT ") == "hello"
    return facts


async def test_a_forked_child_is_a_fresh_client_with_exactly_its_environment(probe_server, tmp_path):
    fds_before, server_fds_before = open_fds(), open_fds(probe_server.pid)
    env = session_environment(tmp_path, "xterm-256color")
    screen = Screen()
    child = PtyChild((91, 27, 0, 0), screen, lambda blocked: None)
    await child.fork(probe_server, ["7"], env)
    facts = await facts_of(child, screen)
    assert await asyncio.wait_for(child.exited, 10) == 7  # its exit status, from the fork server
    child.close()
    assert not leaked_fds(fds_before, open_fds())
    await ended(child.pid)
    assert open_fds(probe_server.pid) == server_fds_before and probe_server.statuses == {}
    assert b"ATON_SERVER_SECRET" not in Path(f"/proc/{probe_server.pid}/environ").read_bytes()
    assert facts["environ"] == env  # exactly: nothing of the server's, nothing else of the client's
    assert facts["ppid"] == probe_server.pid and facts["pid"] == child.pid and facts["name"] == "aton-client"
    assert facts["sid"] == facts["pgid"] == child.pid and facts["tty"] and facts["foreground"]
    assert facts["size"] == [91, 27] and facts["isatty"] == [True, True, True]
    assert facts["fds"] == [0, 1, 2]  # the fork server's socket and pipes are closed
    assert facts["rich"] == facts["textual"] == "256"
    assert facts["argv"] == ["7"] and facts["tempdir"] == str(tmp_path)

    # the same probe as a new interpreter (the fallback): the same process, but for its pids
    screen = Screen()
    child = PtyChild((91, 27, 0, 0), screen, lambda blocked: None)
    child.spawn([sys.executable, str(PROBE), "--describe", "5"], env)
    fresh = await facts_of(child, screen)
    assert await asyncio.wait_for(child.exited, 20) == 5
    child.close()
    for key in ("environ", "size", "fds", "signals", "rich", "textual", "isatty", "tempdir", "tty", "foreground"):
        assert facts[key] == fresh[key], key


@pytest.mark.parametrize("term, colorterm, expected", [
    ("xterm", None, "standard"), ("xterm-256color", "truecolor", "truecolor"), ("vt100", None, "standard"),
])
async def test_the_colours_come_from_the_session_terminal(probe_server, tmp_path, term, colorterm, expected):
    screen = Screen()
    child = PtyChild((80, 24, 0, 0), screen, lambda blocked: None)
    await child.fork(probe_server, ["0"], session_environment(tmp_path, term, colorterm))
    facts = await facts_of(child, screen)
    assert facts["environ"]["TERM"] == term and (facts["rich"], facts["textual"]) == (expected, expected)
    assert await asyncio.wait_for(child.exited, 10) == 0
    child.close()


async def test_terminate_kills_a_forked_child_and_the_status_says_so(probe_server, tmp_path):
    screen = Screen()
    child = PtyChild((80, 24, 0, 0), screen, lambda blocked: None)
    await child.fork(probe_server, ["0"], session_environment(tmp_path, "xterm"))
    await screen.line("FACTS ")  # it waits for a line now
    assert await child.terminate() == -signal.SIGTERM
    child.close()
    await ended(child.pid)
    assert probe_server.statuses == {}


async def test_children_outlive_a_killed_fork_server_and_still_report_their_status(probe_server, tmp_path):
    become_subreaper()  # as the gateway is: the orphans of a dead fork server become ours
    screen = Screen()
    child = PtyChild((80, 24, 0, 0), screen, lambda blocked: None)
    await child.fork(probe_server, ["9"], session_environment(tmp_path, "xterm"))
    await screen.line("FACTS ")
    first = probe_server.pid
    os.kill(first, signal.SIGKILL)
    await ended(first)
    end = time.monotonic() + 10
    while not (probe_server.available and probe_server.pid != first):  # restarted at once
        assert time.monotonic() < end, "the fork server was not restarted"
        await asyncio.sleep(0.02)
    assert state(child.pid) not in ("gone", "Z") and not child.exited.done()  # the session goes on
    child.write(b"still here\r")
    assert await screen.line("GOT ") == "still here"
    assert await asyncio.wait_for(child.exited, 10) == 9  # waited for here: it is our child now
    child.close()
    assert process_gone(child.pid)
    # and the new fork server serves the next one
    assert await probe_server.wait_ready(60) and probe_server.starts == 2
    screen = Screen()
    child = PtyChild((80, 24, 0, 0), screen, lambda blocked: None)
    await child.fork(probe_server, ["0"], session_environment(tmp_path, "xterm"))
    assert json.loads(await screen.line("FACTS "))["ppid"] == probe_server.pid
    child.write(b"\r")
    assert await asyncio.wait_for(child.exited, 10) == 0
    child.close()


async def test_without_a_fork_server_a_request_fails_and_leaves_a_fresh_terminal(tmp_path):
    broken = ForkServerSupervisor(forkserver_environment(), command=[sys.executable, "-c", "raise SystemExit(3)"])
    broken.start()
    screen = Screen()
    child = PtyChild((80, 24, 0, 0), screen, lambda blocked: None)
    with pytest.raises(ForkServerUnavailable):
        await child.fork(broken, ["0"], {"PATH": os.defpath})
    assert child.pid == 0 and not child.exited.done()
    child.spawn(["/bin/sh", "-c", "stty size; exit 4"], {"PATH": os.defpath})  # the fallback
    assert await asyncio.wait_for(child.exited, 10) == 4
    child.drain()
    assert b"24 80" in screen.data
    child.close()
    end = time.monotonic() + 10
    while broken.starts < 2:  # it keeps being restarted, later and later
        assert time.monotonic() < end
        await asyncio.sleep(0.05)
    await broken.stop()
    assert broken.failures >= 1 and not broken.available


# ---------------------------------------------------------------------- with the gateway


@pytest.mark.parametrize("ssh_sessions", [FORKED_SESSIONS])
async def test_sessions_survive_a_killed_fork_server_and_new_ones_start(stack_factory, tmp_path):
    fds_before = open_fds()
    stack = await stack_factory()
    first = await stack.forkserver_ready()
    conn_a = await connect(stack.port, "ann", asyncssh.generate_private_key("ssh-ed25519"))
    chan_a, term_a = await open_terminal(conn_a)
    await term_a.wait_for(LOBBY, timeout=15)
    [pid_a] = stack.gateway.child_pids()

    os.kill(first, signal.SIGKILL)
    await ended(first)
    # the session goes on
    mark = len(term_a.output)
    chan_a.write(b"b")
    await term_a.wait_for("Strength", since=mark)
    chan_a.write(b"\x1b")
    # a login now is served (by a new interpreter, or by the restarted fork server)
    conn_b = await connect(stack.port, "bea", asyncssh.generate_private_key("ssh-ed25519"))
    _chan_b, term_b = await open_terminal(conn_b)
    await term_b.wait_for(LOBBY, timeout=15)
    # and once the new fork server is ready, logins are forked again
    second = await stack.forkserver_ready()
    assert second != first
    conn_c = await connect(stack.port, "cid", asyncssh.generate_private_key("ssh-ed25519"))
    _chan_c, term_c = await open_terminal(conn_c)
    await term_c.wait_for(LOBBY, timeout=15)
    assert pid_a in children_of(os.getpid())  # adopted: the gateway is a subreaper
    assert pid_of(stack, "cid") in children_of(second)

    # the orphaned session's exit status still reaches its player
    chan_a.write(b"\x11")
    await asyncio.wait_for(term_a.closed.wait(), 10)
    assert term_a.exit_status == 0
    for conn in (conn_a, conn_b, conn_c):
        conn.close()
        await conn.wait_closed()
    await stack.settled()
    assert client_children() == set() and process_gone(pid_a) and process_gone(first)
    await stack.stop()
    assert process_gone(second)  # a stopping gateway ends its fork server and reaps it
    assert not leaked_fds(fds_before, open_fds())


async def test_the_fork_server_ends_when_the_gateway_is_killed(tmp_path):
    become_subreaper()  # the orphaned fork server comes to us: we see it end and reap it
    proc, _, ssh_port = start_server(tmp_path / "aton.db", "--ssh-sessions", FORKED_SESSIONS)
    try:
        conn = await connect(ssh_port, "kim", asyncssh.generate_private_key("ssh-ed25519"))
        _chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=20)
        [server] = forkservers_of(proc.pid)
        [client] = clients_of(proc.pid)
        assert client in clients_of(server)
        proc.kill()  # SIGKILL: the gateway cleans up nothing
        await asyncio.get_running_loop().run_in_executor(None, proc.wait, 15)
        await ended(server)  # PR_SET_PDEATHSIG, or the end of its socket
        await ended(client)  # ended by the fork server (or by the hang-up of its terminal)
        conn.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
