"""Provably fair decks (``aton-deal/1``): the seed of a game from the server's and both players'
entropy, none of whom can steer it; and the check a client makes at the end of a game.

The scheme, with its argument and a worked example, is in docs/protocol.md ("Fair decks").
In short: the server commits to a 32-byte secret (``server_commitment``) before it sees
anything of the players; each contributing player commits to a 32-byte value
(``contribution_commitment``), and opens it only once it has seen every other seat's
commitment; the seed is an HMAC keyed with the secret over both values (``derive_seed``).  A
seat that contributes nothing (a hosted bot, an older client, one that did not commit in time)
gets a value derived from the secret (``server_fill``), which was fixed before any player's;
a seat that committed but did not open in time gets its commitment as its value.  At the end
the server reveals the secret, the values and the game's record (``deal_revealed``); the client
recomputes the seed, replays the record with the engine and compares every card it was dealt
and every card shown during the game with the replay (``verify``).

Everything here is pure: the server and both clients (the Textual client's session and the
bot SDK, through ``protocol.client.Client``) use the same functions.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from aton.errors import RecordError
from aton.events import CardRevealed, CardsDrawn
from aton.players import Player
from aton.record import GameRecord, steps

SCHEME = "aton-deal/1"
#: The length of the server's secret, of each value and of each commitment, in bytes.
VALUE_BYTES = 32
#: Why the server, not the seat's player, fixed a seat's value (a deal's ``fills``).
FILLED_BY_SERVER = "server"  # from the secret: a hosted bot, an older client, no commitment in time
FILLED_BY_COMMITMENT = "commitment"  # the seat committed but did not open in time
#: The seats in the order their values enter the seed.
SEAT_ORDER = ("red", "blue")
#: The words of a failed check (the client says them loudly).
MISMATCH = "The server's decks do not match its commitment"

#: A card a client saw, comparable across the wire and the replay: ("drawn", seat, the cards
#: sorted) or ("revealed", seat, cartouche, value).
CardFact = tuple[Any, ...]


def _label(purpose: str) -> bytes:
    """The domain-separating prefix of each hash: ``aton-deal/1 <purpose>`` and a zero byte."""
    return f"{SCHEME} {purpose}".encode() + b"\0"


def _game_bytes(game: int) -> bytes:
    return game.to_bytes(8, "big")


def server_commitment(secret: bytes) -> bytes:
    """SHA-256("aton-deal/1 server\\0" ‖ secret): what the server publishes before any contribution."""
    return hashlib.sha256(_label("server") + secret).digest()


def contribution_commitment(game: int, seat: str, value: bytes) -> bytes:
    """SHA-256("aton-deal/1 contribution\\0" ‖ game (8 bytes, big-endian) ‖ seat ‖ "\\0" ‖ value):
    a player's sealed contribution, bound to its game and seat (so it cannot be copied)."""
    return hashlib.sha256(_label("contribution") + _game_bytes(game) + seat.encode() + b"\0" + value).digest()


def server_fill(secret: bytes, game: int, seat: str) -> bytes:
    """HMAC-SHA256(secret, "aton-deal/1 fill\\0" ‖ game ‖ seat): the value of a seat whose player
    contributes nothing, fixed by the secret before any player's value was known."""
    return hmac.new(secret, _label("fill") + _game_bytes(game) + seat.encode(), hashlib.sha256).digest()


def derive_seed(secret: bytes, game: int, values: dict[str, bytes]) -> int:
    """The engine's seed: the first 8 bytes of HMAC-SHA256(secret, "aton-deal/1 seed\\0" ‖ game ‖
    red's value ‖ blue's value), big-endian, shifted right by one (63 bits, as every seed)."""
    message = _label("seed") + _game_bytes(game) + b"".join(values[seat] for seat in SEAT_ORDER)
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seat_values(secret: bytes, game: int, opened: dict[str, bytes], commitments: dict[str, bytes],
                fills: dict[str, str]) -> dict[str, bytes]:
    """Every seat's value: its opening, or what its fill says."""
    values = {}
    for seat in SEAT_ORDER:
        fill = fills.get(seat)
        if fill == FILLED_BY_SERVER:
            values[seat] = server_fill(secret, game, seat)
        elif fill == FILLED_BY_COMMITMENT:
            values[seat] = commitments[seat]
        else:
            values[seat] = opened[seat]
    return values


def card_fact(event: dict[str, Any], seat: str) -> CardFact | None:
    """What a card event shows ``seat``'s player, comparable across the wire and the replay: its
    own drawn cards and every revealed card; None for any other event."""
    kind = event.get("type")
    if kind == CardsDrawn.kind and event.get("player") == seat and event.get("cards") is not None:
        return ("drawn", seat, tuple(sorted(event["cards"])))
    if kind == CardRevealed.kind:
        return ("revealed", event.get("player"), event.get("cartouche"), event.get("value"))
    return None


@dataclass
class DealWitness:
    """What one client saw of a game's deal, from its first ``deal`` frame to the reveal."""

    game: int
    seat: str
    server_commitment: bytes
    value: bytes | None = None  # our contribution, once committed
    commitments: dict[str, bytes] = field(default_factory=dict)  # every seat's, as the open stage showed them
    opened: bool = False  # the server acknowledged our opening
    cards: dict[int, CardFact] = field(default_factory=dict)  # event version -> card fact we saw

    def saw(self, event: dict[str, Any]) -> None:
        """Keep the card an event showed us (each event once, by its version: what we saw first
        stands, so a log sent again after a reconnect cannot rewrite it)."""
        fact = card_fact(event, self.seat)
        version = event.get("version")
        if fact is not None and type(version) is int:
            self.cards.setdefault(version, fact)

    def saw_opening(self, view: dict[str, Any]) -> None:
        """Keep our opening hand, from the view of the game's first state (version 0: the opening
        draw is no event of it)."""
        hand = view.get(self.seat, {}).get("hand")
        if isinstance(hand, list):
            self.cards.setdefault(0, ("drawn", self.seat, tuple(sorted(hand))))

    def to_dict(self) -> dict[str, Any]:
        """The witness as JSON can hold it (bytes in hex), for a client that keeps it between runs."""
        return {"game": self.game, "seat": self.seat, "server": self.server_commitment.hex(),
                "value": None if self.value is None else self.value.hex(),
                "commitments": {seat: digest.hex() for seat, digest in self.commitments.items()},
                "opened": self.opened,
                "cards": [[version, *fact] for version, fact in sorted(self.cards.items())]}

    @classmethod
    def from_dict(cls, data: Any) -> DealWitness:
        """A witness from ``to_dict``'s form; ValueError if it is not one (a damaged file)."""
        try:
            witness = cls(_int(data["game"]), _str(data["seat"]), bytes.fromhex(_str(data["server"])),
                          None if data["value"] is None else bytes.fromhex(_str(data["value"])),
                          {_str(seat): bytes.fromhex(_str(digest)) for seat, digest in data["commitments"].items()},
                          data["opened"] is True)
            for version, kind, seat, *rest in data["cards"]:
                if kind == "drawn" and len(rest) == 1:
                    witness.cards[_int(version)] = (kind, seat, tuple(_int(card) for card in rest[0]))
                elif kind == "revealed" and len(rest) == 2:
                    witness.cards[_int(version)] = (kind, seat, _int(rest[0]), _int(rest[1]))
                else:
                    raise ValueError(f"not a card fact: {kind!r:.20}")
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a deal witness: {exc!r:.80}") from None
        return witness


def _int(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"not an integer: {value!r:.20}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"not a string: {value!r:.20}")
    return value


@dataclass(frozen=True)
class Verdict:
    """A client's check of a game's decks: ``verified`` True (they match), False (they do not:
    ``text`` starts with ``MISMATCH``) or None (this game cannot be checked by this client)."""

    game: int
    verified: bool | None
    text: str


def verify(witness: DealWitness | None, game: int, secret: bytes, opened: dict[str, bytes],
           fills: dict[str, str], record: dict[str, Any]) -> Verdict:
    """Check a revealed deal against what this client saw (``witness``; None: it saw no deal)."""
    def mismatch(why: str) -> Verdict:
        return Verdict(game, False, f"{MISMATCH}: {why}.")

    if witness is None:
        return Verdict(game, None, "Decks not verifiable: this client did not see the game's deal "
                                   "(it came in after it).")
    if server_commitment(secret) != witness.server_commitment:
        return mismatch("its revealed secret is not the one it committed to before the deal")
    mine = witness.seat
    if witness.value is None:
        return Verdict(game, None, "Decks not verifiable: this client did not contribute to the deal.")
    if fills.get(mine) is not None and witness.opened:
        return mismatch("it says this client did not open its contribution in time, but it acknowledged it")
    if fills.get(mine) is not None:
        return Verdict(game, None, "Decks not verifiable: this client's contribution came too late to count.")
    if opened.get(mine) != witness.value:
        return mismatch("it revealed another contribution for this client than the one it sent")
    for seat in SEAT_ORDER:
        fill = fills.get(seat)
        if fill is None and (seat not in opened or seat not in witness.commitments or
                             contribution_commitment(game, seat, opened[seat]) != witness.commitments[seat]):
            return mismatch(f"{seat}'s revealed contribution does not open its commitment")
        if fill == FILLED_BY_COMMITMENT and seat not in witness.commitments:
            return mismatch(f"{seat} made no commitment this client saw")
        if fill not in (None, FILLED_BY_SERVER, FILLED_BY_COMMITMENT):
            return mismatch(f"{seat}'s value is filled in an unknown way ({fill!r:.40})")
    seed = derive_seed(secret, game, seat_values(secret, game, opened, witness.commitments, fills))
    viewer = Player.parse(mine)
    try:
        played = GameRecord.from_dict(record)
        if played.seed != seed or played.decks is not None:
            return mismatch("the game's record was not dealt from the seed the contributions give")
        dealt = [fact for step in steps(played) for event in step.events
                 if (fact := card_fact(event.for_viewer(viewer).to_dict(), mine)) is not None]
    except RecordError as exc:
        return mismatch(f"the game's record does not replay from that seed ({exc})")
    seen = [witness.cards[version] for version in sorted(witness.cards)]
    if not seen or not _in_order_within(seen, dealt):
        return mismatch("the cards this client was dealt or shown are not the ones that seed deals")
    notes = "".join(f" {note}" for seat in SEAT_ORDER if (note := _filled_by(seat, fills)) is not None)
    return Verdict(game, True, f"Decks verified: the cards you saw ({len(seen)} draws and reveals) came from "
                               f"the seed the server and the players fixed before the deal.{notes}")


def _in_order_within(seen: list[CardFact], dealt: list[CardFact]) -> bool:
    """Whether ``seen`` is ``dealt`` with perhaps some items left out (missed while away)."""
    remaining = iter(dealt)
    return all(any(fact == item for item in remaining) for fact in seen)


def _filled_by(seat: str, fills: dict[str, str]) -> str | None:
    """A sentence on who fixed ``seat``'s part of the deal, when its player did not."""
    fill = fills.get(seat)
    if fill == FILLED_BY_SERVER:
        return (f"{seat.capitalize()}'s part came from the server's secret, fixed before any player's "
                "(a bot of the server's, or a client that does not contribute).")
    if fill == FILLED_BY_COMMITMENT:
        return f"{seat.capitalize()}'s part was its commitment (its player did not open it in time)."
    return None
