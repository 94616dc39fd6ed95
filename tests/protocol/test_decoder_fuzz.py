"""Hostile input: whatever bytes or msgpack structures arrive, the decoder raises only
ProtocolError, and never holds or allocates much more than one frame."""

from __future__ import annotations

import threading
import tracemalloc
from itertools import pairwise

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import HEADER, MAX_FRAME_BYTES, FrameBuffer, decode_payload, encode_frame
from protocol.messages import CATALOGUE, Direction, field_specs, parse

from .spec_examples import MSGPACK_VALUES, example_value

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Structures are slower to generate; fewer examples keep the suite fast.
FUZZ_STRUCTURES = settings(FUZZ, max_examples=120)


def decode_and_parse(payload: bytes, direction: Direction = Direction.CLIENT, **limits) -> None:
    """What a receiver does with one payload; only ProtocolError may come out."""
    try:
        parse(decode_payload(payload, **limits), direction)
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)
        assert isinstance(error.message, str) and error.message


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in pairwise(bounds)]


def feed_all(buffer: FrameBuffer, chunks: list[bytes]) -> tuple[list[bytes], ProtocolError | None]:
    """Feed chunks until the buffer refuses; check the holding limit after every feed."""
    payloads = []
    for chunk in chunks:
        try:
            payloads += buffer.feed(chunk)
        except ProtocolError as error:
            assert error.code is ErrorCode.FRAME_TOO_LARGE
            return payloads, error
        assert buffer.buffered <= buffer.max_frame + HEADER.size
    return payloads, None


# ------------------------------------------------------------------ arbitrary bytes

@FUZZ
@given(data=st.binary(max_size=600), cuts=st.lists(st.integers(0, 10_000), max_size=12),
       max_frame=st.sampled_from([0, 1, 16, 100, 300, MAX_FRAME_BYTES]))
def test_arbitrary_bytes_through_the_frame_buffer(data, cuts, max_frame):
    buffer = FrameBuffer(max_frame=max_frame)
    payloads, error = feed_all(buffer, chunked(data, cuts))
    # What came out is a prefix of the input, frame by frame, each within the limit.
    rebuilt = b"".join(HEADER.pack(len(p)) + p for p in payloads)
    assert data.startswith(rebuilt)
    assert all(len(p) <= max_frame for p in payloads)
    if error is None:
        assert rebuilt + bytes(buffer._buffer) == data
    for payload in payloads:
        decode_and_parse(payload, max_frame=max(max_frame, 1))


@FUZZ
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_through_the_decoder(data):
    decode_and_parse(data)
    decode_and_parse(data, Direction.SERVER)


@FUZZ
@given(prefix=st.sampled_from([b"\x81\xa4type", b"\x82\xa4type\xa4open\xa5cards", b"\x92", b"\xdc\x00\x10"]),
       rest=st.binary(max_size=200))
def test_plausible_starts_with_arbitrary_tails(prefix, rest):
    decode_and_parse(prefix + rest)


@FUZZ
@given(payloads=st.lists(st.binary(max_size=300), max_size=6),
       cuts=st.lists(st.integers(0, 10_000), max_size=20))
def test_chunking_does_not_change_the_frames(payloads, cuts):
    stream = b"".join(HEADER.pack(len(p)) + p for p in payloads)
    buffer = FrameBuffer(max_frame=300)
    out, error = feed_all(buffer, chunked(stream, cuts))
    assert error is None
    assert out == payloads
    assert buffer.buffered == 0


# ------------------------------------------------------------------ arbitrary msgpack structures

@FUZZ_STRUCTURES
@given(value=MSGPACK_VALUES)
def test_arbitrary_msgpack_structures(value):
    payload = msgpack.packb(value, use_bin_type=True)
    decode_and_parse(payload)
    decode_and_parse(payload, Direction.SERVER)


def spoiled_messages():
    """A real message type with each field either valid, missing, or arbitrary."""

    @st.composite
    def build(draw):
        direction = draw(st.sampled_from(list(Direction)))
        cls = draw(st.sampled_from(list(CATALOGUE[direction].values())))
        data = {"type": cls.TYPE}
        for name, spec, _ in field_specs(cls):
            choice = draw(st.sampled_from(["valid", "missing", "arbitrary"]))
            if choice == "valid":
                data[name] = example_value(spec)
            elif choice == "arbitrary":
                data[name] = draw(MSGPACK_VALUES)
        extra = draw(st.dictionaries(st.text(max_size=8), MSGPACK_VALUES, max_size=2))
        return direction, {**extra, **data}

    return build()


@FUZZ_STRUCTURES
@given(case=spoiled_messages())
def test_real_types_with_arbitrary_fields(case):
    direction, data = case
    decode_and_parse(msgpack.packb(data, use_bin_type=True), direction)


# ------------------------------------------------------------------ pathological inputs, cheaply

#: Only a decoder that never returns takes this long: a deadline against a hang, not a speed
#: test (what the decoder may do is bounded by what it may allocate, whatever the machine).
HANG_SECONDS = 60.0


def cheaply(fn, *args, max_bytes: int = 4 * MAX_FRAME_BYTES) -> ProtocolError:
    """Run fn and return its ProtocolError; it must return, and allocate little on the way."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            fn(*args)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)
        else:
            outcome.append(None)

    tracemalloc.start()
    try:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(HANG_SECONDS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome, f"still running after {HANG_SECONDS:g} s"
    error = outcome[0]
    assert isinstance(error, ProtocolError), f"expected a ProtocolError, got {error!r}"
    assert peak < max_bytes, f"allocated {peak} bytes"
    return error


@pytest.mark.parametrize("opener", [b"\x91", b"\x81\xa1k"], ids=["arrays", "maps"])
def test_very_deep_nesting_is_refused(opener):
    payload = opener * 100_000 + b"\xc0"
    error = cheaply(decode_payload, payload, max_bytes=4 * len(payload))
    assert error.code is ErrorCode.BAD_FRAME


@pytest.mark.parametrize("length", [MAX_FRAME_BYTES + 1, 2**31, 2**32 - 1])
def test_huge_length_header_is_refused_without_waiting_or_allocating(length):
    buffer = FrameBuffer()
    error = cheaply(buffer.feed, HEADER.pack(length) + b"\x81")
    assert error.code is ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize("header", [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff",
                                    b"\xdb\xff\xff\xff\xff", b"\xc6\xff\xff\xff\xff",
                                    b"\xc9\xff\xff\xff\xff\x01"],
                         ids=["array", "map", "string", "binary", "ext"])
def test_payload_claiming_huge_sizes_is_refused(header):
    error = cheaply(decode_payload, header + b"\x00" * 16)
    assert error.code is ErrorCode.BAD_FRAME


def test_many_small_items_within_one_frame_are_fine():
    # 64 KiB of one-byte items: the largest array a frame can carry decodes, and parse refuses it.
    payload = b"\x82\xa4type\xa4ping\xa2id\xdd" + (MAX_FRAME_BYTES - 20).to_bytes(4, "big")
    payload += b"\xc0" * (MAX_FRAME_BYTES - 20)
    frame = HEADER.pack(len(payload)) + payload
    assert len(payload) <= MAX_FRAME_BYTES
    (got,) = FrameBuffer().feed(frame)
    error = cheaply(decode_and_parse_raising, got, max_bytes=32 * MAX_FRAME_BYTES)  # the list itself, and repr() of it
    assert (error.code, error.field) == (ErrorCode.INVALID, "id")


def decode_and_parse_raising(payload: bytes) -> None:
    parse(decode_payload(payload), Direction.CLIENT)


@pytest.mark.parametrize("depth", [100, 500, 900])
def test_moderately_deep_values_in_a_field(depth):
    """Nesting the decoder accepts is refused by parse with a short message."""
    value: list = []
    for _ in range(depth):
        value = [value]
    error = cheaply(decode_and_parse_raising, msgpack.packb({"type": "ping", "id": value}))
    assert (error.code, error.field) == (ErrorCode.INVALID, "id")
    assert len(error.message) < 200


@pytest.mark.parametrize("field", ["id", "type"])
def test_deepest_decodable_nesting_in_a_field(field):
    value: list = []
    for _ in range(1020):  # with the map around it, just within msgpack's 1024 levels
        value = [value]
    payload = msgpack.packb({"type": "ping", field: value})
    decode_payload(payload)  # msgpack accepts this depth …
    with pytest.raises(ProtocolError):  # … so parse must refuse it with its own error
        parse(decode_payload(payload), Direction.CLIENT)


def test_encoded_frames_are_within_what_the_buffer_holds():
    frame = encode_frame({"type": "chat", "game": 1, "text": "x" * (MAX_FRAME_BYTES - 40)})
    buffer = FrameBuffer()
    assert buffer.feed(frame[:-1]) == []
    assert buffer.buffered == len(frame) - 1 <= MAX_FRAME_BYTES + HEADER.size
    assert len(buffer.feed(frame[-1:])) == 1
