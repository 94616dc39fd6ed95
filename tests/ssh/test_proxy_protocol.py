"""Behind a TCP load balancer (``SSHConfig.proxy_from``, ``--ssh-proxy-from``): a connection from
the balancer begins with a PROXY protocol header (version 1 or 2) naming its player's address,
which the gateway's limits then see; a balancer's connection without one is closed; any other
connection speaks SSH at once, as without a balancer.

The balancer is another loopback address (127.0.0.2): the tests bind their sockets to it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from ipaddress import IPv4Address

import asyncssh
import pytest
from proxyprotocol.result import ProxyResultIPv4
from proxyprotocol.v2 import ProxyProtocolV2

from .terminal import LOBBY, Stack, connect, open_terminal

BALANCER = "127.0.0.2"
REFUSED = (asyncssh.DisconnectError, ConnectionError)


def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def v1(source: str) -> bytes:
    return f"PROXY TCP4 {source} 127.0.0.1 40000 22\r\n".encode()


def v2(source: str) -> bytes:
    return ProxyProtocolV2().pack(ProxyResultIPv4((IPv4Address(source), 40000), (IPv4Address("127.0.0.1"), 22)))


async def balancer_socket(port: int, header: bytes) -> socket.socket:
    """A connection to the gateway from the balancer's address that has sent ``header``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((BALANCER, 0))
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(sock, ("127.0.0.1", port))
    await loop.sock_sendall(sock, header)
    return sock


async def through_balancer(port: int, header: bytes, username: str) -> asyncssh.SSHClientConnection:
    return await connect(port, username, key(), sock=await balancer_socket(port, header))


def addresses(stack: Stack) -> dict[str, str]:
    """Each logged-in player's address, as the gateway's limits and bans see it."""
    return {link.username: link.address for link in stack.gateway.links if link.username}


async def test_behind_a_balancer_the_limits_see_each_player_s_own_address(stack_factory):
    stack = await stack_factory(proxy_from=(f"{BALANCER}/32",), max_per_address=1)
    a = await through_balancer(stack.port, v1("203.0.113.7"), "a")
    with pytest.raises(REFUSED, match="too many connections from your address"):
        await through_balancer(stack.port, v1("203.0.113.7"), "b")  # a's address again
    c = await through_balancer(stack.port, v2("198.51.100.9"), "c")  # another player through the same balancer
    d = await connect(stack.port, "d", key())  # straight from 127.0.0.1, not a balancer: no header
    assert addresses(stack) == {"a": "203.0.113.7", "c": "198.51.100.9", "d": "127.0.0.1"}
    chan, term = await open_terminal(c)  # and the game behind it is the ordinary one
    await term.wait_for(LOBBY, timeout=20)
    chan.close()
    for conn in (a, c, d):
        conn.close()
        await conn.wait_closed()


@pytest.mark.parametrize("ssh_sessions", ["fork"])
async def test_a_balancer_s_connection_without_a_good_header_is_closed_and_others_go_on(stack_factory):
    stack = await stack_factory(proxy_from=(BALANCER,), banner_timeout=0.5)
    loop = asyncio.get_running_loop()
    for header in (b"SSH-2.0-OpenSSH_9.6\r\n",  # SSH at once: no header
                   b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n",
                   b"PROXY TCP4 " + b"9" * 200,  # a line longer than any header, never ended
                   b"PROXY"):  # the start of one, then nothing (the time-out)
        sock = await balancer_socket(stack.port, header)
        with contextlib.suppress(ConnectionResetError):
            assert await asyncio.wait_for(loop.sock_recv(sock, 100), 10) == b""  # closed, nothing said
        sock.close()
    a = await through_balancer(stack.port, v1("203.0.113.7"), "a")  # the gateway serves on
    assert addresses(stack) == {"a": "203.0.113.7"}
    a.close()
    await a.wait_closed()
