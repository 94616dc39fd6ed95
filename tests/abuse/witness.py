"""Bots that keep what they saw, and the checks of what they saw against the server's export.

``WitnessBot`` is the SDK's ``NetworkBot`` with a ``WitnessClient``: every frame it
receives is kept, and every move it sends is kept with whether the server acknowledged
it.  ``ReplayedGame`` replays an exported ``aton-record/1`` with the engine and gives
each receiver's view after every move and the engine's events as each receiver may see
them; the checks compare the frames with them, and look for hidden values (the seed of
a game, the nonce of a sealed commitment) in frames that must not hold them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aton import events as engine_events
from aton.game import new_game
from aton.moves import move_from_dict
from aton.options import Rules
from aton.players import Player
from aton.views import view
from bots.network import NetworkBot
from protocol import messages as m
from protocol.client import Client
from protocol.commitment import opens
from protocol.framing import decode_payload, encode_payload

#: Event types the engine emits and the server forwards (its own "committed" is the arbiter's).
ENGINE_EVENT_TYPES = frozenset(
    cls.kind for cls in vars(engine_events).values()
    if isinstance(cls, type) and issubclass(cls, engine_events.Event) and cls is not engine_events.Event
) - {"committed"}

RECEIVERS: tuple[str | None, ...] = (None, "red", "blue")  # None: a spectator


def plain(value: Any) -> Any:
    """``value`` as a client decodes it off the wire (tuples become lists, and so on)."""
    return decode_payload(encode_payload(value))


# --------------------------------------------------------------------------- the witnesses


@dataclass
class SentMove:
    """A move a client sent, as the game's record stores it, and whether it was acknowledged.

    A sealed commitment is one move whether its ``commit`` or its ``open`` was acknowledged.
    """

    game: int
    move: dict
    digest: bytes | None = None  # of a commitment
    acknowledged: bool = False


class WitnessClient(Client):
    """A protocol client that keeps every message it receives and the fate of every move it sends."""

    def __init__(self, reader, writer) -> None:
        super().__init__(reader, writer)
        self.received: list[m.Message] = []
        self.moves: list[SentMove] = []
        self.nonces: list[bytes] = []  # of every opening sent: known to this client alone
        self._by_request: dict[int, SentMove] = {}
        self._cards_to_seal: list[int] | None = None

    async def commit(self, game: int, cards) -> int | None:
        self._cards_to_seal = list(cards)
        return await super().commit(game, cards)

    async def send(self, msg: m.Message) -> int | None:
        request = await super().send(msg)
        sent = self._sent_move(msg)
        if sent is not None and request is not None:
            self._by_request[request] = sent
        return request

    def _sent_move(self, msg: m.Message) -> SentMove | None:
        if isinstance(msg, m.Commit):
            cards, self._cards_to_seal = self._cards_to_seal, None
            sent = SentMove(msg.game, {"move": "commit", "cards": cards}, digest=msg.digest)
        elif isinstance(msg, m.Open):
            self.nonces.append(msg.nonce)
            return next((s for s in reversed(self.moves)
                         if s.digest is not None and msg.cards is not None and opens(s.digest, msg.cards, msg.nonce)),
                        None)
        elif isinstance(msg, m.Exchange):
            sent = SentMove(msg.game, {"move": "exchange"})
        elif isinstance(msg, (m.Remove, m.Place)):
            sent = SentMove(msg.game, {"move": msg.TYPE, "temple": msg.temple, "square": msg.square})
        elif isinstance(msg, m.Resign):
            sent = SentMove(msg.game, {"move": "resign"})
        else:
            return None
        self.moves.append(sent)
        return sent

    async def recv(self, timeout: float | None = None) -> m.Message:
        msg = await super().recv(timeout)
        self.received.append(msg)
        if isinstance(msg, m.Ack) and msg.reply_to in self._by_request:
            self._by_request.pop(msg.reply_to).acknowledged = True
        return msg

    def acknowledged(self, game: int) -> list[SentMove]:
        """The moves of ``game`` the server acknowledged, in the order they were sent."""
        return [s for s in self.moves if s.game == game and s.acknowledged]


class WitnessBot(NetworkBot):
    """A ``NetworkBot`` that plays through a ``WitnessClient`` (one per call of ``play``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.clients: list[WitnessClient] = []

    async def _connect(self) -> Client:
        client = await WitnessClient.connect(self.host, self.port, name=self.name, kind="bot", lobby=False)
        self.clients.append(client)
        return client

    def frames(self, game: int) -> list[m.Message]:
        return [f for c in self.clients for f in c.received if getattr(f, "game", None) == game]

    def seat(self, game: int) -> str:
        seats = (c.seats.get(game) for c in self.clients)
        return next(seat for seat in seats if seat is not None)

    def acknowledged(self, game: int) -> list[SentMove]:
        return [sent for c in self.clients for sent in c.acknowledged(game)]

    @property
    def nonces(self) -> list[bytes]:
        return [n for c in self.clients for n in c.nonces]


# --------------------------------------------------------------------------- the export, replayed


@dataclass
class ReplayedGame:
    """An exported game replayed with the engine: what each receiver may see, move by move."""

    record: dict
    views: dict[str | None, list[dict]] = field(default_factory=dict)  # receiver -> view after 0, 1, … moves
    events: dict[str | None, list[dict]] = field(default_factory=dict)  # receiver -> engine events, in order

    @classmethod
    def of(cls, record: dict) -> ReplayedGame:
        rules = Rules.from_dict(record["meta"]["rules"]) if "rules" in record["meta"] else Rules()
        state, _ = new_game(record["seed"], rules=rules)  # the deal's own events are never broadcast
        replayed = cls(record, {r: [] for r in RECEIVERS}, {r: [] for r in RECEIVERS})
        replayed._see(state, [])
        for entry in record["moves"]:
            caused: list = []
            state.play(Player.parse(entry["player"]), move_from_dict(entry), caused)
            replayed._see(state, caused)
        return replayed

    def _see(self, state, caused: list) -> None:
        for receiver in RECEIVERS:
            player = None if receiver is None else Player.parse(receiver)
            self.views[receiver].append(plain(view(state, player).to_dict()))
            self.events[receiver].extend(plain(e.for_viewer(player).to_dict()) for e in caused
                                         if e.kind in ENGINE_EVENT_TYPES)

    @property
    def game(self) -> int:
        return self.record["meta"]["game"]

    @property
    def seed(self) -> int:
        return self.record["seed"]

    def moves_of(self, seat: str) -> list[dict]:
        return [{k: v for k, v in e.items() if k != "player"} for e in self.record["moves"] if e["player"] == seat]


def exported_games(out_dir: Path) -> dict[int, ReplayedGame]:
    """Every ``game-<id>.json`` that ``aton-server export`` wrote, replayed."""
    games = [ReplayedGame.of(json.loads(path.read_text())) for path in sorted(out_dir.glob("game-*.json"))]
    return {g.game: g for g in games}


# --------------------------------------------------------------------------- the checks


class Inconsistent(AssertionError):
    """What a client saw does not follow from the server's export."""


def check_views(game: ReplayedGame, receiver: str | None, frames: Iterable[m.Message]) -> int:
    """Every view of ``game`` in ``frames`` is the engine's view for ``receiver`` after some
    prefix of the exported moves, and those prefixes never go back; returns how many were checked."""
    expected = game.views[receiver]
    position, checked = 0, 0
    for frame in frames:
        if not isinstance(frame, (m.GameState, m.Update)) or frame.game != game.game:
            continue
        try:
            position = expected.index(frame.view, position)
        except ValueError:
            raise Inconsistent(f"game {game.game}: a view {receiver or 'a spectator'} received at version "
                               f"{frame.version} is not the engine's after any later prefix of the export") from None
        checked += 1
    return checked


def check_events(game: ReplayedGame, receiver: str | None, frames: Iterable[m.Message], whole: bool) -> int:
    """The engine's events of ``game`` in ``frames`` (each version once) are a run of the
    replay's events as ``receiver`` may see them — all of them if ``whole``; returns how many."""
    seen: list[dict] = []
    versions: set[int] = set()
    for frame in frames:
        if isinstance(frame, (m.GameState, m.Update)) and frame.game == game.game:
            listed = frame.log if isinstance(frame, m.GameState) else frame.events
            for event in listed:
                if event["version"] not in versions and event["type"] in ENGINE_EVENT_TYPES:
                    versions.add(event["version"])
                    seen.append({k: v for k, v in event.items() if k != "version"})
    expected = game.events[receiver]
    if whole and seen != expected:
        raise Inconsistent(f"game {game.game}: {receiver}'s events differ from the replay's")
    if not whole and seen and not any(expected[i:i + len(seen)] == seen for i in range(len(expected))):
        raise Inconsistent(f"game {game.game}: a spectator's events are not a run of the replay's")
    return len(seen)


def leaves(value: Any) -> list[Any]:
    """Every scalar in a decoded frame, keys included."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.extend(item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            found.append(item)
    return found


#: A run of digits as long as a seed's (seeds are drawn from 63 bits: most have 18–19 digits).
DIGITS = re.compile(r"\d{6,}")


@dataclass
class Secrets:
    """Values no client may receive: every game's seed (until its record is asked for, once
    the game is over) and the nonce of every sealed commitment (never)."""

    seeds: dict[int, int]  # game -> seed
    nonces: set[bytes]

    def found_in(self, frame: dict) -> list[str]:
        """What of the secrets ``frame`` (a decoded map) holds; a finished game's record may hold its seed."""
        seeds = set(self.seeds.values())
        if frame.get("type") == "record" and frame["record"]["meta"].get("status") == "over":
            seeds.discard(self.seeds.get(frame["game"]))
        texts = {str(seed) for seed in seeds}
        found = []
        for leaf in leaves(frame):
            if type(leaf) is int:
                if leaf in seeds:
                    found.append(f"a seed ({leaf})")
            elif isinstance(leaf, str):
                if any(text in digits for digits in DIGITS.findall(leaf) for text in texts):
                    found.append(f"a seed in the text {leaf!r}")
            elif isinstance(leaf, bytes):
                if any(nonce in leaf for nonce in self.nonces):
                    found.append("a commitment's nonce")
                if any(seed.to_bytes(8, "big") in leaf for seed in seeds):
                    found.append("a seed's bytes")
        return found
