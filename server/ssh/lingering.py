"""A refused connection closed gently, so that its client reads why before the socket goes.

The gateway refuses a connection over its limits at once, with an SSH disconnect message
that says why ("too many connections from your address"), and asyncssh then aborts the
transport.  A client sends its version line and key exchange as soon as it connects; if
those bytes wait unread in the socket when it is closed, the kernel answers with a reset,
and a reset can reach the client before it has read the refusal: it then says "Connection
reset by peer" instead.  Which one wins is a race the event loop decides (uvloop lost it in
a test run, asyncio's loop had not yet).

So a refused connection's socket is kept a moment longer through a duplicate of its file
descriptor (closing the transport then closes only asyncssh's descriptor): the duplicate
reads, and drops, what the client still sends, until the client closes (it does once it
has read the refusal) or ``seconds`` have passed.  Closed by the client first, the socket
ends with no reset.  It does not send the end of the stream itself: right behind the
refusal, asyncssh's client took it for a lost connection before it told the refusal (7
connections in 40 on uvloop).  At most ``limit`` sockets linger at once: a flood of
refused connections is closed at once as before.  The arbiter's own connections close
gently too (``server.connection.Connection.close``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import Any

log = logging.getLogger(__name__)

#: How long a refused connection's socket waits for its client to close (seconds).
LINGER_SECONDS = 2.0
#: How many refused connections may linger at once.
MAX_LINGERING = 64


class LingeringCloses:
    """The refused connections that are being closed gently."""

    def __init__(self, seconds: float = LINGER_SECONDS, limit: int = MAX_LINGERING) -> None:
        self.seconds = seconds
        self.limit = limit
        self._tasks: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def keep(self, transport_socket: Any) -> None:
        """Keep the socket of a connection about to be refused (``get_extra_info("socket")``)
        open until its client has closed; call it before the transport is closed."""
        if transport_socket is None or len(self._tasks) >= self.limit:
            return
        try:
            sock = socket.socket(fileno=os.dup(transport_socket.fileno()))
        except OSError as exc:  # out of descriptors: closed at once, as without lingering
            log.debug("a refused connection closed at once: %s", exc)
            return
        task = asyncio.ensure_future(self._linger(sock))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _linger(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        with sock, contextlib.suppress(TimeoutError, OSError):  # its time is up, or the client is gone
            sock.setblocking(False)
            async with asyncio.timeout(self.seconds):
                while await loop.sock_recv(sock, 4096):  # what the client still sends, dropped
                    continue

    async def until_closed(self) -> None:
        """Wait until no socket lingers."""
        while self._tasks:
            await asyncio.wait(list(self._tasks))

    async def close(self) -> None:
        """Close every lingering socket now (the gateway stops)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
