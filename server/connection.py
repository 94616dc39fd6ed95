"""One client connection: framing, a bounded outbox, rate limiting and error replies.

Reading and writing are separate tasks.  Frames to the client go through a bounded
queue, so a slow reader can never slow a game down: when its queue is full it is
disconnected.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import decode_payload, encode_frame, read_payload

from .config import Limits

log = logging.getLogger(__name__)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """A protocol peer.  ``name``/``kind``/``token`` are set by the handshake."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits) -> None:
        self.reader = reader
        self.writer = writer
        self.limits = limits
        peer = writer.get_extra_info("peername")
        self.address: str = peer[0] if isinstance(peer, tuple) else str(peer)
        self.name = ""
        self.kind = ""
        self.token = ""
        self.lobby_subscribed = False
        self.closed = asyncio.Event()
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue(limits.outbox_frames)
        self._bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        self._bad_in_a_row = 0
        self._last_chat = 0.0
        self._writer_task = asyncio.create_task(self._write_loop())

    # ------------------------------------------------------------------ sending

    def deliver(self, message: m.Message) -> None:
        """Queue a frame for the client; a client that does not keep up is dropped."""
        if self.closed.is_set():
            return
        try:
            frame = encode_frame(message.to_wire(), self.limits.frame_bytes)
        except ValueError:
            log.exception("frame too large for %s: %s", self.name or self.address, message.TYPE)
            return
        try:
            self._outbox.put_nowait(frame)
        except asyncio.QueueFull:
            log.warning("%s does not read its frames: disconnected", self.name or self.address)
            self.abort()

    def send_error(self, error: ProtocolError, reply_to: int | None = None) -> None:
        self.deliver(m.Error(code=error.code.value, message=error.message, field=error.field, reply_to=reply_to))

    def close(self, code: str, reason: str) -> None:
        """Say ``bye`` and close once the queued frames are written."""
        if self.closed.is_set():
            return
        self.deliver(m.Bye(code=code, reason=reason))
        try:
            self._outbox.put_nowait(None)
        except asyncio.QueueFull:
            self.abort()

    def abort(self) -> None:
        """Close at once, dropping whatever is queued."""
        if not self.closed.is_set():
            self.closed.set()
            self.writer.close()

    async def _write_loop(self) -> None:
        try:
            while True:
                frame = await self._outbox.get()
                if frame is None or self.writer.is_closing():
                    break  # the peer is gone: nothing more can reach it
                self.writer.write(frame)
                if self.writer.transport.get_write_buffer_size() > 4 * self.limits.frame_bytes:
                    await self.writer.drain()
            await self.writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self.abort()

    # ------------------------------------------------------------------ receiving

    async def read_raw(self, timeout: float) -> Any:
        """The next decoded frame (a msgpack object), within ``timeout`` seconds.

        Raises ProtocolError for a bad frame (the caller answers it), TimeoutError,
        or IncompleteReadError/ConnectionError when the peer is gone.
        """
        payload = await asyncio.wait_for(read_payload(self.reader, self.limits.frame_bytes), timeout)
        return decode_payload(payload, self.limits.frame_bytes)

    def admit(self) -> None:
        """Rate-limit one inbound message; ProtocolError(RATE_LIMITED) when over."""
        if not self._bucket.take():
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages: slow down")

    def admit_chat(self) -> None:
        now = time.monotonic()
        if now - self._last_chat < self.limits.chat_interval:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "one chat line a second, please")
        self._last_chat = now

    def record_outcome(self, ok: bool) -> bool:
        """Count consecutive bad messages; True when the client should be disconnected."""
        self._bad_in_a_row = 0 if ok else self._bad_in_a_row + 1
        return self._bad_in_a_row >= self.limits.errors_before_disconnect

    async def finish(self, timeout: float = 5.0) -> None:
        """Let the queued frames (a last error, ``bye``) reach the peer, then close."""
        if not self.closed.is_set():
            try:
                self._outbox.put_nowait(None)
            except asyncio.QueueFull:
                self.abort()
        try:
            await asyncio.wait_for(asyncio.shield(self._writer_task), timeout)
        except TimeoutError:
            self.abort()

    async def wait_closed(self) -> None:
        await self._writer_task
