"""Hostile clients of the game server: bad frames of every kind, from loopback addresses only.

A ``HostileLoad`` runs workers that each open connection after connection (from
127.0.0.2–127.0.0.9, so that per-address limits apply as to several attackers) and play
one attack on each: garbage and truncated frames, headers announcing too much, msgpack
that is not a map or does not decode, messages with wrong types, unknown types, moves
and chat in games they do not play, watching and then meddling, ping floods, invite
guesses, forged resume tokens.  Beside them, slowloris connections trickle partial
frames for as long as the load lasts, and watchers (spectators subscribed to the lobby)
watch every game the lobby shows, from its start to its end.

Every frame the server sends to any of them is kept, checked against the protocol
(``Direction.SERVER``) and counted; nothing is asserted here: the test does that.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import string
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import msgpack

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.framing import HEADER, MAX_FRAME_BYTES, MAX_REQUEST_BYTES, FrameBuffer, decode_payload, encode_payload
from protocol.messages import PROTOCOL_VERSION, Direction
from server.lobby import INVITE_ALPHABET

#: Source addresses of the hostile connections: loopback only, several "attackers".
HOSTILE_SOURCES = tuple(f"127.0.0.{i}" for i in range(2, 10))
#: Replies that answer one request (updates and lobby updates come unasked).
ANSWERS = frozenset({"error", "pong", "ack", "left", "table_created", "queued", "record", "welcome",
                     "game_state"})  # a game_state answers when it has a reply_to
#: Seconds to wait for the answers to a batch before counting them as unanswered (a hang guard).
ANSWER_PATIENCE = 30.0
#: Frames written at once before waiting for their answers.
FRAMES_PER_WRITE = 10
#: Seconds between two bytes of a slowloris connection.
TRICKLE_SECONDS = 0.05


def frame(data: object) -> bytes:
    """A frame carrying any msgpack value, however wrong (the protocol's ``encode_frame`` checks sizes)."""
    return raw_frame(msgpack.packb(data, use_bin_type=True))


def raw_frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def hello(name: str, kind: str = "human", **extra) -> dict:
    return {"type": "hello", "version": PROTOCOL_VERSION, "name": name, "kind": kind, "lobby": False, **extra}


@dataclass
class Tally:
    """What the hostile clients sent and what came back."""

    frames_sent: int = 0
    connections: int = 0
    frames_received: int = 0
    answers: Counter = field(default_factory=Counter)  # "pong", "error:invalid", …
    byes: Counter = field(default_factory=Counter)  # bye code -> connections closed with it
    closed_without_bye: int = 0
    unanswered: int = 0  # frames that should have had an answer and got none
    invalid_from_server: list[str] = field(default_factory=list)  # server frames the protocol refuses
    attacks: Counter = field(default_factory=Counter)  # attack -> connections
    slowloris_bytes: int = 0


class HostilePeer:
    """A raw TCP connection: writes whatever bytes it is given, keeps every frame it receives."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, tally: Tally) -> None:
        self.reader, self.writer = reader, writer
        self.tally = tally
        self.frames: list[dict] = []  # every decoded frame received, in order
        self.answers = 0
        self.bye: str | None = None
        self.hanging_up = False  # this side closes: the end of the stream is not the server's doing
        self.closed = asyncio.Event()
        self._arrived = asyncio.Event()
        self._reading = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, source: str, tally: Tally) -> HostilePeer:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        tally.connections += 1
        return cls(reader, writer, tally)

    async def _read(self) -> None:
        frames = FrameBuffer(MAX_FRAME_BYTES)
        try:
            while data := await self.reader.read(65536):
                for payload in frames.feed(data):
                    self._received(decode_payload(payload))
        except (ConnectionError, OSError):
            pass
        finally:
            if self.bye is None and not self.hanging_up:
                self.tally.closed_without_bye += 1
            self.closed.set()
            self._arrived.set()

    def _received(self, data: dict) -> None:
        self.frames.append(data)
        self.tally.frames_received += 1
        try:
            m.parse(data, Direction.SERVER)
        except ProtocolError as exc:
            self.tally.invalid_from_server.append(f"{exc.message}: {str(data)[:200]}")
        kind = data.get("type")
        if kind in ANSWERS and (kind != "game_state" or data.get("reply_to") is not None):
            self.answers += 1
            self.tally.answers[f"error:{data.get('code')}" if kind == "error" else kind] += 1
        elif kind == "bye":
            self.bye = data.get("code")
            self.tally.byes[self.bye] += 1
        self._arrived.set()

    async def send(self, frames: list[bytes], answers: int | None = None) -> None:
        """Write ``frames``, a few at a time, each time waiting for their answers (one a frame
        unless ``answers`` says how many in all); stop when the server closes."""
        for start in range(0, len(frames), FRAMES_PER_WRITE):
            chunk = frames[start:start + FRAMES_PER_WRITE]
            due = len(chunk) if answers is None else max(0, min(len(chunk), answers - start))
            if self.closed.is_set() or not await self._write(chunk, due):
                return

    async def _write(self, frames: list[bytes], answers: int) -> bool:
        """Write ``frames`` and wait for ``answers`` answers; False if the connection is gone."""
        expected = self.answers + answers
        self.tally.frames_sent += len(frames)
        try:
            self.writer.write(b"".join(frames))
            await self.writer.drain()
        except (ConnectionError, OSError):
            return False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ANSWER_PATIENCE
        while self.answers < expected and not self.closed.is_set():
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), deadline - loop.time())
            except TimeoutError:
                self.tally.unanswered += expected - self.answers
                return False
        return not self.closed.is_set()

    async def arrival(self, timeout: float) -> None:
        """Return when a frame arrives or the connection closes, or after ``timeout`` seconds."""
        self._arrived.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._arrived.wait(), timeout)

    async def greet(self, name: str, kind: str = "human", **extra) -> bool:
        """Say hello; True if welcomed."""
        await self.send([frame(hello(name, kind, **extra))])
        return any(f.get("type") == "welcome" for f in self.frames)

    async def close(self) -> None:
        self.hanging_up = True
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
        await self._reading


# --------------------------------------------------------------------------- what goes in the frames

def undecodable(rng: random.Random) -> bytes:
    """A payload that is not one msgpack map of strings (or not msgpack at all)."""
    choices: list[Callable[[], bytes]] = [
        lambda: rng.randbytes(rng.randint(1, 200)),
        lambda: b"\xc1",  # a byte msgpack never uses
        lambda: encode_payload({"type": "ping", "id": 1})[:-2],  # cut short
        lambda: msgpack.packb([1, 2, 3]),
        lambda: msgpack.packb("ping"),
        lambda: msgpack.packb(None),
        lambda: msgpack.packb({1: 2, 3: 4}),  # keys that are not strings
        lambda: b"\x91" * rng.randint(500, MAX_REQUEST_BYTES - 1) + b"\xc0",  # nested deeper than any stack
        lambda: b"\xdd\xff\xff\xff\xff",  # an array announcing 4 billion items
        lambda: b"\xdf\xff\xff\xff\xff",  # a map announcing 4 billion pairs
        lambda: b"\x81\xa4type\xa2\xff\xfe",  # a string that is not UTF-8
        lambda: b"\x81\xa4type\xd4\x01\x00",  # an extension type
        lambda: b"\x82\xa4type\xa4ping\xa4type\xa5watch",  # a key twice
        lambda: encode_payload({"type": "ping"}) + b"\x00trailing",
    ]
    return rng.choice(choices)()


WRONG_VALUES: tuple[object, ...] = ("x", "", -1, 0, 2**53 + 1, 2**63, 2**64 - 1, -2**63, 1.5, float("nan"), True, None,
                [], {}, [1] * 300, b"\x00" * 40, "a" * 1500, {"type": "ping"})

#: A well-formed example of every client message the hostile clients bend.
SHAPES: dict[str, dict] = {
    "hello": hello("x"),
    "ping": {"type": "ping"},
    "create_table": {"type": "create_table", "clock": "normal", "private": True},
    "join_table": {"type": "join_table", "table": 1},
    "join_invite": {"type": "join_invite", "code": "ABCDEF"},
    "quick_match": {"type": "quick_match", "clock": "blitz"},
    "leave": {"type": "leave", "game": 1},
    "watch": {"type": "watch", "game": 1},
    "sync": {"type": "sync", "game": 1},
    "get_record": {"type": "get_record", "game": 1},
    "commit": {"type": "commit", "game": 1, "digest": bytes(32)},
    "open": {"type": "open", "game": 1, "cards": [1, 2, 3, 4], "nonce": bytes(32)},
    "exchange": {"type": "exchange", "game": 1},
    "remove": {"type": "remove", "game": 1, "temple": 1, "square": 0},
    "place": {"type": "place", "game": 1, "temple": 1, "square": 0},
    "resign": {"type": "resign", "game": 1},
    "rematch": {"type": "rematch", "game": 1, "accept": True},
    "chat": {"type": "chat", "game": 1, "text": "hello"},
}


def wrong_type(rng: random.Random) -> dict:
    """A known message with one field of the wrong type or out of its range (never a valid one)."""
    while True:
        shape = dict(rng.choice(list(SHAPES.values())))
        shape[rng.choice([k for k in shape if k != "type"] + ["id"])] = rng.choice(WRONG_VALUES)
        try:
            m.parse(shape, Direction.CLIENT)
        except ProtocolError:
            return shape


def strange_type(rng: random.Random) -> dict:
    return {"type": rng.choice(["teleport", "", "welcome", "game_state", "PING", "ping\x00", "hello " * 40,
                                5, None, b"ping", ["ping"], {"type": "ping"}]),
            "game": rng.randint(1, 50)}


def foreign_move(rng: random.Random, game: int) -> dict:
    """A well-formed request about ``game``, which its sender does not play."""
    choices = [
        {"type": "commit", "game": game, "digest": rng.randbytes(32)},
        {"type": "open", "game": game, "cards": [rng.randint(1, 4) for _ in range(4)], "nonce": rng.randbytes(32)},
        {"type": "exchange", "game": game},
        {"type": "remove", "game": game, "temple": rng.randint(1, 4), "square": rng.randint(0, 11)},
        {"type": "place", "game": game, "temple": rng.randint(1, 4), "square": rng.randint(0, 11)},
        {"type": "resign", "game": game},
        {"type": "rematch", "game": game, "accept": rng.random() < 0.5},
        {"type": "chat", "game": game, "text": "gg " * rng.randint(1, 60)},
        {"type": "sync", "game": game},
        {"type": "get_record", "game": game},
    ]
    return {**rng.choice(choices), "id": rng.randint(0, m.MAX_ID)}


def invite_guess(rng: random.Random) -> dict:
    return {"type": "join_invite", "code": "".join(rng.choices(INVITE_ALPHABET, k=6))}


# --------------------------------------------------------------------------- the attacks


@dataclass
class Scene:
    """What the attackers share: the server's port, the games the lobby shows, the tally."""

    port: int
    tally: Tally
    live_games: set[int] = field(default_factory=set)

    def some_game(self, rng: random.Random) -> int:
        """A game being played (from the lobby), or a guess."""
        return rng.choice(sorted(self.live_games)) if self.live_games else rng.randint(1, 20)


Attack = Callable[[HostilePeer, random.Random, Scene], Awaitable[None]]


def batch(rng: random.Random, make: Callable[[], bytes], low: int = 10, high: int = 80) -> list[bytes]:
    return [make() for _ in range(rng.randint(low, high))]


def with_pings(frames: list[bytes]) -> list[bytes]:
    """A ping after every few bad frames: an accepted message resets the count of bad ones in a row."""
    mixed = []
    for i, bad in enumerate(frames, 1):
        mixed.append(bad)
        if i % 7 == 0:
            mixed.append(frame({"type": "ping"}))
    return mixed


async def before_hello(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Anything but a good hello first: the server answers once and closes."""
    first = rng.choice([
        lambda: raw_frame(undecodable(rng)),
        lambda: frame({"type": "ping", "id": 1}),
        lambda: frame(hello("x", version="9.0")),
        lambda: frame(hello("")),
        lambda: frame(hello("x" * 100)),
        lambda: frame(hello("x", kind="admin")),
        lambda: frame(hello("x", resume="short")),
        lambda: frame(hello("x", lobby="yes")),
        lambda: frame({"type": "hello", "version": PROTOCOL_VERSION}),
        lambda: frame(wrong_type(rng)),
    ])()
    await peer.send([first, frame({"type": "ping"})], answers=1)


async def oversized(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """A header announcing more than a frame may hold: refused before it is read, then closed."""
    if rng.random() < 0.5:
        await peer.greet(f"big-{rng.randrange(10**6)}")
    await peer.send([HEADER.pack(rng.randint(MAX_FRAME_BYTES + 1, 2**32 - 1)) + rng.randbytes(100)], answers=1)


async def truncated(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """A frame cut short, then hanging up (no answer is possible); or an empty frame."""
    await peer.greet(f"cut-{rng.randrange(10**6)}")
    if rng.random() < 0.5:
        await peer.send([raw_frame(b"")])
    payload = encode_payload(wrong_type(rng))
    await peer.send([HEADER.pack(len(payload) + rng.randint(1, 1000)) + payload], answers=0)


async def garbage(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Undecodable payloads, with a ping every few to reset the count of consecutive bad ones."""
    await peer.greet(f"junk-{rng.randrange(10**6)}")
    await peer.send(with_pings(batch(rng, lambda: raw_frame(undecodable(rng)))))


async def wrong_types(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Messages with a field of the wrong type or out of range, with pings between them."""
    await peer.greet(f"types-{rng.randrange(10**6)}")
    await peer.send(with_pings(batch(rng, lambda: frame(wrong_type(rng)))))


async def unknown_types(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Types the server does not know, nothing else: disconnected after a few."""
    await peer.greet(f"what-{rng.randrange(10**6)}")
    await peer.send(batch(rng, lambda: frame(strange_type(rng))))


async def foreign_moves(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Commits, openings, moves, resignations, rematches and chat in games of others."""
    await peer.greet(f"meddler-{rng.randrange(10**6)}", kind=rng.choice(["human", "bot"]))
    await peer.send(with_pings(batch(rng, lambda: frame(foreign_move(rng, scene.some_game(rng))))))


async def watch_and_meddle(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Watch a live game, then try to play in it, sync it, ask for its record, leave it."""
    await peer.greet(f"kibitzer-{rng.randrange(10**6)}", kind=rng.choice(["spectator", "human"]))
    game = scene.some_game(rng)
    await peer.send([frame({"type": "watch", "game": game, "id": 1})])
    await peer.send(batch(rng, lambda: frame(foreign_move(rng, game)), 5, 40))
    await peer.send([frame({"type": "leave", "game": game, "id": 2})])


async def ping_flood(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Far more pings than the rate limit allows, in one write."""
    await peer.greet(f"pinger-{rng.randrange(10**6)}")
    await peer.send([frame({"type": "ping", "id": i}) for i in range(rng.randint(100, 300))])


async def invite_guesses(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """Invite codes guessed, interleaved with pings (each accepted message resets the error count)."""
    await peer.greet(f"guesser-{rng.randrange(10**6)}")
    frames = [frame({"type": "ping"}) if i % 5 == 4 else frame(invite_guess(rng)) for i in range(rng.randint(20, 80))]
    await peer.send(frames)


async def forged_session(peer: HostilePeer, rng: random.Random, scene: Scene) -> None:
    """A resume token of its own choosing, a second hello, tables opened and left, tables guessed."""
    token = rng.choice(["a" * 32, "".join(rng.choices(string.ascii_letters, k=43))])
    await peer.greet(f"forger-{rng.randrange(10**6)}", resume=token)
    await peer.send([
        frame(hello("again")),
        frame({"type": "create_table", "clock": "relaxed", "private": rng.random() < 0.5, "id": 1}),
        frame({"type": "leave", "id": 2}),
        *(frame({"type": "join_table", "table": rng.randint(1, 10**6)}) for _ in range(rng.randint(3, 8))),
        frame({"type": "leave", "id": 3}),
    ])


#: attack -> weight (how often a worker picks it)
ATTACKS: dict[Attack, int] = {
    before_hello: 3, oversized: 1, truncated: 2, garbage: 6, wrong_types: 6, unknown_types: 2,
    foreign_moves: 6, watch_and_meddle: 4, ping_flood: 2, invite_guesses: 3, forged_session: 2,
}


# --------------------------------------------------------------------------- the load


class Watcher:
    """A spectator subscribed to the lobby that watches every game the lobby shows."""

    def __init__(self, peer: HostilePeer, scene: Scene) -> None:
        self.peer = peer
        self.scene = scene
        self.watched: set[int] = set()

    async def run(self, stop: asyncio.Event) -> None:
        await self.peer.greet("watcher", kind="spectator", lobby=True)
        seen = 0
        while not stop.is_set() and not self.peer.closed.is_set():
            for data in self.peer.frames[seen:]:
                self._follow_lobby(data)
            seen = len(self.peer.frames)
            for game in sorted(self.scene.live_games - self.watched):
                self.watched.add(game)
                await self.peer.send([frame({"type": "watch", "game": game, "id": game})])
            await self.peer.arrival(0.1)

    def saw_the_end(self, game: int) -> bool:
        """Whether a view of ``game`` with its winner has arrived (or the game was never watched)."""
        return game not in self.watched or any(
            f.get("type") in ("game_state", "update") and f.get("game") == game and f["view"]["winner"] is not None
            for f in self.peer.frames)

    def _follow_lobby(self, data: dict) -> None:
        if data.get("type") == "lobby":
            self.scene.live_games.update(g["game"] for g in data["games"])
        elif data.get("type") == "lobby_update" and data.get("section") == "games":
            game = data["item"]["game"]
            if data["op"] == "remove":
                self.scene.live_games.discard(game)
            else:
                self.scene.live_games.add(game)


class HostileLoad:
    """``workers`` attackers sending at least ``budget`` frames, slowloris connections and watchers."""

    def __init__(self, port: int, budget: int, seed: int, workers: int = 24, slowloris: int = 8,
                 watchers: int = 2) -> None:
        self.scene = Scene(port, Tally())
        self.budget = budget
        self.seed = seed
        self.workers = workers
        self.slowloris = slowloris
        self.watchers = watchers
        self.peers: list[HostilePeer] = []  # every hostile connection, with what it received
        self.watching: list[Watcher] = []
        self.sent_all = asyncio.Event()  # the budget is spent

    @property
    def tally(self) -> Tally:
        return self.scene.tally

    async def run(self, stop: asyncio.Event) -> None:
        """Attack until the budget is spent; slowloris and watchers go on until ``stop``."""
        watchers = [asyncio.create_task(self._watch(i, stop)) for i in range(self.watchers)]
        lingering = [asyncio.create_task(self._slowloris(i, stop)) for i in range(self.slowloris)]
        await asyncio.gather(*(self._attacker(i) for i in range(self.workers)))
        self.sent_all.set()
        await asyncio.gather(*watchers, *lingering)

    async def _open(self, index: int) -> HostilePeer:
        peer = await HostilePeer.open(self.scene.port, HOSTILE_SOURCES[index % len(HOSTILE_SOURCES)], self.tally)
        self.peers.append(peer)
        return peer

    async def _attacker(self, index: int) -> None:
        rng = random.Random(self.seed * 1000 + index)
        attacks, weights = list(ATTACKS), list(ATTACKS.values())
        while self.tally.frames_sent < self.budget:
            attack = rng.choices(attacks, weights)[0]
            self.tally.attacks[attack.__name__] += 1
            peer = await self._open(index)
            try:
                await attack(peer, rng, self.scene)
            finally:
                await peer.close()

    async def _watch(self, index: int, stop: asyncio.Event) -> None:
        watcher = Watcher(await self._open(index), self.scene)
        self.watching.append(watcher)
        try:
            await watcher.run(stop)
        finally:
            await watcher.peer.close()

    async def _slowloris(self, index: int, stop: asyncio.Event) -> None:
        """A frame one byte at a time, before or after hello, until ``stop`` or the server's close."""
        rng = random.Random(self.seed * 1000 + 500 + index)
        peer = await self._open(index)
        try:
            if index % 2:
                await peer.greet(f"slow-{index}")
            size = rng.randint(MAX_REQUEST_BYTES // 2, MAX_REQUEST_BYTES)  # a frame the server waits for
            body = HEADER.pack(size) + rng.randbytes(size)
            self.tally.frames_sent += 1
            for byte in body:
                if stop.is_set() or peer.closed.is_set():
                    break
                peer.writer.write(bytes([byte]))
                self.tally.slowloris_bytes += 1
                await asyncio.sleep(TRICKLE_SECONDS)
        except (ConnectionError, OSError):
            pass
        finally:
            await peer.close()
