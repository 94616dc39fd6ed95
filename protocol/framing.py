"""Framing: each frame is a 4-byte big-endian length, then one msgpack map of that length.

The length comes first so that a receiver can refuse an oversized frame before
reading it.  ``FrameBuffer`` is the sans-I/O decoder (feed bytes, take payloads);
``read_frame``/``encode_frame`` are the asyncio-stream helpers both sides use.

Frames are encoded with msgspec and decoded with msgpack-python.  Both write the same
bytes for the plain data a frame holds (maps, lists and tuples, str, bytes, int,
float, bool, None; a test compares them over whole games), msgspec two to three times
faster: a server encodes a frame for every receiver of every move.  Decoding stays
with msgpack-python, which bounds every string, array and map of a peer's frame.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Mapping
from typing import Any

import msgpack
import msgspec

from .errors import ErrorCode, ProtocolError

MAX_FRAME_BYTES = 64 * 1024
#: The largest frame a client sends.  Every request fits in far less (the longest, a chat
#: line of 200 four-byte characters, is under 1 KiB), while a receiver's cost of decoding
#: grows with the bytes: a server refuses bigger requests unread.
MAX_REQUEST_BYTES = 2 * 1024
HEADER = struct.Struct(">I")


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension types are not used by this protocol (got type {code})")


#: Writes msgpack as msgpack-python does with ``use_bin_type`` (str as str, bytes as bin).
_ENCODER = msgspec.msgpack.Encoder()


def encode_payload(data: object) -> bytes:
    """The msgpack bytes of ``data`` (a frame carries a map of plain data; tests also send
    other values).  TypeError for a value msgpack cannot carry."""
    return _ENCODER.encode(data)


def encode_frame(data: Mapping[str, object], max_frame: int = MAX_FRAME_BYTES) -> bytes:
    """The bytes of one frame carrying ``data``; ValueError if it would exceed the limit."""
    payload = encode_payload(data)
    if len(payload) > max_frame:
        raise ValueError(f"frame of {len(payload)} bytes exceeds the {max_frame}-byte limit")
    return HEADER.pack(len(payload)) + payload


def decode_payload(payload: bytes, max_frame: int = MAX_FRAME_BYTES) -> Any:
    """The msgpack object in a frame's payload; ProtocolError(BAD_FRAME) if undecodable.

    Its shape is whatever the peer sent (typed ``Any`` like ``json.loads``): the caller validates it."""
    if not payload:
        raise ProtocolError(ErrorCode.BAD_FRAME, "empty frame")
    try:
        return msgpack.unpackb(
            payload,
            raw=False,
            strict_map_key=True,
            ext_hook=_no_ext,
            max_str_len=max_frame,
            max_bin_len=max_frame,
            max_array_len=max_frame,
            max_map_len=max_frame // 2,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several types (ValueError, StackError, …)
        detail = str(exc) or type(exc).__name__
        raise ProtocolError(ErrorCode.BAD_FRAME, f"undecodable msgpack payload: {detail}") from None


def check_length(length: int, max_frame: int) -> None:
    if length > max_frame:
        raise ProtocolError(
            ErrorCode.FRAME_TOO_LARGE, f"frame of {length} bytes exceeds the {max_frame}-byte limit"
        )


class FrameBuffer:
    """Sans-I/O frame splitter: holds at most one frame's bytes plus its header."""

    def __init__(self, max_frame: int = MAX_FRAME_BYTES) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._error: ProtocolError | None = None

    def feed(self, data: bytes) -> list[bytes]:
        """Add bytes; return the complete payloads now available, in order.

        A header that announces too much makes the stream unusable: the payloads
        completed before it are still returned, and that call or the next one raises
        ProtocolError(FRAME_TOO_LARGE), as does every call after it.
        """
        if self._error is not None:
            raise self._error
        self._buffer += data
        payloads: list[bytes] = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            try:
                check_length(length, self.max_frame)
            except ProtocolError as exc:
                self._error = exc
                self._buffer.clear()
                if payloads:
                    return payloads
                raise
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            payloads.append(bytes(self._buffer[HEADER.size:end]))
            del self._buffer[:end]
        return payloads

    @property
    def error(self) -> ProtocolError | None:
        """The error that made the stream unusable, once a header announced too much."""
        return self._error

    @property
    def buffered(self) -> int:
        return len(self._buffer)


async def read_payload(reader: asyncio.StreamReader, max_frame: int = MAX_FRAME_BYTES) -> bytes:
    """Read one frame's payload; IncompleteReadError at end of stream."""
    header = await reader.readexactly(HEADER.size)
    (length,) = HEADER.unpack(header)
    check_length(length, max_frame)
    return await reader.readexactly(length)
