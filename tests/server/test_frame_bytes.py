"""The bytes of the frames a server sends: what msgpack-python writes for the same data.

Frames are encoded with msgspec (``protocol.framing``), for speed; every peer that reads
them decodes msgpack, so the bytes must stay those of the protocol as it was written with
msgpack-python: the same map order, the same smallest forms of integers, str and bin.
"""

from __future__ import annotations

import asyncio
import random

import msgpack
from hypothesis import given
from hypothesis import strategies as st

from protocol import client as client_module
from protocol import messages as m
from protocol.framing import encode_payload, read_payload

from .players import Recorder, matched_pair


def as_msgpack_python_writes(payload: bytes) -> bytes:
    """The frame's data written again by msgpack-python."""
    return msgpack.packb(msgpack.unpackb(payload, raw=False, strict_map_key=False), use_bin_type=True)


async def test_every_frame_of_whole_games_is_what_msgpack_python_writes(server, monkeypatch):
    payloads: list[bytes] = []

    async def recording(reader, max_frame):
        payload = await read_payload(reader, max_frame)
        payloads.append(payload)
        return payload

    monkeypatch.setattr(client_module, "read_payload", recording)
    for seed in (1, 2):
        red, blue = await matched_pair(server.port)
        spectator = await Recorder.connect(server.port, f"watcher{seed}", kind="spectator", lobby=False)
        await spectator.send(m.Watch(game=red.game))
        await spectator.expect(m.GameState)
        watched = spectator.until(lambda f: f.view["winner"] is not None, timeout=30, kind=m.Update)
        await asyncio.gather(red.play(random.Random(seed)), blue.play(random.Random(seed + 10)), watched)
        for recorder in (red, blue, spectator):
            await recorder.close()
    kinds = {msgpack.unpackb(p)["type"] for p in payloads}
    assert {"welcome", "game_state", "update", "ack"} <= kinds
    assert len(payloads) > 200
    for payload in payloads:
        assert payload == as_msgpack_python_writes(payload)


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=8) | st.integers(-5, 5), inner, max_size=5),
    max_leaves=30)


@given(plain)
def test_plain_data_is_encoded_as_msgpack_python_encodes_it(value):
    assert encode_payload(value) == msgpack.packb(value, use_bin_type=True)
