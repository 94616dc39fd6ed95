"""Everything but a game in a terminal (and the commands ``record`` and ``games``,
test_records_over_ssh.py) is refused: other commands, no terminal, forwarding, SFTP."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest

from server.config import SSHLimits
from server.ssh.commands import REFUSED
from server.ssh.session import GameSession

from .terminal import LOBBY, Terminal, client_children, connect, open_terminal

HOW_TO = "ssh -t"


@pytest.fixture
async def conn(stack):
    conn = await connect(stack.port, "alice", asyncssh.generate_private_key("ssh-ed25519"))
    yield conn
    conn.close()
    await conn.wait_closed()


async def test_a_command_is_refused_in_one_line_and_status_1(stack, conn):
    done = await conn.run("ls -la /", timeout=10)
    assert (done.exit_status, done.stdout, done.stderr) == (1, "", REFUSED + "\n")
    assert client_children() == set()


async def test_a_command_with_a_terminal_is_refused_too(stack, conn):
    _chan, term = await conn.create_session(Terminal, "cat /etc/passwd", term_type="xterm", encoding=None)
    await asyncio.wait_for(term.closed.wait(), 10)
    assert term.exit_status == 1 and REFUSED in term.text() and "root:" not in term.text()


async def test_a_shell_without_a_terminal_gets_it_too(stack, conn):
    _chan, term = await conn.create_session(Terminal, encoding=None)  # no term_type: no PTY
    await asyncio.wait_for(term.closed.wait(), 10)
    assert term.exit_status == 1 and HOW_TO in term.text()
    assert stack.gateway.session_count == 0


async def test_port_forwarding_of_every_kind_is_refused(stack, conn):
    with pytest.raises(asyncssh.ChannelOpenError):  # ssh -L: to the game server behind the gateway
        await conn.open_connection("127.0.0.1", stack.server.port)
    with pytest.raises(asyncssh.ChannelListenError):  # ssh -R
        await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 9)
    with pytest.raises(asyncssh.ChannelOpenError):  # ssh -L with a unix socket
        await conn.open_unix_connection("/run/anything.sock")
    with pytest.raises(asyncssh.ChannelListenError):  # ssh -R with a unix socket
        await conn.forward_remote_path("/tmp/aton-test.sock", "/tmp/x.sock")


async def test_sftp_and_other_subsystems_are_refused(stack, conn):
    with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError)):
        await conn.start_sftp_client()
    with pytest.raises(asyncssh.ChannelOpenError, match="Session request failed"):
        await conn.create_session(Terminal, subsystem="netconf", encoding=None)


async def test_agent_and_x11_forwarding_are_refused(stack, tmp_path):
    conn = await connect(stack.port, "alice", asyncssh.generate_private_key("ssh-ed25519"),
                         agent_forwarding=True, agent_path=str(tmp_path / "agent.sock"))
    try:
        with pytest.raises(asyncssh.ChannelOpenError, match="X11 forwarding request failed"):
            await open_terminal(conn, x11_forwarding=True, x11_display="localhost:9")
        _chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=15)
        [game] = stack.gateway.games
        assert game.chan.get_agent_path() is None
        assert game.chan.get_x11_display() is None
    finally:
        conn.close()
        await conn.wait_closed()


@pytest.fixture
def environments(monkeypatch) -> list[dict[str, str]]:
    """The environment each session the gateway starts holds (what asyncssh kept of the client's)."""
    seen: list[dict[str, str]] = []
    started = GameSession.session_started

    def spy(session: GameSession) -> None:
        assert session.chan is not None
        seen.append(dict(session.chan.get_environment()))
        started(session)

    monkeypatch.setattr(GameSession, "session_started", spy)
    return seen


async def test_environment_variables_are_bounded_in_number(stack, conn, environments):
    env = {f"VAR{i}": "x" * 10 for i in range(200)}
    _chan, term = await conn.create_session(Terminal, "true", env=env, encoding=None)
    await asyncio.wait_for(term.closed.wait(), 10)
    assert term.exit_status == 1 and REFUSED in term.text()
    [kept] = environments
    assert list(kept) == list(env)[:SSHLimits().env_variables]  # the first ones are kept, the rest refused
    assert not conn.is_closed()


async def test_environment_variables_are_bounded_in_size(stack, conn, environments):
    env = {"LANG": "C.UTF-8", **{f"BIG{i}": "x" * 30000 for i in range(8)}, "COLORTERM": "truecolor"}
    _chan, term = await open_terminal(conn, env=env)
    await term.wait_for(LOBBY, timeout=15)  # refused variables do not stop the session
    [kept] = environments
    assert sum(len(k) + len(v) for k, v in kept.items()) <= SSHLimits().env_bytes
    assert kept == {"LANG": "C.UTF-8", "COLORTERM": "truecolor"}  # the small ones still fit
