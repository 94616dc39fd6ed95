"""The annotated example exchange of docs/protocol.md: written by a script, executed by a test.

An exchange block is a fenced ```exchange block of lines ``NAME → {json}`` (NAME sends
that frame) and ``NAME ← {json}`` (NAME receives a frame matching it), with ``#``
comment lines.  In the JSON, ``"…"`` matches any value and ``{"$bin": "hex"}`` stands
for msgpack binary.

    python -m tests.server.protocol_example           # print a fresh example
    python -m tests.server.protocol_example --write   # put it into docs/protocol.md
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from protocol.account_keys import AccountKey, proof_message
from protocol.commitment import commitment_digest
from protocol.framing import decode_payload, encode_frame
from protocol.messages import PROTOCOL_VERSION
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

ANY = "…"
EXAMPLE_SEED = 2866
DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
LINE = re.compile(r"^(?P<who>\w+)\s+(?P<arrow>→|←)\s+(?P<frame>\{.*)$")
WIDTH = 110  # frames longer than this are written over several lines
NONCES = {"ann": bytes(range(16)), "ben": bytes(range(16, 32))}


def example_server(db_path: str) -> ArbiterServer:
    """The example's server: it sends each lobby change at once (``lobby_update_interval`` 0), as
    docs/protocol.md says the example does, so that the exchange is the same run after run."""
    return ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=db_path, game_seed=EXAMPLE_SEED,
                                      limits=Limits(lobby_update_interval=0)))


# ---------------------------------------------------------------------- JSON <-> frames

def to_json(value):
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def from_json(value):
    if isinstance(value, dict):
        if set(value) == {"$bin"}:
            return bytes.fromhex(value["$bin"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def matches(pattern, value) -> bool:
    if pattern == ANY:
        return True
    if isinstance(pattern, dict):
        return isinstance(value, dict) and set(pattern) == set(value) and \
            all(matches(pattern[k], value[k]) for k in pattern)
    if isinstance(pattern, list):
        return isinstance(value, (list, tuple)) and len(pattern) == len(value) and \
            all(matches(p, v) for p, v in zip(pattern, value, strict=True))
    return pattern == value


def pretty(value, indent: int) -> str:
    """JSON that stays on one line when it fits in WIDTH, and breaks up containers otherwise."""
    compact = json.dumps(value, ensure_ascii=False)
    if indent + len(compact) <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return compact
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, indent + 2)}" for k, v in value.items()]
        opening, closing = "{", "}"
    else:
        items = [pad + pretty(v, indent + 2) for v in value]
        opening, closing = "[", "]"
    return opening + "\n" + ",\n".join(items) + "\n" + " " * indent + closing


# ---------------------------------------------------------------------- peers

class Peer:
    """A raw protocol peer: it sends exactly what it is given (no automatic opening)."""

    def __init__(self, name: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.name, self.reader, self.writer = name, reader, writer

    @classmethod
    async def open(cls, name: str, port: int) -> Peer:
        return cls(name, *await asyncio.open_connection("127.0.0.1", port))

    async def send(self, frame: dict) -> None:
        self.writer.write(encode_frame(frame))
        await self.writer.drain()

    async def receive(self, timeout: float = 5) -> dict:
        (length,) = struct.unpack(">I", await asyncio.wait_for(self.reader.readexactly(4), timeout))
        return decode_payload(await asyncio.wait_for(self.reader.readexactly(length), timeout))

    def close(self) -> None:
        self.writer.close()


@dataclass
class Step:
    who: str
    sends: bool
    frame: dict | str  # the frame's JSON text until it is complete
    line: int


def parse_exchange(text: str) -> list[Step]:
    """The steps of every ```exchange block in ``text`` (a frame may go on over indented lines)."""
    steps: list[Step] = []
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() == "```exchange":
            inside = True
            continue
        if inside and line.strip() == "```":
            inside = False
            continue
        if not inside or not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace() and steps and isinstance(steps[-1].frame, str):
            steps[-1].frame += line
        else:
            found = LINE.match(line)
            if found is None:
                raise ValueError(f"docs line {number}: not an exchange line: {line!r}")
            steps.append(Step(found["who"], found["arrow"] == "→", found["frame"], number))
        step = steps[-1]
        if isinstance(step.frame, str):
            with contextlib.suppress(json.JSONDecodeError):  # or the frame goes on over the next lines
                step.frame = from_json(json.loads(step.frame))
    return steps


async def execute(steps: list[Step], port: int) -> None:
    """Run the steps against a server; AssertionError names the first line that differs."""
    peers: dict[str, Peer] = {}
    try:
        for step in steps:
            if step.who not in peers:
                peers[step.who] = await Peer.open(step.who, port)
            peer = peers[step.who]
            if step.sends:
                assert isinstance(step.frame, dict), f"docs line {step.line}: the frame never ends"
                await peer.send(step.frame)
            else:
                got = await peer.receive()
                assert matches(step.frame, got), (
                    f"docs/protocol.md line {step.line}: {step.who} expected\n  {json.dumps(to_json(step.frame))}"
                    f"\nbut received\n  {json.dumps(to_json(got), ensure_ascii=False)}")
    finally:
        for peer in peers.values():
            peer.close()


# ---------------------------------------------------------------------- writing the example

class Narrator:
    """Plays the example scenario and writes it down as exchange lines."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.lines: list[str] = []
        self.peers: dict[str, Peer] = {}
        self.full_views_shown: set[str] = set()
        self.seat: dict[str, str] = {}
        self.view: dict[str, dict] = {}

    def note(self, text: str) -> None:
        self.lines.append(f"# {text}")

    async def send(self, who: str, frame: dict) -> None:
        if who not in self.peers:
            self.peers[who] = await Peer.open(who, self.port)
        await self.peers[who].send(frame)
        self.write(who, "→", frame)

    async def receive(self, who: str) -> dict:
        frame = await self.peers[who].receive()
        if frame["type"] in ("game_state", "update"):
            self.view[who] = frame["view"]
            if frame["type"] == "game_state":
                self.seat[who] = frame["seat"]
        self.write(who, "←", self.abbreviate(who, frame))
        return frame

    def write(self, who: str, arrow: str, frame: dict) -> None:
        self.lines.append(f"{who} {arrow} {pretty(to_json(frame), 4)}")

    async def receive_all(self, who: str, count: int) -> list[dict]:
        return [await self.receive(who) for _ in range(count)]

    async def receive_until(self, who: str, last) -> list[dict]:
        """Frames up to and including the first for which ``last(frame)`` is true."""
        frames = [await self.receive(who)]
        while not last(frames[-1]):
            frames.append(await self.receive(who))
        return frames

    def abbreviate(self, who: str, frame: dict) -> dict:
        """Leave out what varies from run to run, and repeat the big parts only once."""
        frame = dict(frame)
        kind = frame["type"]
        if kind == "welcome":
            frame.update(session=ANY, resume=ANY)
        if kind == "lobby_update" and "since" in frame["item"]:
            frame["item"] = {**frame["item"], "since": ANY}
        if kind in ("game_state", "update"):
            if kind == "update" or who in self.full_views_shown:
                frame.update(view=ANY, clocks=ANY)
            else:
                frame["clocks"] = {seat: {**clock, "remaining_ms": ANY} for seat, clock in frame["clocks"].items()}
            self.full_views_shown.add(who)
        return frame

    def other(self, who: str) -> str:
        return "ben" if who == "ann" else "ann"


async def prove(n: Narrator, who: str, key: AccountKey) -> None:
    """``who`` answers the challenge to the key of its hello."""
    challenge = await n.receive(who)
    message = proof_message(challenge["nonce"], challenge["server"], key.fingerprint)
    await n.send(who, {"type": "prove", "signature": key.answer(message)})


async def narrate(port: int) -> str:
    n = Narrator(port)
    keys = {who: AccountKey.from_seed(who.encode()) for who in ("ann", "ben")}
    n.note("ann says hello with her account key and subscribes to the lobby; the server challenges her;")
    n.note("she signs the challenge; the server welcomes her and sends the lobby. Her key was new here:")
    n.note("it is now the key of a new account named ann.")
    await n.send("ann", {"type": "hello", "version": PROTOCOL_VERSION, "name": "ann", "kind": "human", "id": 1,
                         "key": keys["ann"].public_line})
    await prove(n, "ann", keys["ann"])
    await n.receive_all("ann", 2)
    n.note("ben says hello with his key, without the lobby (as a bot would); ann sees him arrive.")
    await n.send("ben", {"type": "hello", "version": PROTOCOL_VERSION, "name": "ben", "kind": "human", "lobby": False,
                         "id": 1, "key": keys["ben"].public_line})
    await prove(n, "ben", keys["ben"])
    await n.receive("ben")
    await n.receive("ann")
    n.note("ann opens a public table; everyone in the lobby sees it.")
    await n.send("ann", {"type": "create_table", "clock": "normal", "id": 2})
    await n.receive_all("ann", 3)
    n.note("ben sits down: the table closes and the game starts. Each player gets the whole game,")
    n.note("as they may see it: their own hand, never the opponent's.")
    await n.send("ben", {"type": "join_table", "table": 1, "id": 2})
    await n.receive("ben")
    await n.receive_all("ann", 5)
    game = 1
    red = next(who for who, seat in n.seat.items() if seat == "red")
    blue = n.other(red)
    hands = {who: n.view[who]["decision"]["hand"] for who in ("ann", "ben")}
    cards = {who: list(reversed(hands[who])) for who in hands}
    for first in (red, blue):
        digest = commitment_digest(cards[first], NONCES[first])
        n.note(f"{first} seals cartouches 1–4 = {cards[first]} with nonce {NONCES[first].hex()}:")
        n.note(f"digest = SHA-256(b'aton-commit/1' + bytes({cards[first]}) + nonce). "
               f"{n.other(first)} only learns that {first} has committed.")
        await n.send(first, {"type": "commit", "game": game, "digest": digest, "id": 3})
        await n.receive_all(first, 2)
        await n.receive(n.other(first))
    n.note("Both are sealed, so the server asks both to open (the last update above said open_requested).")
    n.note(f"{red} opens: the opening matches the digest, so everyone learns that {red} has opened")
    n.note(f"({red} may now forget the cards and nonce); nothing is revealed yet.")
    await n.send(red, {"type": "open", "game": game, "cards": cards[red], "nonce": NONCES[red], "id": 4})
    await n.receive_all(red, 2)
    await n.receive(blue)
    n.note(f"{blue}'s opening completes the pair: the server applies both commitments and reveals in the")
    n.note("rules' order: cartouche 1, points, cartouche 2, turn order, then the first player's")
    n.note("cartouches 3 and 4. The second player's stay face down.")
    await n.send(blue, {"type": "open", "game": game, "cards": cards[blue], "nonce": NONCES[blue], "id": 4})
    await n.receive_all(blue, 2)
    await n.receive(red)
    request = 5
    while True:
        mover = next((who for who in (red, blue) if n.view[who]["decision"]
                      and n.view[who]["decision"]["kind"] in ("place", "remove")), None)
        if mover is None:
            break
        temple, square = n.view[mover]["decision"]["squares"][0]
        await n.send(mover, {"type": n.view[mover]["decision"]["kind"], "game": game,
                             "temple": temple, "square": square, "id": request})
        request += 1
        await n.receive_all(mover, 2)
        await n.receive(n.other(mover))
    n.note("The round is over and the next one has begun with a fresh hand each.")
    n.note(f"{blue} resigns; both players learn the result.")
    await n.send(blue, {"type": "resign", "game": game, "id": request})
    await n.receive_all(blue, 2)
    n.note(f"{red} also sees the game leave the lobby's list of games in progress.")
    await n.receive_until(red, lambda frame: frame["type"] == "lobby_update" and frame["op"] == "remove")
    n.note(f"{red} offers a rematch; {blue} accepts it. The new game's game_state comes first (without")
    n.note("reply_to), then the acknowledgement, then the old game's rematch_started event naming it.")
    await n.send(red, {"type": "rematch", "game": game, "id": request + 1})
    await n.receive_until(red, lambda frame: frame["type"] == "update")
    await n.receive(blue)
    await n.send(blue, {"type": "rematch", "game": game, "accept": True, "id": request + 1})
    await n.receive_until(blue, lambda frame: frame["type"] == "update")
    await n.receive_until(red, lambda frame: frame["type"] == "update")
    for peer in n.peers.values():
        peer.close()
    return "\n".join(n.lines)


BEGIN, END = "<!-- BEGIN EXAMPLE EXCHANGE -->\n", "<!-- END EXAMPLE EXCHANGE -->"


async def fresh_example() -> str:
    """The example block, played against a fresh server."""
    with tempfile.TemporaryDirectory() as tmp:
        srv = example_server(str(Path(tmp) / "example.db"))
        await srv.start()
        try:
            return "```exchange\n" + await narrate(srv.port) + "\n```\n"
        finally:
            await srv.stop()


def main(argv: list[str]) -> None:
    block = asyncio.run(fresh_example())
    if argv[1:] != ["--write"]:
        print(block, end="")
        return
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOCS.write_text(text[:start] + block + text[end:], encoding="utf-8")
    print(f"{DOCS}: example exchange updated")


if __name__ == "__main__":
    main(sys.argv)
