"""The gateway's end of a session's game client: its bytes, both ways, over one descriptor.

A session's client runs elsewhere — a process on a pseudo-terminal (``session.PtyChild``)
or an app in an app host (``app_hosts.HostedClient``) — and the gateway holds one
non-blocking descriptor to it (the PTY's master, or a stream socket).  ``ClientEnd``
moves the bytes: what the client draws goes to ``on_output`` (paused while the SSH
channel is), what the player types is written to it, at most ``PENDING_INPUT_MAX``
bytes ahead of a client that does not read (``on_input_blocked`` pauses the channel
meanwhile).  Starting, resizing and ending the client are its subclass's.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable

from protocol.pending_writes import PendingWrites

READ_CHUNK = 65536
PENDING_INPUT_MAX = 65536  # bytes typed ahead of a client that does not read
KILL_GRACE = 1.0  # seconds a client has to end before it is made to


class ClientEnd:
    """One descriptor to a session's client, driven from the event loop without threads."""

    def __init__(self, on_output: Callable[[bytes], None], on_input_blocked: Callable[[bool], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.on_output = on_output
        self.on_input_blocked = on_input_blocked
        self.fd = -1
        self.input: PendingWrites | None = None  # what the player typed that the client has not read yet
        self.reading = False
        self.pid = 0  # the process the client runs in (its own, or its app host's)
        self.started: asyncio.Future[None] = self.loop.create_future()
        self.exited: asyncio.Future[int] = self.loop.create_future()

    def abandon(self) -> None:
        """No client will run on this end (it could not be started)."""
        if not self.exited.done():
            self.exited.set_result(255)

    # ------------------------------------------------------------------ output (client → player)

    def pause_output(self) -> None:
        if self.reading:
            self.reading = False
            self.loop.remove_reader(self.fd)

    def resume_output(self) -> None:
        if not self.reading and self.fd >= 0 and not self.exited.done():
            self.reading = True
            self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        data = self._read()
        if data is None:  # the client's side is closed: wait for its end
            self.pause_output()
        elif data:
            self.on_output(data)

    def _read(self) -> bytes | None:
        """What the client wrote (b"": nothing yet), or None once its side is closed."""
        try:
            return os.read(self.fd, READ_CHUNK) or None
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.ECONNRESET):
                return None
            raise

    def drain(self) -> None:
        """Hand over whatever the client wrote before it ended."""
        if self.fd < 0:
            return
        for _ in range(64):
            data = self._read()
            if not data:
                return
            self.on_output(data)

    # ------------------------------------------------------------------ input (player → client)

    def write(self, data: bytes) -> bool:
        """Queue input for the client; False when more is pending than the bound allows."""
        if self.input is None or self.exited.done():
            return True
        self.input.write(data)
        return len(self.input.pending) <= PENDING_INPUT_MAX

    # ------------------------------------------------------------------ the end

    def _attach(self, fd: int) -> None:
        """The client's end is now ``fd`` (non-blocking)."""
        self.fd = fd
        self.input = PendingWrites(fd, self.on_input_blocked)

    def _close_fd(self) -> None:
        if self.input is not None:
            self.input.discard()
            self.input = None
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1

    def close(self) -> None:
        """Release the descriptor (the client must have ended: see ``terminate``)."""
        self.pause_output()
        self._close_fd()
