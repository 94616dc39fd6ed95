"""One client connection: framing, the outbox, rate limiting, timeouts and error replies.

A ``Connection`` is an asyncio protocol: bytes are cut into frames as they arrive and
every frame goes to the server's handler at once, on the event loop, with no task
switch per message.

Frames to the client are not written when they are delivered: they wait in the
connection until the end of the event-loop turn.  Then the ``Outbox`` first commits
the database transaction that holds every move accepted during the turn, and only
then writes every connection's frames.  So nothing a client receives can announce a
move the database does not hold, and one commit serves all the moves of a turn.
A client that does not read its frames is disconnected once more than
``Limits.outbox_bytes`` wait in its transport, so it can never slow a game down; and
when the bytes waiting for all the clients together exceed ``Limits.outbox_bytes_total``,
those that hold the most are disconnected until the sum is under it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import FrameBuffer, decode_payload, encode_frame
from protocol.gateway_assertions import Assertion

from .accounts import Account
from .config import Limits
from .moderation import hide_muted
from .rates import TokenBucket

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)

#: Seconds a closing connection may take to hand its last frames to a peer that does not read.
CLOSE_GRACE = 5.0


class FrameCache:
    """The frame of the last message encoded: one message sent to many receivers (a lobby
    update, a spectators' update) is encoded once.  It holds the message, so its identity
    cannot be reused by another object while cached; messages are not changed once sent."""

    def __init__(self) -> None:
        self._message: m.Message | None = None
        self._frame = b""

    def encode(self, message: m.Message, max_frame: int) -> bytes:
        if message is not self._message:
            self._frame = encode_frame(message.to_wire(), max_frame)
            self._message = message
        return self._frame


class Outbox:
    """Sends the frames of a loop turn at its end, after ``before_sending`` (the store's commit).

    If ``before_sending`` fails, the turn's frames are dropped (they could announce moves
    that were not stored), their connections are closed and ``on_failure`` is told.

    It also keeps the sum of the bytes that wait in the connections' transports for peers
    that read slowly or not at all (``backlog``), and disconnects the connections that
    hold the most when the sum exceeds ``max_backlog``.  A connection's count is updated
    when frames are written to it and when its transport has sent everything, so the sum
    may count bytes already sent, never fewer than wait.
    """

    def __init__(self, before_sending: Callable[[], None], on_failure: Callable[[Exception], None],
                 max_backlog: int) -> None:
        self.before_sending = before_sending
        self.on_failure = on_failure
        self.max_backlog = max_backlog
        self._waiting: list[Connection] = []
        self._scheduled = False
        self._backlogs: dict[Connection, int] = {}
        self.backlog = 0
        self.frames = FrameCache()

    def wake(self) -> None:
        """Make sure a flush follows in this loop turn."""
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def add(self, conn: Connection) -> None:
        self._waiting.append(conn)
        self.wake()

    def flush(self) -> None:
        self._scheduled = False
        waiting, self._waiting = self._waiting, []
        try:
            self.before_sending()
        except Exception as exc:
            for conn in waiting:
                conn.abort()
            self.on_failure(exc)
            return
        for conn in waiting:
            conn.send_pending()
        self._shed()

    def note_backlog(self, conn: Connection, size: int) -> None:
        """``conn``'s transport now holds ``size`` bytes not yet handed to the kernel."""
        self.backlog += size - self._backlogs.pop(conn, 0)
        if size:
            self._backlogs[conn] = size

    def _shed(self) -> None:
        """Over ``max_backlog``: disconnect the connections holding the most until under it."""
        if self.backlog <= self.max_backlog:
            return
        for conn in sorted(self._backlogs, key=self._backlogs.__getitem__, reverse=True):
            log.warning("%s does not read its frames while %d bytes wait for all clients: disconnected",
                        conn.name or conn.address, self.backlog)
            conn.abort()
            if self.backlog <= self.max_backlog:
                return


class ConnectionHandler(Protocol):
    """What a connection reports to the server."""

    def connection_opened(self, conn: Connection) -> None: ...

    def frame_received(self, conn: Connection, raw: Any) -> None:
        """A decoded frame (a msgpack object, not yet validated)."""

    def bad_frame(self, conn: Connection, error: ProtocolError) -> None:
        """A frame that could not be decoded; FRAME_TOO_LARGE means the stream is unusable."""

    def handshake_timed_out(self, conn: Connection) -> None: ...

    def idle_timed_out(self, conn: Connection, reason: str) -> None: ...

    def occupied(self, conn: Connection) -> bool:
        """Whether the connection plays or watches a game, or waits at a table or in a queue."""

    def connection_closed(self, conn: Connection) -> None: ...


class Connection(asyncio.Protocol):
    """A protocol peer.  ``name``/``kind``/``token``/``account`` are set by the handshake (``greeted``)."""

    def __init__(self, handler: ConnectionHandler, outbox: Outbox, limits: Limits) -> None:
        self.handler = handler
        self.outbox = outbox
        self.limits = limits
        #: made by the server's protocol factory, so on its loop: asked once (``get_running_loop``
        #: makes a system call, ``getpid``, each time, and a move would ask several times)
        self.loop = asyncio.get_running_loop()
        self.address = ""
        self.name = ""
        self.kind = ""
        self.token = ""
        self.account: Account | None = None  # the account the client proved; None: a guest
        #: the players whose chat lines this session does not see (``mute``): name -> account (None: a guest)
        self.muted: dict[str, int | None] = {}
        self.key: str | None = None  # the fingerprint of the key it proved the account with
        #: what the gateway that started this client asserted of its player (None: not a gateway's client)
        self.assertion: Assertion | None = None
        self.protocol_minor = m.PROTOCOL_MINOR  # the client's (from its hello): frames are sent as it reads them
        self.lobby_subscribed = False
        #: the rooms it took a seat in or watched, by game (``ArbiterServer._entered``); held weakly
        self.rooms: weakref.WeakValueDictionary[int, Room] = weakref.WeakValueDictionary()
        self.greeted = False
        self.closed = asyncio.Event()  # set when the connection is gone or being dropped
        self.closing = False  # a bye is on its way: nothing more is read or sent
        self.transport: asyncio.Transport | None = None
        self._frames = FrameBuffer(limits.request_bytes)
        self._pending: list[bytes] = []
        self._bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        self._bad_in_a_row = 0
        self._last_chat = 0.0
        self._last_frame = 0.0
        self._last_request = 0.0  # the last accepted request that was not a ping
        self._timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ asyncio protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a stream's transport (uvloop's is not a subclass)
        # told (resume_writing) as soon as everything written has left, so the outbox's count is kept
        self.transport.set_write_buffer_limits(high=0, low=0)
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if isinstance(peer, tuple) else str(peer)
        self._last_frame = self.loop.time()
        self._timer = self.loop.call_later(self.limits.handshake_seconds, self._check_silence)
        self.handler.connection_opened(self)

    def data_received(self, data: bytes) -> None:
        if self.closing or self.closed.is_set():
            return
        try:
            payloads = self._frames.feed(data)
        except ProtocolError as exc:
            self.handler.bad_frame(self, exc)
            return
        if payloads:
            self._last_frame = self.loop.time()
        for payload in payloads:
            if self.closing or self.closed.is_set():
                return
            try:
                raw = decode_payload(payload, self.limits.request_bytes)
            except ProtocolError as exc:
                self.handler.bad_frame(self, exc)
                continue
            self.handler.frame_received(self, raw)
        if self._frames.error is not None and not self.closing:
            self.handler.bad_frame(self, self._frames.error)

    def eof_received(self) -> bool:
        return False  # the peer has finished: close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending.clear()
        self.outbox.note_backlog(self, 0)
        self.closed.set()
        self.handler.connection_closed(self)

    # ------------------------------------------------------------------ time-outs

    def resume_writing(self) -> None:
        if self.transport is not None:
            self.outbox.note_backlog(self, self.transport.get_write_buffer_size())

    def mark_greeted(self) -> None:
        """The handshake succeeded: from now on only idleness closes the connection."""
        self.greeted = True
        self.mark_request()

    def mark_request(self) -> None:
        """A request other than ``ping`` was accepted: the session is doing something."""
        self._last_request = self.loop.time()
        if self._timer is None or self._timer.when() > self._next_check():
            self._rearm(self._next_check())

    def _next_check(self) -> float:
        return min(self._last_frame + self.limits.idle_seconds, self._last_request + self.limits.lobby_idle_seconds)

    def _rearm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_at(when, self._check_silence)

    def _check_silence(self) -> None:
        self._timer = None
        if self.closing or self.closed.is_set():
            return
        if not self.greeted:
            self.handler.handshake_timed_out(self)
            return
        now = self.loop.time()
        if now >= self._last_frame + self.limits.idle_seconds:
            self.handler.idle_timed_out(self, "idle for too long")
            return
        if now >= self._last_request + self.limits.lobby_idle_seconds:
            if not self.handler.occupied(self):  # pings alone do not keep an empty-handed session
                self.handler.idle_timed_out(self, "nothing but pings for too long, with no game, table or queue")
                return
            self._last_request = now  # a game, a table or a queue: as good as a request
        self._rearm(self._next_check())

    # ------------------------------------------------------------------ sending

    def deliver(self, message: m.Message) -> None:
        """Queue a frame; it is written at the end of the loop turn, after the store's commit."""
        if self.closing or self.closed.is_set():
            return
        if self.muted:
            message = hide_muted(message, self.muted)
        if self.protocol_minor < m.PROTOCOL_MINOR:
            read = m.as_read_by(message, self.protocol_minor)
            if read is None:
                return  # a message its protocol does not have
            message = read
        try:
            frame = self.outbox.frames.encode(message, self.limits.frame_bytes)
        except ValueError:
            log.exception("frame too large for %s: %s", self.name or self.address, message.TYPE)
            return
        if not self._pending:
            self.outbox.add(self)
        self._pending.append(frame)

    def send_pending(self) -> None:
        """Write the frames queued in this turn (called by the outbox)."""
        frames, self._pending = self._pending, []
        if self.closed.is_set() or self.transport is None or self.transport.is_closing():
            return
        self.transport.writelines(frames)
        backlog = self.transport.get_write_buffer_size()
        if self.closing:
            # Half-close once the frames are written; what the peer still sends is read and
            # ignored until it closes too (closing with unread input would reset the
            # connection and could destroy the bye before the peer reads it).  TLS cannot
            # half-close: its connection is closed after the grace alone.
            try:
                if self.transport.can_write_eof():
                    self.transport.write_eof()
            except OSError:  # the peer is gone already
                self.abort()
                return
            self.loop.call_later(CLOSE_GRACE, self.abort)
        elif backlog > self.limits.outbox_bytes:
            log.warning("%s does not read its frames: disconnected", self.name or self.address)
            self.abort()
            return
        self.outbox.note_backlog(self, backlog)

    def send_error(self, error: ProtocolError, reply_to: int | None = None) -> None:
        self.deliver(m.Error(code=error.code.value, message=error.message, field=error.field, reply_to=reply_to))

    def close(self, code: str, reason: str) -> None:
        """Say ``bye``, send what is queued, then close; what the peer sends from now on is ignored."""
        if self.closing or self.closed.is_set():
            return
        self.deliver(m.Bye(code=code, reason=reason))
        self.closing = True

    def abort(self) -> None:
        """Close at once, dropping whatever is queued."""
        self._pending.clear()
        self.outbox.note_backlog(self, 0)
        if not self.closed.is_set():
            self.closed.set()
            if self.transport is not None:
                self.transport.abort()

    @property
    def unsent(self) -> int:
        """Bytes queued or buffered for the peer and not yet handed to the kernel."""
        if self.closed.is_set() or self.transport is None:
            return 0
        return sum(map(len, self._pending)) + self.transport.get_write_buffer_size()

    # ------------------------------------------------------------------ limits

    def admit(self) -> None:
        """Rate-limit one inbound message; ProtocolError(RATE_LIMITED) when over."""
        if not self._bucket.take():
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages: slow down")

    def admit_chat(self, text: str) -> None:
        """Refuse a chat line that is too long or comes too soon after the last one."""
        if len(text) > self.limits.chat_chars:
            raise ProtocolError(ErrorCode.INVALID, f"chat lines are at most {self.limits.chat_chars} characters",
                                field="text")
        now = time.monotonic()
        if now - self._last_chat < self.limits.chat_interval:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "one chat line a second, please")
        self._last_chat = now

    def record_outcome(self, ok: bool, admitted: bool = False) -> bool:
        """Count consecutive bad messages; True when the client should be disconnected.

        A refused message also spends one of the message rate, whatever it was (``admitted``:
        it spent it already), so that refusals slipped between accepted messages are held
        to the rate: a ping now and then no longer buys an endless stream of refusals."""
        if not ok and not admitted:
            self._bucket.take()
        self._bad_in_a_row = 0 if ok else self._bad_in_a_row + 1
        return self._bad_in_a_row >= self.limits.errors_before_disconnect
