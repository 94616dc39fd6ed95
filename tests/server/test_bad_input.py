"""Garbage, truncated, oversized and malformed input: answered or disconnected, never a crash."""

from __future__ import annotations

import asyncio
import random
import struct

import msgpack
import pytest

from protocol import messages as m
from protocol.framing import encode_frame
from protocol.messages import PROTOCOL_VERSION, Direction, parse
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from .players import RawPeer, frame_of, matched_pair


async def test_wrong_types_are_answered_with_the_field_and_the_problem(server):
    peer = await RawPeer.open(server.port)
    peer.send({"type": "place", "game": 1, "temple": "x", "square": 3, "id": 7})
    error = await peer.read()
    assert error == {"type": "error", "code": "invalid", "message": 'temple: expected an integer 1–4, got "x"',
                     "field": "temple", "reply_to": 7}
    peer.send({"type": "open", "game": 1, "cards": [1, 2, "x", 4], "nonce": bytes(16), "id": 8})
    error = await peer.read()
    assert error["message"] == 'cards[2]: expected an integer 1–4, got "x"'
    assert error["reply_to"] == 8


async def test_unknown_types_and_out_of_place_messages_get_errors(server):
    peer = await RawPeer.open(server.port)
    peer.send({"type": "teleport", "id": 1})
    error = await peer.read()
    assert (error["code"], error["reply_to"]) == ("unknown_type", 1)
    peer.send({"type": "hello", "version": "1.0", "name": "again", "kind": "human", "id": 2})
    assert (await peer.read())["code"] == "not_allowed"
    peer.send({"type": "place", "game": 99, "temple": 1, "square": 0, "id": 3})
    error = await peer.read()
    assert (error["code"], error["message"]) == ("not_found", "there is no game 99")
    peer.send({"type": "ping", "id": 4})
    assert await peer.read() == {"type": "pong", "reply_to": 4}


async def test_garbage_bytes_get_an_error_then_a_disconnect(server):
    peer = await RawPeer.open(server.port)
    for _ in range(server.limits.errors_before_disconnect):
        peer.send_bytes(frame_of(b"\xc1\xc1\xc1"))
    frames = await peer.read_until_closed()
    assert frames[0]["code"] == "bad_frame"
    assert frames[-1] == {"type": "bye", "code": "misbehaving", "reason": "too many malformed messages"}


async def test_a_frame_that_is_not_a_map_is_refused(server):
    peer = await RawPeer.open(server.port)
    peer.send_bytes(frame_of(msgpack.packb([1, 2, 3])))
    assert (await peer.read())["code"] == "bad_frame"
    peer.send_bytes(frame_of(msgpack.packb({1: 2})))
    assert (await peer.read())["code"] == "bad_frame"


async def test_an_oversized_frame_is_refused_before_it_is_read(server):
    peer = await RawPeer.open(server.port)
    peer.send_bytes(struct.pack(">I", 10 * 1024 * 1024))  # announces 10 MiB, sends nothing more
    frames = await peer.read_until_closed()
    assert frames[0]["code"] == "frame_too_large"
    assert frames[-1]["type"] == "bye"


async def test_a_truncated_frame_then_a_hang_up_is_harmless(server):
    peer = await RawPeer.open(server.port)
    peer.send_bytes(struct.pack(">I", 100) + b"\x81\xa4type")
    await peer.writer.drain()
    peer.close()
    # the server is still fine for everybody else
    fresh = await RawPeer.open(server.port)
    fresh.send({"type": "ping", "id": 1})
    assert (await fresh.read())["type"] == "pong"


async def test_the_first_message_must_be_hello(server):
    peer = await RawPeer.open(server.port, hello=False)
    peer.send({"type": "ping", "id": 1})
    frames = await peer.read_until_closed()
    assert frames[0]["code"] == "not_allowed"
    assert frames[-1]["type"] == "bye"


BAD_FIRST_FRAMES = {
    "ping": frame_of(msgpack.packb({"type": "ping", "id": 1})),
    "hello-long-name-with-a-bell": encode_frame({"type": "hello", "version": "1.2", "name": "\x07" * 30,
                                                 "kind": "human"}),
    "hello-bad-kind": encode_frame({"type": "hello", "version": "1.2", "name": "x", "kind": "\x1b[2J"}),
    "hello-without-version": encode_frame({"type": "hello", "name": "x", "kind": "human"}),
    "no-type": encode_frame({"version": "1.2"}),
    "binary-type": encode_frame({"type": b"hello"}),
    "not-a-map": frame_of(msgpack.packb([1, 2])),
    "undecodable": frame_of(b"\xc1"),
    "too-large": struct.pack(">I", 10 * 1024 * 1024),
}


@pytest.mark.parametrize("data", BAD_FIRST_FRAMES.values(), ids=BAD_FIRST_FRAMES.keys())
async def test_a_bad_first_frame_gets_error_then_bye_that_a_client_can_read(server, data):
    peer = await RawPeer.open(server.port, hello=False)
    peer.send_bytes(data)
    error, bye = [parse(frame, Direction.SERVER) for frame in await peer.read_until_closed()]
    assert isinstance(error, m.Error) and isinstance(bye, m.Bye)
    assert bye.code == "misbehaving" and bye.reason.startswith("the handshake failed: ")
    for text in (error.message, bye.reason):
        assert text.isprintable() and "None" not in text and "b'" not in text


async def test_an_unsupported_major_version_is_told_so_and_closed(server):
    peer = await RawPeer.open(server.port, hello=False)
    peer.send({"type": "hello", "version": "2.0", "name": "future", "kind": "human", "id": 1})
    frames = await peer.read_until_closed()
    assert frames[0]["code"] == "unsupported_version"
    assert PROTOCOL_VERSION in frames[0]["message"] and "2.0" in frames[0]["message"]
    assert frames[-1]["code"] == "unsupported_version"


async def test_a_silent_socket_is_closed_after_the_handshake_time(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "h.db"), limits=Limits(handshake_seconds=0.2)))
    await srv.start()
    try:
        peer = await RawPeer.open(srv.port, hello=False)
        frames = await peer.read_until_closed()
        assert frames[0]["code"] == "timeout"
    finally:
        await srv.stop()


async def test_an_idle_connection_is_closed_and_a_pinging_one_is_kept(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "i.db"), limits=Limits(idle_seconds=0.5)))
    await srv.start()
    try:
        silent, lively = await RawPeer.open(srv.port), await RawPeer.open(srv.port)
        for i in range(8):  # 0.8 s in all, never 0.5 s without a frame
            lively.send({"type": "ping", "id": i})
            assert (await lively.read())["type"] == "pong"
            await asyncio.sleep(0.1)
        frames = await silent.read_until_closed()
        assert frames[-1]["type"] == "bye" and frames[-1]["code"] == "timeout"
        lively.send({"type": "ping", "id": 99})
        assert (await lively.read())["type"] == "pong"
    finally:
        await srv.stop()


async def test_a_flood_is_rate_limited_then_disconnected(tmp_path):
    limits = Limits(messages_per_second=5, message_burst=5, errors_before_disconnect=5)
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "f.db"), limits=limits))
    await srv.start()
    try:
        peer = await RawPeer.open(srv.port)
        for i in range(50):
            peer.send({"type": "ping", "id": i})
        frames = await peer.read_until_closed()
        assert [f["type"] for f in frames[:5]] == ["pong"] * 5
        assert any(f.get("code") == "rate_limited" for f in frames)
        assert frames[-1]["code"] == "misbehaving"
    finally:
        await srv.stop()


async def test_connection_limits_per_address(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "c.db"),
                                     limits=Limits(max_connections_per_address=2)))
    await srv.start()
    try:
        kept = [await RawPeer.open(srv.port), await RawPeer.open(srv.port)]
        third = await RawPeer.open(srv.port, hello=False)
        frames = await third.read_until_closed()
        assert frames[0]["code"] == "server_full"
        for peer in kept:
            peer.close()
    finally:
        await srv.stop()


@pytest.mark.parametrize("attack", ["garbage", "oversized", "wrong_types", "unknown", "flood", "moves"])
async def test_a_game_beside_a_misbehaving_client_is_unaffected(server, attack):
    red, blue = await matched_pair(server.port)
    game_id = red.game
    peer = await RawPeer.open(server.port)
    if attack == "garbage":
        peer.send_bytes(b"\x00\x00\x00\x05hello" * 20)
    elif attack == "oversized":
        peer.send_bytes(struct.pack(">I", 2**31))
    elif attack == "wrong_types":
        for field in ("game", "temple", "square"):
            peer.send({"type": "place", "game": game_id, "temple": 1, "square": 1, field: [None]})
    elif attack == "unknown":
        peer.send({"type": "become_red", "game": game_id})
    elif attack == "flood":
        for _ in range(200):
            peer.send({"type": "ping"})
    else:  # moves in a game it does not play, and watching then moving
        peer.send({"type": "watch", "game": game_id})
        for kind in ("resign", "exchange"):
            peer.send({"type": kind, "game": game_id})
        peer.send({"type": "commit", "game": game_id, "digest": bytes(32)})
    await peer.writer.drain()
    await asyncio.gather(red.play(random.Random(7)), blue.play(random.Random(8)))
    assert red.view["winner"] == blue.view["winner"] is not None
    assert red.view["reason"] not in ("resign", "time", "abandoned")
    assert not red.errors() and not blue.errors()
    peer.close()


def test_every_client_message_parses_only_in_its_own_direction():
    with pytest.raises(Exception) as info:
        parse({"type": "welcome"}, Direction.CLIENT)
    assert 'unknown message type "welcome"' in str(info.value)
    assert parse({"type": "ping"}, Direction.CLIENT) == m.Ping()
