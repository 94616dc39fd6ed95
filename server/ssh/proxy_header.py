"""The PROXY protocol header a TCP load balancer puts before a connection it passes on
(HAProxy's ``send-proxy`` and ``send-proxy-v2``): the player's own address, read from the
socket before SSH begins, so that per-address limits and address bans see players, not the
balancer.

The header is parsed by the ``proxy-protocol`` library (versions 1 and 2); this module only
reads it off a raw socket, exactly its bytes and none of the SSH that follows, and bounds it:
a version-1 line is at most 107 bytes (the specification's longest), a version-2 header at
most ``LONGEST_V2`` bytes (its address block and whatever TLVs the balancer adds).
"""

from __future__ import annotations

import asyncio
import socket

from proxyprotocol import ProxyProtocolChecksumError, ProxyProtocolIncompleteError, ProxyProtocolSyntaxError
from proxyprotocol.detect import ProxyProtocolDetect

#: the longest version-1 header, "PROXY TCP6 <address> <address> <port> <port>\r\n"
LONGEST_V1 = 107
#: the longest version-2 header taken: its 16 fixed bytes, the addresses and a balancer's usual TLVs
LONGEST_V2 = 2048


class NoProxyHeader(Exception):
    """The connection did not begin with a PROXY protocol header (or it was cut or too long)."""


async def read_source(sock: socket.socket) -> str | None:
    """The source address named by the PROXY header at the start of ``sock`` (non-blocking),
    having read the header and nothing more; None when the header names no address (``PROXY
    UNKNOWN``, a version-2 LOCAL: the balancer's own health check). NoProxyHeader if the
    connection does not begin with one."""
    detect = ProxyProtocolDetect()
    data = bytearray()
    while True:
        try:
            result = detect.unpack(bytes(data))
        except ProxyProtocolIncompleteError as exc:
            want = exc.want_read
        except (ProxyProtocolSyntaxError, ProxyProtocolChecksumError, ValueError) as exc:
            raise NoProxyHeader(str(exc) or type(exc).__name__) from None
        else:
            source = result.source
            return str(source[0]) if isinstance(source, tuple) else None
        if want.want_bytes is not None:
            if len(data) + want.want_bytes > LONGEST_V2:
                raise NoProxyHeader(f"a header of more than {LONGEST_V2} bytes")
            data += await _exactly(sock, want.want_bytes)
        else:  # a version-1 line, to its end
            while not data.endswith(b"\n"):
                if len(data) >= LONGEST_V1:
                    raise NoProxyHeader(f"a header line of more than {LONGEST_V1} bytes")
                data += await _exactly(sock, 1)


async def _exactly(sock: socket.socket, count: int) -> bytes:
    loop = asyncio.get_running_loop()
    data = b""
    while len(data) < count:
        more = await loop.sock_recv(sock, count - len(data))
        if not more:
            raise NoProxyHeader("the connection closed before its header ended")
        data += more
    return data
