"""Frames that cost the server more than they should: refusals between pings, oversized requests.

A frame the server refuses costs it as much as one it accepts (decoding, validating,
answering), and decoding costs in proportion to the bytes.  Both used to be free of the
message rate: a ping after every nine refusals reset the count of refusals in a row, so
one connection could have 180 frames a second refused for ever; and a request could be
as large as any frame (64 KiB, some 10 ms of decoding when packed with small values).
One such connection took a bystander's ping from 0.4 ms to about 100 ms, three to
400 ms (``bench/costly_frames.py``).
"""

from __future__ import annotations

from protocol.framing import MAX_FRAME_BYTES, encode_payload
from protocol.messages import CHAT_CHARS
from server.config import Limits

from .conftest import until
from .hostile import HostilePeer, Tally, frame, hello, raw_frame

LIMITS = Limits()


def padded_ping(size: int) -> bytes:
    """A valid ping whose payload is ``size`` (256–65,535) bytes: an unknown field is ignored."""
    empty = len(encode_payload({"type": "ping", "pad": b""}))
    payload = encode_payload({"type": "ping", "pad": bytes(size - empty - 1)})  # bin 16: one byte more of header
    assert len(payload) == size
    return raw_frame(payload)


async def test_refusals_slipped_between_pings_are_held_to_the_message_rate(server):
    peer = await HostilePeer.open(server.port, "127.0.0.2", Tally())
    assert await peer.greet("mallory")
    refused_in_a_row = LIMITS.errors_before_disconnect - 1
    pings = LIMITS.message_burst // 2  # well within the rate of messages, by themselves
    batch = ([raw_frame(b"\xc1")] * refused_in_a_row + [frame({"type": "ping"})]) * pings
    peer.writer.write(b"".join(batch))  # all at once: the rate refills nothing meanwhile
    await until(lambda: peer.closed.is_set() or peer.answers > len(batch), "the server's answers or its close")
    assert peer.bye == "misbehaving", f"{peer.answers - 1:,} frames answered, and the connection is still open"
    assert peer.answers - 1 <= LIMITS.message_burst + LIMITS.errors_before_disconnect < len(batch)
    await peer.close()


async def test_a_request_larger_than_any_the_protocol_has_is_refused_unread(server):
    fits = await HostilePeer.open(server.port, "127.0.0.2", Tally())
    assert await fits.greet("fits")
    await fits.send([padded_ping(LIMITS.request_bytes)])
    assert fits.frames[-1]["type"] == "pong"
    await fits.close()

    too_big = await HostilePeer.open(server.port, "127.0.0.2", Tally())
    assert await too_big.greet("too-big")
    await too_big.send([padded_ping(LIMITS.request_bytes + 1)])
    await until(lambda: too_big.closed.is_set() or too_big.answers > 1, "the server's answer")
    assert [f.get("code") for f in too_big.frames[1:]] == ["frame_too_large", "misbehaving"]
    await too_big.close()


def test_the_longest_requests_fit_and_frames_from_the_server_may_be_larger():
    longest_chat = {"type": "chat", "game": 2**53, "text": "\U00013080" * CHAT_CHARS, "id": 2**31 - 1}
    longest_hello = hello("\U00013080" * 24, resume="r" * 64, version="1." + "9" * 14, id=2**31 - 1)
    for request in (longest_chat, longest_hello):
        assert len(encode_payload(request)) <= LIMITS.request_bytes
    assert LIMITS.request_bytes < LIMITS.frame_bytes == MAX_FRAME_BYTES
