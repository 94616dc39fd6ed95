"""Validation failures of every field kind produce the documented error (code, field, message).

Each case takes a valid frame of some message, spoils one field, and pins the exact
``ProtocolError`` that ``parse`` raises.  The server sends these as ``error`` frames, so
every error here must itself be a valid ``error`` message.
"""

from __future__ import annotations

import asyncio
import dataclasses

import msgpack
import pytest

from protocol import messages as m
from protocol.errors import ERROR_MEANINGS, ErrorCode, ProtocolError
from protocol.framing import MAX_FRAME_BYTES, FrameBuffer, decode_payload, encode_frame, read_payload
from protocol.messages import CATALOGUE, Direction, Message, field_specs, parse, request_id
from protocol.schema import Binary, Bool, Int, Items, ListOf, MapOf, OneOf, Optional, Plain, Record, Spec, Text, shown

from .spec_examples import example_message

SPEC_KINDS = {Int, Bool, Text, OneOf, Binary, ListOf, MapOf, Optional, Record, Items, Plain}
ALL_MESSAGES = [cls for direction in Direction for cls in CATALOGUE[direction].values()]
IDS = [f"{cls.DIRECTION.name.lower()}:{cls.TYPE}" for cls in ALL_MESSAGES]


def spoiled(cls: type[Message], **changes) -> dict:
    """A valid wire map of ``cls`` with some fields replaced (``...`` removes one)."""
    wire = example_message(cls).to_wire()
    for name, value in changes.items():
        if value is ...:
            wire.pop(name, None)
        else:
            wire[name] = value
    return wire


def rejection(data, direction: Direction) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse(data, direction)
    return caught.value


def assert_sendable(error: ProtocolError, reply_to: int | None = None) -> None:
    """The error fits the ``error`` message it is reported in (the client parses that too)."""
    frame = m.Error(code=error.code.value, message=error.message, field=error.field, reply_to=reply_to)
    assert parse(decode_payload(FrameBuffer().feed(encode_frame(frame.to_wire()))[0]),
                 Direction.SERVER) == frame


# (id, message class, spoiled fields, field, message) — all with code INVALID.
#: (id, message class, fields changed in its example, the field named by the error, the error's message)
INVALID_CASES: list[tuple[str, type[Message], dict[str, object], str, str]] = [
    # Int
    ("int-above", m.Remove, {"temple": 5}, "temple", "temple: expected an integer 1–4, got 5"),
    ("int-below", m.Place, {"square": -1}, "square", "square: expected an integer 0–11, got -1"),
    ("int-bool", m.Remove, {"temple": True}, "temple", "temple: expected an integer 1–4, got true"),
    ("int-float", m.Place, {"temple": 2.0}, "temple", "temple: expected an integer 1–4, got 2.0"),
    ("int-string", m.Resign, {"game": "12"}, "game",
     'game: expected an integer 1–9007199254740992, got "12"'),
    ("int-huge", m.Sync, {"game": 2**64 - 1}, "game",
     "game: expected an integer 1–9007199254740992, got 18446744073709551615"),
    # Bool
    ("bool-int", m.Rematch, {"accept": 1}, "accept", "accept: expected true or false, got 1"),
    ("bool-string", m.CreateTable, {"private": "yes"}, "private",
     'private: expected true or false, got "yes"'),
    # Text
    ("text-empty", m.Chat, {"text": ""}, "text", 'text: expected a string of 1–200 characters, got ""'),
    ("text-long", m.Chat, {"text": "x" * 201}, "text",
     'text: expected a string of 1–200 characters, got "' + "x" * 36 + "..."),
    ("text-bytes", m.Hello, {"name": b"Ra"}, "name",
     "name: expected a string of 1–24 characters, got binary of 2 bytes"),
    ("text-quote", m.JoinInvite, {"code": 'a"b'}, "code",
     'code: expected a string of 4–16 characters, got "a\\"b"'),
    ("text-control-bell", m.Chat, {"text": "hi\x07"}, "text", "text: must not contain control characters"),
    ("text-control-newline", m.Hello, {"name": "Ra\nSet"}, "name",
     "name: must not contain control characters"),
    ("text-control-escape", m.Chat, {"text": "\x1b[2Jboo"}, "text",
     "text: must not contain control characters"),
    # OneOf
    ("oneof-unknown", m.Hello, {"kind": "robot"}, "kind",
     'kind: expected one of "human", "bot", "spectator", got "robot"'),
    ("oneof-case", m.QuickMatch, {"clock": "Blitz"}, "clock",
     'clock: expected one of "blitz", "normal", "relaxed", got "Blitz"'),
    ("oneof-int", m.PlayBot, {"level": 1}, "level",
     'level: expected one of "random", "easy", "normal", "hard", got 1'),
    ("oneof-list", m.Hello, {"kind": ["bot"]}, "kind",
     'kind: expected one of "human", "bot", "spectator", got ["bot"]'),
    # Binary
    ("binary-short", m.Commit, {"digest": b"\x00" * 31}, "digest",
     "digest: expected binary of 32 bytes, got binary of 31 bytes"),
    ("binary-string", m.Commit, {"digest": "ab" * 16}, "digest",
     'digest: expected binary of 32 bytes, got "' + "ab" * 16 + '"'),
    ("binary-range", m.Open, {"nonce": b"ab"}, "nonce",
     "nonce: expected binary of 16–64 bytes, got binary of 2 bytes"),
    ("binary-too-long", m.Open, {"nonce": bytes(65)}, "nonce",
     "nonce: expected binary of 16–64 bytes, got binary of 65 bytes"),
    # ListOf, including the issue's own example
    ("listof-bad-item", m.Open, {"cards": [1, 2, "x", 4]}, "cards[2]",
     'cards[2]: expected an integer 1–4, got "x"'),
    ("listof-item-range", m.Open, {"cards": [1, 2, 3, 0]}, "cards[3]",
     "cards[3]: expected an integer 1–4, got 0"),
    ("listof-short", m.Open, {"cards": [1, 2, 3]}, "cards",
     "cards: expected a list of 4 items, each an integer 1–4, got [1, 2, 3]"),
    ("listof-long", m.Open, {"cards": [1, 2, 3, 4, 1]}, "cards",
     "cards: expected a list of 4 items, each an integer 1–4, got [1, 2, 3, 4, 1]"),
    ("listof-map", m.Open, {"cards": {"0": 1}}, "cards",
     'cards: expected a list of 4 items, each an integer 1–4, got {"0": 1}'),
    # Optional: nil is fine (see below); a present value must satisfy the inner spec
    ("optional-inner", m.Hello, {"resume": "short"}, "resume",
     'resume: expected a string of 16–64 characters, got "short"'),
    ("optional-id", m.Ping, {"id": -1}, "id", "id: expected an integer 0–2147483647, got -1"),
    ("optional-id-big", m.Chat, {"id": 2**31}, "id",
     "id: expected an integer 0–2147483647, got 2147483648"),
    ("optional-oneof", m.PlayBot, {"seat": "green"}, "seat",
     'seat: expected one of "red", "blue", got "green"'),
    # MapOf
    ("mapof-unknown-key", m.DealRevealed, {"opened": {"green": bytes(32)}}, "opened",
     'opened: expected a map from red or blue to binary of 32 bytes, got {"green": binary of 32 bytes}'),
    ("mapof-bad-value", m.DealRevealed, {"opened": {"red": bytes(31)}}, "opened.red",
     "opened.red: expected binary of 32 bytes, got binary of 31 bytes"),
    ("mapof-list", m.Deal, {"fills": ["red"]}, "fills",
     'fills: expected a map from red or blue to one of "server", "commitment", got ["red"]'),
    # Record
    ("record-list", m.Welcome, {"limits": [1]}, "limits",
     "limits: expected a map (frame_bytes, messages_per_second, chat_chars, handshake_seconds), "
     "got [1]"),
    ("record-too-many-keys", m.GameState, {"view": {f"k{i}": i for i in range(65)}}, "view",
     "view: expected a map (the receiver's view, see 'The view'), "
     'got {"k0": 0, "k1": 1, "k2": 2, "k3": 3, ...'),
    ("record-string", m.LobbyUpdate, {"item": "x"}, "item",
     'item: expected a map (an entry of that section; for remove only its key), got "x"'),
    # Items
    ("items-map", m.Lobby, {"players": {"a": 1}}, "players",
     'players: expected a list of up to 5000 maps (player entries: name, kind, status; since 1.6 ratings), '
     'got {"a": 1}'),
    ("items-bad-entry", m.Lobby, {"players": [{"name": "Ra"}, 3]}, "players[1]",
     "players[1]: expected a map, got 3"),
    ("items-too-many", m.Update, {"events": [{}] * 4001}, "events",
     "events: expected a list of up to 4000 maps (events, see 'Events'), "
     "got [{}, {}, {}, {}, {}, {}, {}, {}, {}, ..."),
    # A required field that is missing, or nil
    ("missing", m.Remove, {"temple": ...}, "temple",
     "temple: required field is missing (expected an integer 1–4)"),
    ("missing-nil", m.Open, {"nonce": None}, "nonce",
     "nonce: required field is missing (expected binary of 16–64 bytes)"),
    ("missing-list", m.Lobby, {"games": ...}, "games",
     "games: required field is missing (expected a list of up to 5000 maps "
     "(games in progress: game, red, blue, round, scores, clock; since 1.6 rated, ratings; since 1.7 kind, "
     "people))"),
    # A move of Atlas & Zeus is bounded all the way down
    ("move-too-deep", m.Act, {"move": {"kind": "transfer", "steps": [[["R1"]], 2]}}, "move.steps[0][0]",
     'move.steps[0][0]: expected an integer, a string of at most 16 characters or a list of at most 3 of them '
     '(nested 2 deep), got ["R1"]'),
    ("move-too-long", m.Act, {"move": {"kind": "transfer", "steps": [["R1", 2]] * 4}}, "move.steps",
     'move.steps: expected an integer, a string of at most 16 characters or a list of at most 3 of them '
     '(nested 2 deep), got [["R1", 2], ["R1", 2], ["R1", 2], ["R...'),
    ("move-not-a-map", m.Act, {"move": [1]}, "move",
     "move: expected a map of at most 4 keys (a move of Atlas & Zeus, see 'Atlas & Zeus'), got [1]"),
]


@pytest.mark.parametrize("cls, changes, field, message",
                         [case[1:] for case in INVALID_CASES], ids=[case[0] for case in INVALID_CASES])
def test_invalid_field(cls, changes, field, message):
    error = rejection(spoiled(cls, **changes), cls.DIRECTION)
    assert error.code is ErrorCode.INVALID
    assert error.field == field
    assert error.message == message
    assert str(error) == message
    assert_sendable(error, reply_to=7)


def test_every_spec_kind_has_a_failure_case():
    """A new Spec kind (or one dropped from the cases) shows up here."""

    def kinds(spec: Spec):
        yield type(spec)
        for inner in (getattr(spec, "item", None), getattr(spec, "inner", None), getattr(spec, "value", None)):
            if inner is not None:
                yield from kinds(inner)

    covered = set()
    for _, cls, changes, _, _ in INVALID_CASES:
        specs = {name: spec for name, spec, _ in field_specs(cls)}
        for name in changes:
            covered.update(kinds(specs[name]))
    used = {kind for cls in ALL_MESSAGES for _, spec, _ in field_specs(cls) for kind in kinds(spec)}
    assert covered >= SPEC_KINDS
    assert used <= SPEC_KINDS, f"untested Spec kinds: {used - SPEC_KINDS}"


def test_the_issue_example_with_its_request_id():
    data = {"type": "open", "game": 3, "cards": [1, 4, "x", 2], "nonce": bytes(16), "id": 42}
    data = decode_payload(encode_frame(data)[4:])
    error = rejection(data, Direction.CLIENT)
    assert (error.code, error.field, error.message) == (
        ErrorCode.INVALID, "cards[2]", 'cards[2]: expected an integer 1–4, got "x"')
    assert request_id(data) == 42  # the error reply echoes it


@pytest.mark.parametrize("bad, expected", [({"id": "7"}, None), ({"id": -1}, None), ({"id": 2**31}, None),
                                           ({"id": True}, None), ({}, None), ({"id": 0}, 0)])
def test_request_id_of_a_bad_frame(bad, expected):
    assert request_id({"type": "nope", **bad}) == expected
    assert request_id([1, 2]) is None


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=IDS)
def test_every_required_field_is_required(cls):
    """Dropping a required field (or sending nil) names it; dropping another is fine."""
    for name, spec, required in field_specs(cls):
        for absent in (..., None):
            data = spoiled(cls, **{name: absent})
            if required:
                error = rejection(data, cls.DIRECTION)
                assert (error.code, error.field) == (ErrorCode.INVALID, name)
                assert error.message == f"{name}: required field is missing ({spec.expected()})"
            else:  # it takes its default (nil when it has none)
                default = next(f.default for f in dataclasses.fields(cls) if f.name == name)
                expected = None if default is dataclasses.MISSING else default
                assert getattr(parse(data, cls.DIRECTION), name) == expected


def test_optional_nil_and_absent_are_the_same():
    assert parse({"type": "hello", "version": "1.0", "name": "Ra", "kind": "bot", "resume": None},
                 Direction.CLIENT) == m.Hello(version="1.0", name="Ra", kind="bot")


def test_error_messages_may_carry_control_characters():
    # Error.message is declared printable=False: server text with a newline still parses.
    error = m.Error(code="internal", message="line one\nline two")
    assert parse(error.to_wire(), Direction.SERVER) == error


def test_unknown_fields_are_ignored():
    """Forward compatibility: a newer minor version may add fields."""
    assert parse({"type": "ping", "id": 3, "extra": [1, 2]}, Direction.CLIENT) == m.Ping(id=3)


def known(direction: Direction) -> str:
    return ", ".join(sorted(CATALOGUE[direction]))


@pytest.mark.parametrize("data, shown", [
    ({"type": "fly"}, '"fly"'),
    ({"type": "welcome", "server": "x"}, '"welcome"'),  # a server message sent by a client
    ({"type": 5}, "5"),
    ({"type": True}, "true"),
    ({"type": b"ping"}, "binary of 4 bytes"),
    ({"type": ["ping"]}, '["ping"]'),
    ({"type": {"a": None}}, '{"a": nil}'),
    ({"type": "\x1b[2J\u202e"}, '"\\u001b[2J\\u202e"'),  # escapes, not control characters
])
def test_unknown_type(data, shown):
    error = rejection(data, Direction.CLIENT)
    assert error.code is ErrorCode.UNKNOWN_TYPE
    assert error.field == "type"
    assert error.message == (
        f"type: unknown message type {shown} (expected one of: {known(Direction.CLIENT)})")
    assert_sendable(error)


@pytest.mark.parametrize("data", [
    {"id": 1},
    {"type": None},
    decode_payload(b"\x81\xc4\x04type\xa4ping"),  # a binary key is not the string key
])
def test_a_missing_type_is_named(data):
    error = rejection(data, Direction.CLIENT)
    assert (error.code, error.field) == (ErrorCode.UNKNOWN_TYPE, "type")
    assert error.message == f"type: required field is missing (expected one of: {known(Direction.CLIENT)})"
    assert_sendable(error)


@pytest.mark.parametrize("value", [None, b"ping", True, [None, b"x"], {"k": (1, 2.5)}])
def test_offending_values_are_shown_in_wire_terms_never_as_python(value):
    text = shown(value)
    for python in ("None", "b'", "True", "(", "'"):
        assert python not in text


def test_unknown_type_lists_the_server_types_for_a_client():
    error = rejection({"type": "hello"}, Direction.SERVER)
    assert error.code is ErrorCode.UNKNOWN_TYPE
    assert error.message.endswith(f"(expected one of: {known(Direction.SERVER)})")
    assert "welcome" in error.message and "hello, " not in error.message


def test_unknown_type_error_stays_sendable_for_a_huge_type():
    error = rejection({"type": "x" * 60_000}, Direction.CLIENT)
    assert error.code is ErrorCode.UNKNOWN_TYPE
    assert_sendable(error)


@pytest.mark.parametrize("data", [[1, 2], "hello", 5, None, b"\x81", True, 1.5])
def test_non_map_frame(data):
    error = rejection(data, Direction.CLIENT)
    assert (error.code, error.field, error.message) == (
        ErrorCode.BAD_FRAME, None, "a frame must hold one msgpack map")
    assert_sendable(error)


def test_non_map_payload_through_the_decoder():
    data = decode_payload(msgpack.packb([{"type": "ping"}]))
    assert rejection(data, Direction.CLIENT).code is ErrorCode.BAD_FRAME


# ------------------------------------------------------------------ decoder and framing errors

UNDECODABLE = [
    pytest.param(b"\xc1", id="never-used-byte"),
    pytest.param(b"\x82\xa4type", id="truncated-map"),
    pytest.param(b"\xc0\xc0", id="trailing-bytes"),
    pytest.param(b"\x81\x01\x02", id="integer-map-key"),
    pytest.param(b"\xd4\x01\x00", id="ext-type"),
    pytest.param(b"\xc7\x00\x05", id="empty-ext"),
    pytest.param(b"\xa2\xff\xfe", id="invalid-utf8"),
    pytest.param(b"\xdd\xff\xff\xff\xff", id="array-claims-4G-items"),
    pytest.param(b"\xdf\xff\xff\xff\xff", id="map-claims-4G-pairs"),
    pytest.param(b"\xdb\xff\xff\xff\xff", id="string-claims-4GB"),
    pytest.param(b"\xc6\x7f\xff\xff\xff", id="binary-claims-2GB"),
]


@pytest.mark.parametrize("payload", UNDECODABLE)
def test_undecodable_payload(payload):
    with pytest.raises(ProtocolError) as caught:
        decode_payload(payload)
    error = caught.value
    assert error.code is ErrorCode.BAD_FRAME and error.field is None
    assert error.message.startswith("undecodable msgpack payload: ")
    assert_sendable(error)


def test_empty_payload():
    with pytest.raises(ProtocolError) as caught:
        decode_payload(b"")
    assert (caught.value.code, caught.value.message) == (ErrorCode.BAD_FRAME, "empty frame")
    # A zero-length frame is split fine and refused by the decoder.
    assert FrameBuffer().feed(b"\x00\x00\x00\x00") == [b""]


@pytest.mark.parametrize("value", ["x" * 100, b"x" * 100, [None] * 100, {str(i): None for i in range(30)}],
                         ids=["string", "binary", "array", "map"])
def test_decoder_limits_follow_max_frame(value):
    payload = msgpack.packb({"type": "chat", "text": value}, use_bin_type=True)
    assert decode_payload(payload)["text"] == value
    with pytest.raises(ProtocolError) as caught:
        decode_payload(payload, max_frame=50)
    assert caught.value.code is ErrorCode.BAD_FRAME


@pytest.mark.parametrize("length", [MAX_FRAME_BYTES + 1, 2**31, 2**32 - 1])
def test_oversized_header(length):
    buffer = FrameBuffer()
    assert buffer.feed(length.to_bytes(4, "big")[:3]) == []
    with pytest.raises(ProtocolError) as caught:
        buffer.feed(length.to_bytes(4, "big")[3:])
    error = caught.value
    assert (error.code, error.field) == (ErrorCode.FRAME_TOO_LARGE, None)
    assert error.message == f"frame of {length} bytes exceeds the {MAX_FRAME_BYTES}-byte limit"
    assert buffer.buffered <= 4
    assert_sendable(error)


def test_frame_of_exactly_the_limit_is_accepted():
    buffer = FrameBuffer(max_frame=10)
    assert buffer.feed(b"\x00\x00\x00\x0a" + bytes(9)) == []
    assert buffer.feed(b"\x01") == [bytes(9) + b"\x01"]
    with pytest.raises(ProtocolError):
        FrameBuffer(max_frame=10).feed(b"\x00\x00\x00\x0b")


def test_encode_frame_refuses_what_the_peer_would_refuse():
    with pytest.raises(ValueError, match="exceeds the 65536-byte limit"):
        encode_frame({"type": "chat", "text": "x" * MAX_FRAME_BYTES})


async def test_read_payload_refuses_an_oversized_header_before_reading():
    reader = asyncio.StreamReader()
    reader.feed_data((MAX_FRAME_BYTES + 1).to_bytes(4, "big"))  # and no body at all
    with pytest.raises(ProtocolError) as caught:
        await asyncio.wait_for(read_payload(reader), 1)
    assert caught.value.code is ErrorCode.FRAME_TOO_LARGE


async def test_read_payload_reads_one_frame():
    reader = asyncio.StreamReader()
    frame = encode_frame(m.Ping(id=1).to_wire())
    reader.feed_data(frame + frame[:2])
    assert await read_payload(reader) == frame[4:]


def test_every_error_code_has_a_meaning():
    assert set(ERROR_MEANINGS) == set(ErrorCode)
    assert all(isinstance(text, str) and text.strip() for text in ERROR_MEANINGS.values())
    # the `error` message's code field accepts exactly these
    code_spec = dict((n, s) for n, s, _ in field_specs(m.Error))["code"]
    assert isinstance(code_spec, OneOf)
    assert set(code_spec.choices) == {c.value for c in ErrorCode}
