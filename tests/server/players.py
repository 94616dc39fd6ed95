"""Scripted protocol clients for the server tests: they record every frame they receive."""

from __future__ import annotations

import asyncio
import random
import struct

from protocol import messages as m
from protocol.client import Client
from protocol.framing import decode_payload, encode_frame


class Recorder:
    """A protocol client that keeps every message it receives, in order."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.frames: list[m.Message] = []
        self.game: int | None = None
        self.seat: str | None = None
        self.view: dict | None = None
        self.clocks: dict | None = None  # the clocks that came with the latest view
        self.version = 0
        self.acted_on = -1  # the version of the last view this client answered
        self.sent: dict[int, dict] = {}  # request id -> the move it carried
        self.accepted: list[dict] = []  # moves the server acknowledged, in order

    @classmethod
    async def connect(cls, port: int, name: str, **kwargs) -> "Recorder":
        return cls(await Client.connect("127.0.0.1", port, name=name, **kwargs))

    async def send(self, msg: m.Message) -> int | None:
        return await self.client.send(msg)

    async def recv(self, timeout: float = 10) -> m.Message:
        msg = await self.client.recv(timeout)
        self.frames.append(msg)
        if isinstance(msg, m.Ack) and msg.reply_to in self.sent:
            self.accepted.append(self.sent.pop(msg.reply_to))
        if isinstance(msg, m.GameState):
            self.game, self.seat = msg.game, msg.seat
        if isinstance(msg, (m.GameState, m.Update)) and msg.game == self.game:
            self.view, self.clocks, self.version = msg.view, msg.clocks, msg.version
        return msg

    async def expect(self, kind: type, timeout: float = 10) -> m.Message:
        while True:
            msg = await self.recv(timeout)
            if isinstance(msg, kind):
                return msg

    async def until(self, predicate, timeout: float = 10) -> m.Message:
        """Receive until a message satisfies ``predicate``."""
        while True:
            msg = await self.recv(timeout)
            if predicate(msg):
                return msg

    def events(self) -> list[dict]:
        return [e for f in self.frames if isinstance(f, m.Update) for e in f.events]

    def errors(self) -> list[m.Error]:
        return [f for f in self.frames if isinstance(f, m.Error)]

    # ------------------------------------------------------------------ playing

    def my_decision(self) -> dict | None:
        """The decision this client must answer now, or None (also when already answered)."""
        view = self.view
        if self.acted_on == self.version or view is None or view["winner"] is not None or view["decision"] is None:
            return None
        decision = view["decision"]
        if decision["kind"] == "commit":
            if view["commitments"][self.seat] != "none" or self.client.has_sealed(self.game):
                return None
        return decision

    async def act(self, rng: random.Random) -> bool:
        """Make a random legal move if one is due; True if a move was sent."""
        decision = self.my_decision()
        if decision is None:
            return False
        self.acted_on = self.version
        if decision["kind"] == "commit":
            hand = list(decision["hand"])
            rng.shuffle(hand)
            request = await self.client.commit(self.game, hand)
            self.sent[request] = {"move": "commit", "cards": hand}
        else:
            temple, square = rng.choice(decision["squares"])
            kind = m.Place if decision["kind"] == "place" else m.Remove
            request = await self.send(kind(game=self.game, temple=temple, square=square))
            self.sent[request] = {"move": kind.TYPE, "temple": temple, "square": square}
        return True

    async def play(self, rng: random.Random, stop=lambda recorder: False, timeout: float = 20) -> None:
        """Play random legal moves until the game is over or ``stop(self)`` is true."""
        while not (self.view and self.view["winner"] is not None) and not stop(self):
            await self.act(rng)
            await self.recv(timeout)

    async def close(self) -> None:
        await self.client.close()


async def matched_pair(port: int, clock: str = "normal") -> tuple[Recorder, Recorder]:
    """Two clients seated at one game through the quick-match queue, ordered red, blue."""
    a = await Recorder.connect(port, "alice", kind="bot", lobby=False)
    b = await Recorder.connect(port, "bob", kind="bot", lobby=False)
    await a.send(m.QuickMatch(clock=clock))
    await a.expect(m.Queued)
    await b.send(m.QuickMatch(clock=clock))
    await asyncio.gather(a.expect(m.GameState), b.expect(m.GameState))
    return (a, b) if a.seat == "red" else (b, a)


class RawPeer:
    """A raw TCP peer that sends whatever bytes a test likes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.welcome: dict = {}

    @classmethod
    async def open(cls, port: int, hello: bool = True, source: str = "127.0.0.1", **fields) -> "RawPeer":
        """Connect from the loopback address ``source`` (any of 127.0.0.0/8) and say hello
        (``fields`` change it) unless ``hello`` is false."""
        peer = cls(*await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)))
        if hello:
            peer.send({"type": "hello", "version": "1.0", "name": "mallory", "kind": "human", "lobby": False,
                       **fields})
            peer.welcome = await peer.read()
            assert peer.welcome["type"] == "welcome", peer.welcome
        return peer

    def send(self, data: dict) -> None:
        self.writer.write(encode_frame(data))

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)

    async def read(self, timeout: float = 5) -> dict:
        header = await asyncio.wait_for(self.reader.readexactly(4), timeout)
        (length,) = struct.unpack(">I", header)
        return decode_payload(await asyncio.wait_for(self.reader.readexactly(length), timeout))

    async def read_until_closed(self, timeout: float = 5) -> list[dict]:
        frames = []
        try:
            while True:
                frames.append(await self.read(timeout))
        except asyncio.IncompleteReadError:
            return frames

    def close(self) -> None:
        self.writer.close()


def frame_of(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload
