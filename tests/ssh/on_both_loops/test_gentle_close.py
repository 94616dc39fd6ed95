"""A refused connection's client reads why it was refused, on either event loop.

A client sends its version line and key exchange as soon as it connects.  The gateway
refuses a connection over its limits before reading them; closed with them unread, the
socket ends with a reset, and the reset could reach the client before the refusal: on
uvloop it said "Connection reset by peer" instead (``server.ssh.lingering``)."""

from __future__ import annotations

import asyncio
import socket
import struct

import asyncssh

from server.ssh.lingering import LingeringCloses

from ..terminal import connect


def ignored(size: int) -> bytes:
    """An SSH_MSG_IGNORE packet as a client may send it before the key exchange (in the clear)."""
    payload = b"\x02" + struct.pack(">I", size) + bytes(size)
    padding = 4 + (-(4 + 1 + len(payload) + 4)) % 8
    return struct.pack(">IB", 1 + len(payload) + padding, padding) + payload + bytes(padding)


async def test_a_refused_client_reads_why_though_its_first_bytes_were_never_read(stack_factory):
    stack = await stack_factory(max_per_address=1)
    stack.gateway.lingering.seconds = 60  # the test's steps may take their time on a loaded machine
    held = await connect(stack.port, "a", asyncssh.generate_private_key("ssh-ed25519"))
    loop = asyncio.get_running_loop()
    refused = socket.create_connection(("127.0.0.1", stack.port))
    try:
        refused.sendall(b"SSH-2.0-OpenSSH_9.6\r\n" + ignored(1000))
        await asyncio.sleep(0.5)  # the gateway has refused it by now
        refused.setblocking(False)
        for _ in range(2):  # a client goes on with its key exchange until it reads the refusal
            await loop.sock_sendall(refused, ignored(1000))  # a closed socket's reset fails the second
            await asyncio.sleep(0.1)
        received = b""
        while b"too many connections from your address" not in received:
            chunk = await asyncio.wait_for(loop.sock_recv(refused, 4096), 10)
            assert chunk, f"the connection ended before the refusal: {received!r}"
            received += chunk
        assert received.startswith(b"SSH-2.0-AtonGateway")
        assert len(stack.gateway.lingering) == 1  # until the client closes its end
    finally:
        refused.close()
    await asyncio.wait_for(stack.gateway.lingering.until_closed(), 10)  # at once, not after its 60 s
    held.close()
    await held.wait_closed()


async def test_a_refused_socket_lingers_a_bounded_time_and_only_so_many_at_once():
    lingering = LingeringCloses(seconds=0.2, limit=1)
    silent, peer = socket.socketpair()  # a client that never closes its end
    second, second_peer = socket.socketpair()
    try:
        lingering.keep(silent)
        lingering.keep(second)  # over the limit: not kept
        assert len(lingering) == 1
        silent.close()  # the transport's own descriptor: the duplicate keeps the socket
        second.close()
        peer.sendall(b"more of the key exchange")  # read and dropped: no reset
        peer.setblocking(False)
        loop = asyncio.get_running_loop()
        await asyncio.wait_for(lingering.until_closed(), 10)  # closed after its time, the client still silent
        assert await asyncio.wait_for(loop.sock_recv(peer, 10), 10) == b""  # the end of the stream, no reset
    finally:
        peer.close()
        second_peer.close()

