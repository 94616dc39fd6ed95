"""Gateways apart from the arbiter (issue 17, point 2), with real parts: an arbiter on a loopback
port and ``aton-server gateway`` processes in front of it, each with its own gateway key that the
arbiter trusts.  A key's player sits down through gateway A; A is killed (SIGKILL) mid-game,
which ends only its own sessions; the same key logs in through gateway B and is back in the same
seat of the same game.  A gateway whose key the arbiter does not trust gets its players nowhere."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from protocol import gateway_assertions
from protocol.gateway_assertions import raw_key_fingerprint
from server.app import ArbiterServer
from server.config import ServerConfig, TLSSettings
from server.connection import Connection
from server.gateway_keys import GATEWAY_KEY_FILE, load_or_create_gateway_key
from server.room import GameSeat, Room
from server.ssh.identity import fingerprint

from ..conftest import GAME_SEED
from ..server.certificates import make_authority, make_server_files
from ..server.test_operations import get, scrape
from .terminal import IN_LOBBY, Terminal, connect, descendants, key_file, open_terminal, openssh, sit_down_against_a_bot
from .test_openssh import screen_until, tmux

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class GatewayProcess:
    proc: subprocess.Popen
    port: int
    key: bytes  # its gateway key's public half, raw

    def descendants(self) -> set[int]:
        """Its processes: fork server or app host, and the clients below them."""
        return descendants(self.proc.pid)


def gateway_key(data_dir: Path) -> bytes:
    """The gateway key of the gateway that will keep its keys in ``data_dir`` (made now, as its first
    start would), raw."""
    return gateway_assertions.public_raw(load_or_create_gateway_key(data_dir / GATEWAY_KEY_FILE))


def start_gateway(arbiter_port: int, data_dir: Path, ssh_sessions: str, arbiter: str = "127.0.0.1:{port}",
                  *options: str) -> GatewayProcess:
    """``aton-server gateway`` in a process of its own, for the arbiter on ``arbiter_port`` (at the
    address ``arbiter`` makes of it), with ``options``."""
    log_file = data_dir.with_name(data_dir.name + ".log")
    log = log_file.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "gateway", "--arbiter", arbiter.format(port=arbiter_port), "--ssh-port",
         "0", "--data-dir", str(data_dir), "--ssh-sessions", ssh_sessions, "--ssh-app-hosts", "1", *options],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    assert proc.stdout is not None
    first, second = proc.stdout.readline(), proc.stdout.readline()
    assert first.startswith("ssh listening on 127.0.0.1:"), first + log_file.read_text()
    public = gateway_key(data_dir)
    assert gateway_assertions.raw_key_line(public) in second  # it says which key the arbiter must trust
    return GatewayProcess(proc, int(first.rsplit(":", 1)[1]), public)


def stop(gateway: GatewayProcess) -> None:
    if gateway.proc.poll() is None:
        gateway.proc.send_signal(signal.SIGTERM)
        try:
            gateway.proc.wait(15)
        except subprocess.TimeoutExpired:
            gateway.proc.kill()
            gateway.proc.wait()


async def gone(pids: set[int], timeout: float = 15) -> None:
    """Wait until none of ``pids`` runs (a zombie waiting for a parent that is not this test's counts as ended)."""
    end = time.monotonic() + timeout
    while True:
        running = {pid for pid in pids if _state(pid) not in ("", "Z")}
        if not running:
            return
        assert time.monotonic() < end, f"still running: {running}"
        await asyncio.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def seat_of_account(server: ArbiterServer, account: int) -> tuple[Room, GameSeat]:
    [(room, seat)] = [(room, seat) for room in server.rooms.values() if not room.game.is_over
                      for seat, held in room.seats.items() if held.account == account]
    return room, seat


async def lobby_through(port: int, name: str, key: asyncssh.SSHKey,
                        ) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Terminal]:
    conn = await connect(port, name, key)
    chan, term = await open_terminal(conn)
    await term.wait_for(IN_LOBBY, timeout=30)
    return conn, chan, term


async def seated_against_a_bot(server: ArbiterServer, port: int) -> tuple[
        asyncssh.SSHKey, tuple[asyncssh.SSHClientConnection, Terminal], int, tuple[Room, GameSeat]]:
    """alice, with a new key, logs in through the gateway on ``port`` and sits down against a bot: her
    key, her connection and terminal, her account (the arbiter's) and her game and seat."""
    alice = asyncssh.generate_private_key("ssh-ed25519")
    conn, chan, term = await lobby_through(port, "alice", alice)
    await sit_down_against_a_bot(chan, term, timeout=30)
    account = server.accounts.by_fingerprint(fingerprint(alice))
    assert account is not None and account.name == "alice"  # the account lives with the arbiter
    return alice, (conn, term), account.id, seat_of_account(server, account.id)


async def lobby_through_game(port: int, key: asyncssh.SSHKey,
                             ) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Terminal]:
    """Log in with ``key`` and wait until the client is back at its table (its seat resumed)."""
    conn = await connect(port, "alice", key)
    chan, term = await open_terminal(conn)
    await term.wait_for("(you)", timeout=30)
    return conn, chan, term


@pytest.fixture
async def arbiter(tmp_path):
    """An arbiter that trusts the gateways keeping their keys in ``tmp_path / "gateway-a"`` and ``"gateway-b"``."""
    trusted = tmp_path / "trusted_gateways"
    trusted.write_text("".join(f"{gateway_assertions.raw_key_line(gateway_key(tmp_path / name))} {name}\n"
                               for name in ("gateway-a", "gateway-b")))
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED,
                                        trusted_gateways=str(trusted)))
    await server.start()
    yield server
    await server.stop()


async def test_a_killed_gateways_player_resumes_the_same_game_through_another(arbiter, tmp_path, ssh_sessions):
    server = arbiter
    gateway_a = start_gateway(server.port, tmp_path / "gateway-a", ssh_sessions)
    gateway_b = start_gateway(server.port, tmp_path / "gateway-b", ssh_sessions)
    try:
        alice, (_conn, term), account, (room, seat) = await seated_against_a_bot(server, gateway_a.port)
        playing = room.seats[seat].participant
        assert isinstance(playing, Connection) and playing.assertion is not None
        assert playing.assertion.gateway == gateway_a.key
        # someone on the other gateway meanwhile
        bob = asyncssh.generate_private_key("ssh-ed25519")
        _bob_conn, bob_chan, bob_term = await lobby_through(gateway_b.port, "bob", bob)

        processes = gateway_a.descendants()
        assert processes, "gateway A runs its sessions' clients below it"
        gateway_a.proc.kill()  # SIGKILL, mid-game: nothing of it says goodbye
        gateway_a.proc.wait()
        await asyncio.wait_for(term.closed.wait(), 15)  # its player's SSH connection ends ...
        await gone(processes)  # ... and its clients with it

        _conn2, _chan2, back = await lobby_through_game(gateway_b.port, alice)
        room_now, seat_now = seat_of_account(server, account)
        assert (room_now.game_id, seat_now) == (room.game_id, seat)  # the same game, the same seat
        resumed = room_now.seats[seat_now].participant
        assert isinstance(resumed, Connection) and resumed.assertion is not None
        assert resumed.assertion.gateway == gateway_b.key
        assert "alice" in back.text()
        # the other gateway's player never noticed: still in the lobby, still answered
        assert not bob_term.closed.is_set()
        since = len(bob_term.output)
        bob_chan.write(b"?")  # the help
        await bob_term.wait_for("Tab", timeout=15, since=since)
    finally:
        stop(gateway_a)
        stop(gateway_b)


async def test_a_gateway_that_loses_the_arbiter_tells_its_players_and_they_are_back_with_it(tmp_path, ssh_sessions):
    trusted = tmp_path / "trusted_gateways"
    trusted.write_text(gateway_assertions.raw_key_line(gateway_key(tmp_path / "gateway-a")) + "\n")
    config = ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED, trusted_gateways=str(trusted))
    server = ArbiterServer(config)
    await server.start()
    gateway = start_gateway(server.port, tmp_path / "gateway-a", ssh_sessions)
    try:
        _alice, (_conn, term), _account, (room, seat) = await seated_against_a_bot(server, gateway.port)
        since, port = len(term.output), server.port
        await server.stop()  # the arbiter goes away (a restart, a network cut): the gateway stays
        await term.wait_for("Reconnecting", timeout=30, since=since)  # the player is told
        server = ArbiterServer(dataclasses.replace(config, port=port))  # and back, on the same port
        await server.start()
        await until(lambda: seated_again(server, room.game_id, seat))
        assert not term.closed.is_set()
    finally:
        stop(gateway)
        await server.stop()


def seated_again(server: ArbiterServer, game_id: int, seat: GameSeat) -> bool:
    room = server.rooms.get(game_id)
    return room is not None and room.seats[seat].participant is not None


async def until(condition: Callable[[], bool], timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "never happened"
        await asyncio.sleep(0.1)


async def test_an_untrusted_gateways_players_are_refused_with_a_clear_line(arbiter, tmp_path):
    stranger = start_gateway(arbiter.port, tmp_path / "gateway-c", "fork")  # its key is in no trust file
    try:
        _conn, _chan, term = await asyncio.wait_for(_terminal(stranger.port), 30)
        await term.wait_for("Disconnected: the gateway key", timeout=30)
        said = f"the gateway key {raw_key_fingerprint(stranger.key)} is not one this server trusts"
        await until(lambda: said in " ".join(term.text().split()), timeout=10)  # (the line may wrap)
        assert not [c for c in arbiter.connections if c.greeted]  # nobody was let in
    finally:
        stop(stranger)


async def _terminal(port: int) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Terminal]:
    conn = await connect(port, "mallory", asyncssh.generate_private_key("ssh-ed25519"))
    chan, term = await open_terminal(conn)
    return conn, chan, term



@pytest.mark.skipif(not (shutil.which("ssh") and shutil.which("tmux")), reason="needs OpenSSH's ssh and tmux")
async def test_openssh_in_tmux_plays_through_a_gateway_apart_and_runs_a_command_there(arbiter, tmp_path):
    gateway = start_gateway(arbiter.port, tmp_path / "gateway-b", "fork")
    sock, name = f"aton-apart-{os.getpid()}", "apart"
    key_path, ssh_key = key_file(tmp_path, "olive")
    try:
        status, out, err = await openssh(gateway.port, key_path, "games")  # asked of the arbiter, as alice
        assert (status, out, err) == (0, b"You have no games on this server yet.\n", "")
        command = ["ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                   "-o", "LogLevel=ERROR", "-o", "IdentityAgent=none", "-o", "IdentitiesOnly=yes", "-i", str(key_path),
                   "-p", str(gateway.port), "olive@127.0.0.1"]
        code, said = await tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "100", "-y", "30",
                                " ".join(command))
        assert code == 0, said
        await screen_until(sock, f"{name}:", "lobby of this server", timeout=30)
        await tmux(sock, "send-keys", "-t", f"{name}:", "b")
        await screen_until(sock, f"{name}:", "Strength", timeout=30)
        await tmux(sock, "send-keys", "-t", f"{name}:", "Enter")
        await screen_until(sock, f"{name}:", "(you)", timeout=30)  # at the table, against the arbiter's bot
        account = arbiter.accounts.by_fingerprint(fingerprint(ssh_key))
        assert account is not None and account.name == "alice"  # the key's account, which its command made
        seat_of_account(arbiter, account.id)
    finally:
        await tmux(sock, "kill-server")
        stop(gateway)


async def test_a_gateway_reaches_the_arbiter_over_tls(tmp_path):
    authority = make_authority(tmp_path)
    files = make_server_files(tmp_path, authority)
    trusted = tmp_path / "trusted_gateways"
    trusted.write_text(gateway_assertions.raw_key_line(gateway_key(tmp_path / "gateway-a")) + "\n")
    tls = TLSSettings(cert_file=str(files.cert_file), key_file=str(files.key_file), port=0)
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED, tls=tls,
                                        trusted_gateways=str(trusted)))
    await server.start()
    assert server.tls_port is not None
    gateway = start_gateway(server.tls_port, tmp_path / "gateway-a", "fork", "tls://localhost:{port}",
                            "--tls-ca", str(authority.cert_file))
    try:
        alice = asyncssh.generate_private_key("ssh-ed25519")
        await lobby_through(gateway.port, "alice", alice)
        await until(lambda: any(c.greeted for c in server.connections), timeout=30)  # (the lobby is drawn first)
        [client] = [c for c in server.connections if c.greeted]
        assert client.assertion is not None and client.assertion.gateway == gateway.key
        assert client.transport is not None and client.transport.get_extra_info("ssl_object") is not None  # TLS
    finally:
        stop(gateway)
        await server.stop()


async def test_a_gateway_serves_its_own_metrics_and_health(arbiter, tmp_path):
    """``aton-server gateway --metrics-port``: the operator of a gateway machine sees its sessions,
    logins and refusals there (the arbiter's metrics count only what reaches the arbiter)."""
    gateway = start_gateway(arbiter.port, tmp_path / "gateway-a", "inprocess", "127.0.0.1:{port}",
                            "--metrics-port", "0", "--ssh-max-per-address", "1")
    try:
        assert gateway.proc.stdout is not None
        said = gateway.proc.stdout.readline()
        assert said.startswith("metrics on http://127.0.0.1:") and said.rstrip().endswith("/metrics"), said
        metrics = said.split()[-1]
        conn, _chan, _term = await lobby_through(gateway.port, "alice", asyncssh.generate_private_key("ssh-ed25519"))
        with pytest.raises((asyncssh.DisconnectError, ConnectionError), match="too many connections from your address"):
            await connect(gateway.port, "bob")
        seen = await scrape(metrics)
        assert seen['aton_ssh_logins_total{kind="key"}'] == 1 and seen['aton_sessions{kind="ssh"}'] == 1
        assert seen['aton_ssh_refusals_total{reason="too_many_connections_from_your_address"}'] == 1
        assert await asyncio.to_thread(get, metrics.replace("/metrics", "/healthz")) == (200, "ok\n")
        conn.close()
        await conn.wait_closed()
    finally:
        stop(gateway)
    assert gateway.proc.returncode == 0
