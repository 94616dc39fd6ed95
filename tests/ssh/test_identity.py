"""Who a player is: key fingerprints, remembered names, resume tokens, guests; the host key."""

from __future__ import annotations

import asyncio
import stat
import time

import asyncssh
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import gateway_assertions
from protocol.account_keys import AccountKey
from server.config import GatewaySettings, SSHConfig
from server.gateway_keys import GatewaySigner
from server.lobby import reserved_names
from server.resume_tokens import ResumeTokens
from server.ssh.gateway import SSHGateway
from server.ssh.identity import HOST_KEY_FILE, Identities, valid_name

from ..server.test_accounts import database_before_accounts
from .terminal import IN_LOBBY, LOBBY, connect, open_terminal, server_fingerprint, sit_down_against_a_bot


@pytest.mark.parametrize("proposed, expected", [
    ("alice", "alice"), ("Zoë", "Zoë"), ("x" * 24, "x" * 24), ("a b", "a b"),
    ("", None), ("x" * 25, None), ("bad\x1bname", None), ("tab\tname", None), (" padded", None),
    ("new\nline", None), ("\u200bzero", None),
])
def test_names_are_validated(proposed, expected):
    assert valid_name(proposed) == expected


def signer() -> GatewaySigner:
    return GatewaySigner(Ed25519PrivateKey.generate(), GatewaySettings.assertion_seconds)


def test_a_key_has_its_own_session_and_a_fresh_assertion_and_asks_for_its_user_name(tmp_path):
    tokens, gateway = ResumeTokens(b"s" * 32), signer()
    abc, def_ = (AccountKey.from_seed(seed).fingerprint for seed in (b"abc", b"def"))
    ids = Identities(gateway, "ssh", tokens)
    first = ids.for_key(abc, "alice", "192.0.2.1")
    again = ids.for_key(abc, "mallory", "192.0.2.1")  # the account (on the game server) decides the name
    other = ids.for_key(def_, "bad\x07name", "192.0.2.2")
    assert (first.name, again.name) == ("alice", "mallory")
    assert first.resume_token == again.resume_token == tokens.for_key(abc) != other.resume_token
    assert first.resume_token is not None and 16 <= len(first.resume_token) <= 64  # the protocol's bounds
    assert other.name.startswith("guest-")
    # every login gets an assertion of its own, with a session key of its own, that the arbiter takes
    said = [gateway_assertions.verify(i.vouch.assertion, {gateway.public}, time.time()) for i in (first, again, other)]
    assert [(a.player, a.name, a.address, a.via) for a in said] == [
        (abc, "alice", "192.0.2.1", "ssh"), (abc, "mallory", "192.0.2.1", "ssh"),
        (def_, other.name, "192.0.2.2", "ssh")]
    assert len({a.session for a in said}) == 3 and first.vouch.session_key != again.vouch.session_key
    g1, g2 = ids.guest("carol", "192.0.2.3"), ids.guest("carol", "192.0.2.3")
    assert g1.guest and g1.name == "carol" and g1.resume_token != g2.resume_token
    assert gateway_assertions.verify(g1.vouch.assertion, {gateway.public}, time.time()).player is None
    # every token is one the game server recognises as its own
    assert all(tokens.recognises(str(i.resume_token)) for i in (first, other, g1, g2))
    # a gateway apart from the game server knows no session: the game server derives a key's
    apart = Identities(gateway, "ssh").for_key(abc, "alice", "192.0.2.1")
    assert apart.resume_token is None and apart.fingerprint == abc


def test_a_user_name_the_game_server_would_refuse_is_never_asked_for(tmp_path):
    ids = Identities(signer(), "ssh", ResumeTokens(b"s" * 32), reserved_names("aton-server"))
    for n, proposed in enumerate(["Bot (easy)", "aton server", "\u3164", "p\u0430ypal", "alice "]):
        assert ids.for_key(f"SHA256:{n}", proposed, "192.0.2.1").name.startswith("guest-")
        assert ids.guest(proposed, "192.0.2.1").name.startswith("guest-")


async def test_the_host_key_is_made_once_private_and_reused(tmp_path):
    tokens, gateway = ResumeTokens.in_directory(tmp_path), signer()

    def start() -> SSHGateway:
        return SSHGateway(SSHConfig(port=0, data_dir=str(tmp_path)), "127.0.0.1", 1, str(tmp_path / "aton.db"), tokens,
                          gateway)

    first = start()
    assert stat.S_IMODE((tmp_path / HOST_KEY_FILE).stat().st_mode) == 0o600
    second = start()
    assert first.host_fingerprint == second.host_fingerprint
    chosen = tmp_path / "elsewhere" / "key"
    third = SSHGateway(SSHConfig(port=0, data_dir=str(tmp_path), host_key=str(chosen)), "127.0.0.1", 1,
                       str(tmp_path / "aton.db"), tokens, gateway)
    assert chosen.exists() and third.host_fingerprint != first.host_fingerprint
    # and it is the key a client sees
    await third.start()
    try:
        conn = await connect(third.port, "x", asyncssh.generate_private_key("ssh-ed25519"))
        assert server_fingerprint(conn) == third.host_fingerprint
        conn.close()
        await conn.wait_closed()
    finally:
        await third.stop()


async def test_a_guest_plays_under_the_user_name(stack):
    conn = await connect(stack.port, "carol")  # no key: keyboard-interactive
    _chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=15)
    await term.wait_for("carol")
    [game] = stack.gateway.games
    assert game.link.identity.guest and game.link.identity.name == "carol"
    [served] = stack.server.connections  # a guest of the game server: no account, a marked name
    assert served.name == "~carol" and served.account is None
    conn.close()
    await conn.wait_closed()


@pytest.mark.parametrize("user", ["x" * 30, "Bot (hard)", "\u3164"])
async def test_a_bad_user_name_becomes_a_guest_name(stack, user):
    conn = await connect(stack.port, user)
    await conn.create_session(asyncssh.SSHClientSession, term_type="xterm", encoding=None)
    await asyncio.sleep(0.2)
    [link] = stack.gateway.links
    assert link.identity.name.startswith("guest-")
    conn.close()
    await conn.wait_closed()


async def test_guests_can_be_turned_off(stack_factory):
    stack = await stack_factory(guests=False)
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(stack.port, "carol")
    conn = await connect(stack.port, "dave", asyncssh.generate_private_key("ssh-ed25519"))
    conn.close()
    await conn.wait_closed()


async def test_the_same_key_comes_back_as_the_same_player(stack):
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn = await connect(stack.port, "erin", key)
    _chan, term = await open_terminal(conn)
    await term.wait_for(IN_LOBBY, timeout=15)  # (connected: the account is made)
    conn.close()
    await conn.wait_closed()
    await stack.settled()
    conn = await connect(stack.port, "someone-else", key)
    _chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=15)
    await term.wait_for("erin")
    assert "someone-else" not in term.text()
    conn.close()
    await conn.wait_closed()


async def test_the_same_key_takes_its_seat_back(stack):
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn = await connect(stack.port, "frank", key)
    chan, term = await open_terminal(conn)
    await term.wait_for(IN_LOBBY, timeout=15)
    await sit_down_against_a_bot(chan, term)
    [room] = stack.server.rooms.values()
    seat = next(name for name, s in room.seats.items() if s.name == "frank")
    conn.close()
    await conn.wait_closed()
    await stack.settled()
    assert room.seats[seat].participant is None
    conn = await connect(stack.port, "frank", key)
    chan, term = await open_terminal(conn)
    await term.wait_for("(you)", timeout=15)  # straight back into the game
    assert room.seats[seat].participant is not None
    conn.close()
    await conn.wait_closed()


async def test_a_second_login_with_the_key_takes_over_the_first(stack):
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn1 = await connect(stack.port, "gina", key)
    _chan1, term1 = await open_terminal(conn1)
    await term1.wait_for(LOBBY, timeout=15)
    [first] = [game.child for game in stack.gateway.games]
    conn2 = await connect(stack.port, "gina", key)
    _chan2, term2 = await open_terminal(conn2)
    await asyncio.wait_for(term1.closed.wait(), 10)
    assert "logged in again from another connection" in term1.text()
    assert term1.exit_status == 1
    await term2.wait_for(LOBBY, timeout=15)
    assert "gina-2" not in term2.text()  # the first one left before the second said hello
    assert first is not None and first.exited.done()
    assert first not in [game.child for game in stack.gateway.games]
    for conn in (conn1, conn2):
        conn.close()
        await conn.wait_closed()


async def test_a_name_that_looks_like_an_option_logs_in_and_plays(stack):
    key = asyncssh.generate_private_key("ssh-ed25519")
    for _ in range(2):  # the name is remembered for the key: the second login must work as well
        conn = await connect(stack.port, "-x", key)
        _chan, term = await open_terminal(conn)
        await term.wait_for(LOBBY, timeout=15)
        await term.wait_for("-x")  # in the players online
        [game] = stack.gateway.games
        assert game.link.identity.name == "-x"
        conn.close()
        await conn.wait_closed()
        await stack.settled()


async def test_a_key_with_a_broken_remembered_name_logs_in_under_a_valid_one(tmp_path, stack_factory):
    """A name an older gateway remembered for the key (table ssh_identities) that is not a valid
    name today: the migration to accounts gives the key's account a valid one."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    database_before_accounts(tmp_path / "s0" / "aton.db", {key.get_fingerprint("sha256"): "\x1b]0;pwned\x07"})
    stack = await stack_factory()
    conn = await connect(stack.port, "heidi", key)
    _chan, term = await open_terminal(conn)
    await term.wait_for(IN_LOBBY, timeout=15)
    [served] = stack.server.connections
    assert served.name == "player" and served.account is not None and served.account.name == "player"
    assert "pwned" not in term.text()
    conn.close()
    await conn.wait_closed()
