"""Scripted protocol clients for the server tests: they record every frame they receive."""

from __future__ import annotations

import asyncio
import random
import struct
from collections.abc import Callable
from typing import Any, TypeVar, overload

from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.framing import decode_payload, encode_frame

M = TypeVar("M", bound=m.Message)


class Recorder:
    """A protocol client that keeps every message it receives, in order."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.frames: list[m.Message] = []
        self._game: int | None = None
        self._seat: str | None = None
        self._view: dict[str, Any] | None = None
        self._clocks: dict[str, Any] | None = None
        self.commitments: dict[str, str] = {}  # the seats' commitments that came with that view
        self.version = 0
        self.acted_on = -1  # the version of the last view this client answered
        self.sent: dict[int, dict] = {}  # request id -> the move it carried
        self.accepted: list[dict] = []  # moves the server acknowledged, in order

    @classmethod
    async def connect(cls, port: int, name: str, **kwargs) -> Recorder:
        """A client that proves an account key of its own (a new one: each a player of their own,
        whose name is theirs if no other account has it), unless ``proof`` says otherwise (None: a guest)."""
        kwargs.setdefault("proof", AccountKey.generate())
        return cls(await Client.connect("127.0.0.1", port, name=name, **kwargs))

    @property
    def game(self) -> int:
        """The game of the latest game state."""
        assert self._game is not None, f"{self.client} has no game yet"
        return self._game

    @property
    def seat(self) -> str:
        """This client's seat in that game ("red" or "blue")."""
        assert self._seat is not None, f"{self.client} has no seat"
        return self._seat

    @property
    def view(self) -> dict[str, Any]:
        """The latest view of that game."""
        assert self._view is not None, f"{self.client} has no view yet"
        return self._view

    @property
    def clocks(self) -> dict[str, Any]:
        """The clocks that came with that view."""
        assert self._clocks is not None, f"{self.client} has no clocks yet"
        return self._clocks

    async def send(self, msg: m.Message) -> int | None:
        return await self.client.send(msg)

    async def recv(self, timeout: float = 10) -> m.Message:
        msg = await self.client.recv(timeout)
        self.frames.append(msg)
        if isinstance(msg, m.Ack) and msg.reply_to in self.sent:
            self.accepted.append(self.sent.pop(msg.reply_to))
        if isinstance(msg, m.GameState):
            self._game, self._seat = msg.game, msg.seat
        if isinstance(msg, (m.GameState, m.Update)) and msg.game == self._game:
            self._view, self._clocks, self.version = msg.view, msg.clocks, msg.version
            self.commitments = m.commitments_of(msg)
        return msg

    async def expect(self, kind: type[M], timeout: float = 10) -> M:
        while True:
            msg = await self.recv(timeout)
            if isinstance(msg, kind):
                return msg

    @overload
    async def until(self, predicate: Callable[[m.Message], object], timeout: float = 10) -> m.Message: ...
    @overload
    async def until(self, predicate: Callable[[M], object], timeout: float = 10, *, kind: type[M]) -> M: ...
    async def until(self, predicate: Callable[[Any], object], timeout: float = 10,
                    kind: type[m.Message] = m.Message) -> m.Message:
        """Receive until a message (of ``kind``) satisfies ``predicate``."""
        while True:
            msg = await self.recv(timeout)
            if isinstance(msg, kind) and predicate(msg):
                return msg

    def events(self) -> list[dict]:
        return [e for f in self.frames if isinstance(f, m.Update) for e in f.events]

    def errors(self) -> list[m.Error]:
        return [f for f in self.frames if isinstance(f, m.Error)]

    # ------------------------------------------------------------------ playing

    def my_decision(self) -> dict | None:
        """The decision this client must answer now, or None (also when already answered)."""
        view = self._view
        if self.acted_on == self.version or view is None or view["winner"] is not None or view["decision"] is None:
            return None
        decision = view["decision"]
        if decision["kind"] == "commit" and (self.commitments[self.seat] != "none"
                                             or self.client.has_sealed(self.game)):
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
            assert request is not None
            self.sent[request] = {"move": "commit", "cards": hand}
        else:
            temple, square = rng.choice(decision["squares"])
            kind = m.Place if decision["kind"] == "place" else m.Remove
            request = await self.send(kind(game=self.game, temple=temple, square=square))
            assert request is not None
            self.sent[request] = {"move": kind.TYPE, "temple": temple, "square": square}
        return True

    async def play(self, rng: random.Random, stop=lambda recorder: False, timeout: float = 20) -> None:
        """Play random legal moves until the game is over or ``stop(self)`` is true."""
        while not (self._view and self._view["winner"] is not None) and not stop(self):
            await self.act(rng)
            await self.recv(timeout)

    async def close(self) -> None:
        await self.client.close()


async def bot_game(player: Recorder, resign: bool) -> int:
    """A game of ``player``'s against the server's random bot: its id; resigned at once if ``resign``."""
    await player.send(m.PlayBot(level="random"))
    game = (await player.expect(m.GameState)).game
    if resign:
        await player.send(m.Resign(game=game))
        await player.until(lambda f: f.game == game and f.view["winner"] is not None, kind=m.Update)
    return game


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
    async def open(cls, port: int, hello: bool = True, source: str = "127.0.0.1", **fields) -> RawPeer:
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


async def public_games(port: int, count: int, name=lambda n: f"p{n}", at_once: int = 25) -> list[Recorder]:
    """``count`` public games in progress, each between two clients (their ``Recorder``s, in
    pairs): one opens a table, the other sits down at it, ``at_once`` pairs at a time.  The
    clients come from 127.0.0.2, 127.0.0.3… (loopback, eight to an address), so that no
    per-address limit of the server stops them; ``name(n)`` names the n-th client."""

    async def pair(n: int) -> list[Recorder]:
        address = f"127.0.{2 + n // 8 // 250}.{2 + n // 8 % 250}"
        host, guest = [Recorder(await Client.connect("127.0.0.1", port, name=name(n + i), kind="bot", lobby=False,
                                                     local_addr=(address, 0))) for i in (0, 1)]
        await host.send(m.CreateTable())
        await guest.send(m.JoinTable(table=(await host.expect(m.TableCreated)).table))
        await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
        return [host, guest]

    players: list[Recorder] = []
    for start in range(0, count, at_once):
        for seated in await asyncio.gather(*(pair(2 * n) for n in range(start, min(count, start + at_once)))):
            players += seated
    return players
