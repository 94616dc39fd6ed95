"""Bytes written to a non-blocking descriptor from an asyncio event loop, never lost, never blocking.

Both ends of an SSH session's byte stream use it: the gateway writing what the player
types to the client (``server/ssh/client_end.py``), and an app host's driver writing the
screen to the gateway (``aton_tui/channel_driver.py``).  What the descriptor takes at once
is written; the rest waits here, in order, until it is writable (``on_blocked(True)``
then, ``on_blocked(False)`` once it has all gone).  Once writing fails (the other side has
gone) nothing more is written.  Bounding what waits is the caller's: ``len(pending)``.

Standard library only.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable


def _nothing(blocked: bool) -> None:
    pass


class PendingWrites:
    """Writes to ``fd`` (the caller's, who closes it after ``discard``)."""

    def __init__(self, fd: int, on_blocked: Callable[[bool], None] = _nothing) -> None:
        self.loop = asyncio.get_running_loop()
        self.fd = fd
        self.on_blocked = on_blocked
        self.pending = bytearray()
        self.broken = False

    def write(self, data: bytes) -> None:
        if self.broken:
            return
        if not self.pending:
            try:
                written = os.write(self.fd, data)
            except BlockingIOError:
                written = 0
            except OSError:
                self.broken = True
                return
            if written == len(data):
                return
            data = data[written:]
            self.loop.add_writer(self.fd, self._writable)
            self.on_blocked(True)
        self.pending += data

    def _writable(self) -> None:
        try:
            written = os.write(self.fd, self.pending)
        except BlockingIOError:
            return
        except OSError:
            self.broken = True
            written = len(self.pending)
        del self.pending[:written]
        if not self.pending:
            self.loop.remove_writer(self.fd)
            self.on_blocked(False)

    def discard(self) -> None:
        """Give up what waits, and write nothing more."""
        if self.pending:
            self.loop.remove_writer(self.fd)
            self.pending.clear()
        self.broken = True
