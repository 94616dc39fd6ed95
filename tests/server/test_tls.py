"""TLS: the arbiter's TLS port, and the clients that use it (``aton connect tls://``, ``aton-bot``).

Every test makes its own certificate authority and a server certificate it signs
(``certificates``), and runs a real server on 127.0.0.1 with both its plain and its TLS
port on free ports.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from aton_tui.session import Session, Status
from bots.cli import main as bot_main
from bots.network import Backoff, NetworkBot
from bots.strategy import make_strategy
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.transport import DEFAULT_PORT, DEFAULT_TLS_PORT, Endpoint, TLSFailed, client_tls_context, parse_endpoint
from server.app import ArbiterServer, TLSUnavailable
from server.config import ServerConfig, TLSSettings

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .certificates import Authority, ServerFiles, make_authority, make_server_files

ROOT = Path(__file__).resolve().parents[2]
#: A stalled handshake is closed after this long in these tests (the default is 10 s).
SHORT_HANDSHAKE = 0.2


@pytest.fixture
def authority(tmp_path) -> Authority:
    return make_authority(tmp_path)


@pytest.fixture
def server_files(tmp_path, authority) -> ServerFiles:
    return make_server_files(tmp_path, authority)


@pytest.fixture
async def tls_server(tmp_path, server_files):
    """A server with a TLS port beside its plain one, whose handshakes must be done in 0.2 s."""
    tls = TLSSettings(cert_file=str(server_files.cert_file), key_file=str(server_files.key_file), port=0,
                      handshake_seconds=SHORT_HANDSHAKE)
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"),
                                     game_seed=GAME_SEED, tls=tls), clock=ManualClock())
    await srv.start()
    yield srv
    await srv.stop()


def trusting(authority: Authority):
    return client_tls_context(str(authority.cert_file))


async def closed_by_the_server(reader: asyncio.StreamReader) -> bytes:
    """What the server sends before it closes the connection (EOF), read to the end."""
    return await asyncio.wait_for(reader.read(), 10)


# ----------------------------------------------------------------------------- addresses


@pytest.mark.parametrize("text, expected", [
    ("example.org", Endpoint("example.org", DEFAULT_PORT)),
    ("example.org:2900", Endpoint("example.org", 2900)),
    ("tls://example.org", Endpoint("example.org", DEFAULT_TLS_PORT, tls=True)),
    ("TLS://example.org:443", Endpoint("example.org", 443, tls=True)),
    ("tls://[::1]:3000", Endpoint("::1", 3000, tls=True)),
    ("tls://::1", Endpoint("::1", DEFAULT_TLS_PORT, tls=True)),
])
def test_an_address_names_tls_with_its_scheme(text, expected):
    assert parse_endpoint(text) == expected


@pytest.mark.parametrize("text, said", [
    ("http://example.org", "unknown scheme"),
    ("tls://", "no host"),
    ("tls://example.org:99999", "ports go from 1 to 65535"),
])
def test_a_wrong_address_says_what_is_wrong(text, said):
    with pytest.raises(ValueError, match=said):
        parse_endpoint(text)


def test_an_endpoint_reads_as_it_is_written():
    assert str(Endpoint("::1", 3000, tls=True)) == "tls://[::1]:3000"
    assert str(Endpoint("example.org", 2866)) == "example.org:2866"


# ----------------------------------------------------------------------------- clients over TLS


async def test_a_client_that_trusts_the_servers_authority_plays_over_tls(tls_server, authority):
    client = await Client.connect("127.0.0.1", tls_server.tls_port, name="ada", tls=trusting(authority))
    assert client.welcome is not None and client.welcome.name == "~ada"
    await client.send(m.PlayBot(level="easy"))
    state = await client.expect(m.GameState)
    assert state.seat is not None and client.writer.get_extra_info("ssl_object") is not None
    await client.close()


async def test_the_native_clients_session_connects_and_reconnects_over_tls(tls_server, authority):
    statuses: list[Status] = []
    session = Session("127.0.0.1", tls_server.tls_port, "bea", on_frame=lambda frame: None,
                      on_status=statuses.append, proof=AccountKey.generate(), tls=trusting(authority),
                      retry_delays=(0.01,))
    running = asyncio.create_task(session.run())
    for _ in range(2):  # connected; the server drops it; connected again, resumed
        while not session.connected:
            await asyncio.sleep(0.01)
        assert statuses[-1] == Status("connected", f"tls://127.0.0.1:{tls_server.tls_port}")
        welcome = session.welcome
        assert welcome is not None and welcome.name == "bea"
        next(conn for conn in tls_server.connections if conn.name == "bea").abort()
        while session.welcome is welcome:
            await asyncio.sleep(0.01)
    await session.close()
    await asyncio.wait_for(running, 10)


async def test_two_bots_play_a_whole_game_over_tls(tls_server, authority):
    bots = [NetworkBot(make_strategy("random", seed=seed), "127.0.0.1", tls_server.tls_port, name=name,
                       proof=AccountKey.generate(), backoff=Backoff(first=0.05), tls=trusting(authority))
            for seed, name in ((1, "ada"), (2, "bob"))]
    first, second = await asyncio.wait_for(asyncio.gather(*(bot.play(1) for bot in bots)), 60)
    assert first[0].game == second[0].game and first[0].outcome == second[0].outcome
    assert tls_server.rooms[first[0].game].game.is_over


# ----------------------------------------------------------------------------- refusals


async def test_a_server_with_tls_clients_stops_cleanly_and_tells_them(tmp_path, server_files, authority):
    tls = TLSSettings(cert_file=str(server_files.cert_file), key_file=str(server_files.key_file), port=0)
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "stopped.db"),
                                     game_seed=GAME_SEED, tls=tls), clock=ManualClock())
    await srv.start()
    assert srv.tls_port is not None
    client = await Client.connect("127.0.0.1", srv.tls_port, name="ann", lobby=False, tls=trusting(authority))
    await srv.stop()  # (a TLS transport cannot half-close: write_eof raised NotImplementedError here)
    bye = await client.recv(5)
    assert isinstance(bye, m.Bye) and bye.code == "shutdown"
    await client.close()


async def test_a_certificate_no_trusted_authority_signed_is_refused_with_a_clear_error(tls_server, tmp_path):
    """The system's authorities (the default) do not know the test's; nor does another authority."""
    stranger = make_authority(tmp_path, "Other CA")
    for tls in (client_tls_context(), trusting(stranger)):
        with pytest.raises(TLSFailed) as refused:
            await Client.connect("127.0.0.1", tls_server.tls_port, name="eve", tls=tls)
        said = str(refused.value)
        assert f"the certificate of tls://127.0.0.1:{tls_server.tls_port} could not be verified" in said
        assert "--tls-ca FILE" in said
    assert not tls_server.connections  # no session was opened


async def test_a_certificate_for_another_name_is_refused(tmp_path, authority):
    """Signed by a trusted authority, but for localhost only: not for the address asked for."""
    files = make_server_files(tmp_path, authority, "named", addresses=())
    tls = TLSSettings(cert_file=str(files.cert_file), key_file=str(files.key_file), port=0)
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), tls=tls))
    await srv.start()
    port = srv.tls_port
    assert port is not None
    try:
        with pytest.raises(TLSFailed, match="could not be verified: IP address mismatch"):
            await Client.connect("127.0.0.1", port, name="eve", tls=trusting(authority))
        client = await Client.connect("localhost", port, name="ada", tls=trusting(authority))
        await client.close()
    finally:
        await srv.stop()


async def test_a_stalled_handshake_is_closed_and_the_server_serves_on(tls_server, authority):
    silent = await asyncio.open_connection("127.0.0.1", tls_server.tls_port)
    partial = await asyncio.open_connection("127.0.0.1", tls_server.tls_port)
    partial[1].write(b"\x16\x03\x01\x02\x00\x01")  # the start of a ClientHello, and then nothing
    for reader, writer in (silent, partial):
        assert await closed_by_the_server(reader) == b""
        writer.close()
    assert not tls_server.connections
    client = await Client.connect("127.0.0.1", tls_server.tls_port, name="ada", tls=trusting(authority))
    assert client.welcome is not None
    await client.close()


async def test_a_plain_client_at_the_tls_port_is_closed_with_a_hint(tls_server):
    with pytest.raises(ConnectionError, match=r"closed the connection before its welcome \(a TLS port\? "
                                              r"its address is then tls://HOST:PORT\)"):
        await Client.connect("127.0.0.1", tls_server.tls_port, name="ada")
    assert not tls_server.connections


async def test_a_tls_client_at_the_plain_port_says_it_is_no_tls_port(tls_server, authority):
    with pytest.raises(TLSFailed, match=r"the TLS handshake with tls://127.0.0.1:\d+ failed .*does that port "
                                        "serve TLS"):
        await Client.connect("127.0.0.1", tls_server.port, name="ada", tls=trusting(authority))


async def test_a_bot_whose_certificate_is_refused_stops_at_once(tls_server):
    """A refused certificate is not a server that is down: the bot does not try it again and again."""
    waits: list[float] = []

    async def counted(seconds: float) -> None:
        waits.append(seconds)

    bot = NetworkBot(make_strategy("random", seed=1), "127.0.0.1", tls_server.tls_port, name="ada",
                     tls=client_tls_context(), sleep=counted)
    with pytest.raises(TLSFailed):
        await asyncio.wait_for(bot.play(1), 10)
    assert waits == []


async def test_a_key_that_does_not_match_its_certificate_stops_the_server_with_a_clear_error(tmp_path, authority):
    first, second = make_server_files(tmp_path, authority, "first"), make_server_files(tmp_path, authority, "second")
    tls = TLSSettings(cert_file=str(first.cert_file), key_file=str(second.key_file), port=0)
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), tls=tls))
    with pytest.raises(TLSUnavailable, match=f"cannot load the TLS certificate {first.cert_file}"):
        await srv.start()
    srv.store.close()


# ----------------------------------------------------------------------------- command lines


def test_aton_bot_refuses_an_unreadable_authority_file(tmp_path, capsys):
    missing = tmp_path / "missing.pem"
    assert bot_main(["--server", "tls://127.0.0.1:1", "--tls-ca", str(missing)]) == 2
    assert f"aton-bot: cannot read the certificates of --tls-ca {missing}" in capsys.readouterr().err
    assert bot_main(["--server", "127.0.0.1:1", "--tls-ca", str(missing)]) == 2
    assert "--tls-ca is for a TLS address" in capsys.readouterr().err


def test_aton_server_needs_both_the_certificate_and_the_key(tmp_path, server_files):
    done = subprocess.run([sys.executable, "-m", "server.cli", "--port", "0", "--db", str(tmp_path / "a.db"),
                           "--tls-cert", str(server_files.cert_file)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "aton-server: TLS needs both --tls-cert and --tls-key" in done.stderr


def test_aton_server_serves_tls_on_its_own_port(tmp_path, server_files, authority):
    """``aton-server --tls-cert --tls-key`` prints its TLS port, and a client that trusts the
    authority plays there."""
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--tls-port", "0",
                             "--db", str(tmp_path / "a.db"), "--log-level", "warning",
                             "--tls-cert", str(server_files.cert_file), "--tls-key", str(server_files.key_file)],
                            cwd=ROOT, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("listening on 127.0.0.1:")
        line = proc.stdout.readline()
        assert line.startswith("tls listening on 127.0.0.1:")
        port = int(line.rsplit(":", 1)[1])

        async def hello() -> str:
            client = await Client.connect("127.0.0.1", port, name="ada", tls=trusting(authority))
            await client.close()
            assert client.welcome is not None
            return client.welcome.name

        assert asyncio.run(hello()) == "~ada"
    finally:
        proc.terminate()
        proc.wait(30)
