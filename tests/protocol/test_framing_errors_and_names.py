"""After an oversized header the frame buffer is dead; names may hold emoji but no controls."""

from __future__ import annotations

import struct

import pytest

from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import FrameBuffer, encode_frame
from protocol.messages import Direction, Hello, parse


def test_frames_before_an_oversized_header_are_delivered_then_the_stream_is_dead():
    buffer = FrameBuffer(max_frame=100)
    good = encode_frame({"type": "ping", "id": 1})
    assert buffer.feed(good + struct.pack(">I", 10_000)) == [good[4:]]
    assert buffer.buffered == 0
    for _ in range(2):
        with pytest.raises(ProtocolError) as info:
            buffer.feed(b"more bytes that are never buffered")
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    assert buffer.buffered == 0


@pytest.mark.parametrize("name", ["Zoë", "ann\u00a0lee", "👨\u200d👩\u200d👧", "李白"])
def test_printable_names_are_accepted(name):
    hello = parse({"type": "hello", "version": "1.0", "name": name, "kind": "human"}, Direction.CLIENT)
    assert isinstance(hello, Hello) and hello.name == name


@pytest.mark.parametrize("name", ["bell\a", "two\nlines", "evil\u202eelif", "line\u2028sep", "tab\there"])
def test_control_format_and_line_characters_are_refused(name):
    with pytest.raises(ProtocolError) as info:
        parse({"type": "hello", "version": "1.0", "name": name, "kind": "human"}, Direction.CLIENT)
    assert info.value.message == "name: must not contain control characters"
