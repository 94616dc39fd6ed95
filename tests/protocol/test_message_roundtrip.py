"""Every message type of the catalogue survives encode → frame → split → decode → parse."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.framing import FrameBuffer, decode_payload, encode_frame
from protocol.messages import CATALOGUE, Direction, Message, field_specs, parse
from protocol.schema import Optional, Spec

from .spec_examples import example_message, valid_messages

ALL_MESSAGES = [cls for direction in Direction for cls in CATALOGUE[direction].values()]
IDS = [f"{cls.DIRECTION.name.lower()}:{cls.TYPE}" for cls in ALL_MESSAGES]


def through_the_wire(msg: Message, chunk: int | None = None) -> Message:
    """Encode, frame, split with a FrameBuffer (in ``chunk``-byte pieces), decode and parse."""
    frame = encode_frame(msg.to_wire())
    buffer = FrameBuffer()
    step = chunk or len(frame)
    payloads = []
    for start in range(0, len(frame), step):
        payloads += buffer.feed(frame[start:start + step])
    assert len(payloads) == 1, f"expected one payload, got {len(payloads)}"
    assert buffer.buffered == 0
    return parse(decode_payload(payloads[0]), msg.DIRECTION)


def test_the_catalogue_covers_the_issue():
    """The issue's minimum catalogue, so a rename or a lost registration is noticed."""
    client = {"hello", "ping", "create_table", "join_table", "join_invite", "quick_match", "play_bot",
              "leave", "watch", "sync", "commit", "open", "exchange", "remove", "place", "resign",
              "rematch", "chat"}
    server = {"welcome", "pong", "error", "bye", "ack", "lobby", "lobby_update", "game_state", "update"}
    assert client <= set(CATALOGUE[Direction.CLIENT])
    assert server <= set(CATALOGUE[Direction.SERVER])


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_declaration_is_complete(cls):
    assert CATALOGUE[cls.DIRECTION][cls.TYPE] is cls
    assert [name for name, _, _ in field_specs(cls)] == [f.name for f in dataclasses.fields(cls)]
    assert all(isinstance(spec, Spec) for _, spec, _ in field_specs(cls))
    assert "type" not in {f.name for f in dataclasses.fields(cls)}, "`type` is the frame's own key"
    doc = cls.__dict__.get("__doc__") or ""
    assert doc.strip() and not doc.startswith(cls.__name__ + "("), f"{cls.__name__} has no docstring"


def test_type_names_do_not_clash_across_directions():
    # A name used both ways would make errors and docs ambiguous.
    assert not set(CATALOGUE[Direction.CLIENT]) & set(CATALOGUE[Direction.SERVER])


@pytest.mark.parametrize("optional", ["filled", "omitted", "nil"])
@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_round_trip(cls, optional):
    msg = example_message(cls, optional=optional)
    assert through_the_wire(msg) == msg
    assert through_the_wire(msg, chunk=1) == msg  # byte by byte through the FrameBuffer


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_wire_form_is_plain_msgpack(cls):
    msg = example_message(cls)
    wire = msg.to_wire()
    assert wire["type"] == cls.TYPE
    # What any msgpack implementation reads back is the same map, and re-encoding is stable.
    payload = msgpack.packb(wire, use_bin_type=True)
    assert msgpack.unpackb(payload, raw=False) == wire
    assert encode_frame(wire) == len(payload).to_bytes(4, "big") + payload
    assert through_the_wire(msg).to_wire() == wire


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_nil_optional_fields_are_left_out(cls):
    wire = example_message(cls, optional="nil").to_wire()
    for name, spec, _ in field_specs(cls):
        if isinstance(spec, Optional):
            assert name not in wire


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_wrong_direction_is_an_unknown_type(cls):
    from protocol.errors import ErrorCode, ProtocolError

    other = Direction.SERVER if cls.DIRECTION is Direction.CLIENT else Direction.CLIENT
    with pytest.raises(ProtocolError) as caught:
        parse(example_message(cls).to_wire(), other)
    assert caught.value.code is ErrorCode.UNKNOWN_TYPE


def test_spectator_game_state_round_trips():
    """A watcher's game_state has no seat (nil); the client must still accept it."""
    state = m.GameState(game=7, version=3, seat=None, players={}, options={}, view={}, clocks={})
    assert through_the_wire(state) == state


def test_several_frames_in_one_chunk_come_out_in_order():
    msgs = [example_message(cls) for cls in CATALOGUE[Direction.CLIENT].values()]
    stream = b"".join(encode_frame(msg.to_wire()) for msg in msgs)
    buffer = FrameBuffer()
    payloads = buffer.feed(stream[:-1]) + buffer.feed(stream[-1:])
    assert [parse(decode_payload(p), Direction.CLIENT) for p in payloads] == msgs


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_round_trip_of_generated_messages(cls, data):
    msg = data.draw(valid_messages(cls))
    chunk = data.draw(st.integers(1, 64))
    assert through_the_wire(msg, chunk) == msg
