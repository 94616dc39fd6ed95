"""What one receiver may see of a game: ``view(state, viewer, sealed)``.

A view holds public facts and the viewer's own secrets only: the viewer's hand, their own
face-down track cards and their own decision.  The opponent's hand, deck order and
face-down cards (unless placed face up under Open hand) never appear; nor does the seed.
``View.to_dict()`` is what the server sends; ``View.from_dict`` reads it back (a client).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import Card
from .game import GameState, Phase, Slot
from .moves import MAX_STEPS, Move, Transfer, move_from_dict
from .outcome import Outcome
from .players import PEOPLE, PLAYERS, Player, name_of, owner_of, strength_of
from .ring import Kind


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision the viewer must make.  ``options``: every legal move, except for "program"
    and "transfer" (too many: ``slots``/``hand`` and ``points``/``movable`` describe them)."""

    kind: str
    sentence: str
    card: Card | None = None
    options: tuple[Move, ...] = ()
    slots: tuple[tuple[int, ...], ...] = ()
    hand: tuple[Card, ...] = ()
    points: int | None = None
    movable: Mapping[str, tuple[int, ...]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "sentence": self.sentence, "card": None if self.card is None else self.card.value,
            "options": [m.to_dict() for m in self.options], "slots": [list(s) for s in self.slots],
            "hand": [c.value for c in self.hand], "points": self.points,
            "movable": None if self.movable is None else {p: list(i) for p, i in self.movable.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        movable = data.get("movable")
        card = data.get("card")
        return cls(
            kind=str(data["kind"]), sentence=str(data["sentence"]), card=None if card is None else Card.parse(card),
            options=tuple(move_from_dict(m) for m in data.get("options", ())),
            slots=tuple(tuple(s) for s in data.get("slots", ())),
            hand=tuple(Card.parse(c) for c in data.get("hand", ())), points=data.get("points"),
            movable=None if movable is None else {p: tuple(i) for p, i in movable.items()},
        )


@dataclass(frozen=True, slots=True)
class IslandView:
    number: int
    kind: Kind
    large: bool
    people: tuple[str, ...]
    net: Player | None
    pilehouse: Player | None

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "kind": self.kind.value, "large": self.large, "people": list(self.people),
                "net": name_of(self.net), "pilehouse": name_of(self.pilehouse)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IslandView:
        return cls(data["number"], Kind(data["kind"]), data["large"], tuple(data["people"]),
                   Player.parse_optional(data["net"]), Player.parse_optional(data["pilehouse"]))


@dataclass(frozen=True, slots=True)
class PersonView:
    person: str
    clan: Player
    strength: int
    island: int | None  # None: dead
    turtle: bool

    def to_dict(self) -> dict[str, Any]:
        return {"person": self.person, "clan": str(self.clan), "strength": self.strength, "island": self.island,
                "turtle": self.turtle}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PersonView:
        return cls(data["person"], Player.parse(data["clan"]), data["strength"], data["island"], data["turtle"])


@dataclass(frozen=True, slots=True)
class SlotView:
    slot: int
    owner: Player | None
    card: Card | None  # None: empty, or face down to this viewer
    face_up: bool
    resolved: bool
    fogged: bool

    def to_dict(self) -> dict[str, Any]:
        return {"slot": self.slot, "owner": name_of(self.owner), "card": None if self.card is None else self.card.value,
                "face_up": self.face_up, "resolved": self.resolved, "fogged": self.fogged}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotView:
        card = data["card"]
        return cls(data["slot"], Player.parse_optional(data["owner"]), None if card is None else Card.parse(card),
                   data["face_up"], data["resolved"], data["fogged"])


@dataclass(frozen=True, slots=True)
class PlayerView:
    hand: tuple[Card, ...] | None  # None: hidden from this viewer
    hand_size: int
    deck: int  # cards in the draw pile
    discard: tuple[Card, ...]  # public, in the order the cards arrived
    set_aside: tuple[Card, ...]
    open_hand: bool  # programs face up next
    weakened: bool

    def to_dict(self) -> dict[str, Any]:
        return {"hand": None if self.hand is None else [c.value for c in self.hand], "hand_size": self.hand_size,
                "deck": self.deck, "discard": [c.value for c in self.discard],
                "set_aside": [c.value for c in self.set_aside], "open_hand": self.open_hand,
                "weakened": self.weakened}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlayerView:
        hand = data["hand"]
        return cls(None if hand is None else tuple(Card.parse(c) for c in hand), data["hand_size"], data["deck"],
                   tuple(Card.parse(c) for c in data["discard"]), tuple(Card.parse(c) for c in data["set_aside"]),
                   data["open_hand"], data["weakened"])


@dataclass(frozen=True, slots=True)
class View:
    round: int
    phase: Phase
    initiative: Player
    pending: tuple[Player, ...]
    viewer: Player | None
    ring: tuple[IslandView, ...]  # clockwise from position 0
    flood: int
    people: tuple[PersonView, ...]  # all sixteen, the dead too
    track: tuple[SlotView, ...]  # slots 1..6
    resolving: int | None
    players: tuple[PlayerView, PlayerView]  # red's, blue's
    decision: Decision | None
    outcome: Outcome | None

    def player(self, player: Player) -> PlayerView:
        return self.players[player]

    def island(self, number: int) -> IslandView | None:
        return next((i for i in self.ring if i.number == number), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round, "phase": self.phase.value, "initiative": str(self.initiative),
            "pending": [str(p) for p in self.pending], "viewer": name_of(self.viewer),
            "ring": [i.to_dict() for i in self.ring], "flood": self.flood,
            "people": [p.to_dict() for p in self.people], "track": [s.to_dict() for s in self.track],
            "resolving": self.resolving, "players": {str(p): self.players[p].to_dict() for p in PLAYERS},
            "decision": None if self.decision is None else self.decision.to_dict(),
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """The inverse of ``to_dict``; KeyError or ValueError for a malformed view."""
        decision, outcome = data["decision"], data["outcome"]
        players = data["players"]
        return cls(
            round=data["round"], phase=Phase(data["phase"]), initiative=Player.parse(data["initiative"]),
            pending=tuple(Player.parse(p) for p in data["pending"]), viewer=Player.parse_optional(data["viewer"]),
            ring=tuple(IslandView.from_dict(i) for i in data["ring"]), flood=data["flood"],
            people=tuple(PersonView.from_dict(p) for p in data["people"]),
            track=tuple(SlotView.from_dict(s) for s in data["track"]), resolving=data["resolving"],
            players=(PlayerView.from_dict(players["red"]), PlayerView.from_dict(players["blue"])),
            decision=None if decision is None else Decision.from_dict(decision),
            outcome=None if outcome is None else Outcome.from_dict(outcome),
        )


def view(state: GameState, viewer: Player | None, sealed: Mapping[Player, tuple[int, ...]] | None = None) -> View:
    """What ``viewer`` (None: a spectator) may see.  ``sealed``: programmings the arbiter holds
    sealed, by player and the slots they claim; they show as face-down cards on those slots,
    and the other player's programming decision is on the free slots."""
    sealed = {p: tuple(s) for p, s in (sealed or {}).items() if not state.programmed[p]}
    track = list(state.track)
    for p, slots in sealed.items():
        for s in slots:
            track[s - 1] = Slot(p)
    pending = _pending(state, sealed)
    decision = None
    if viewer is not None and viewer in pending:
        decision = decision_for(state, viewer, sealed.get(viewer.other, ()))
    return View(
        round=state.round, phase=state.phase, initiative=state.initiative, pending=pending, viewer=viewer,
        ring=tuple(IslandView(n, state.options.island(n).kind, state.options.island(n).large,
                              tuple(state.people_on(n)), _holder(state.nets, n), _holder(state.pilehouses, n))
                   for n in state.ring),
        flood=state.flood,
        people=tuple(PersonView(p, owner_of(p), strength_of(p), state.location[p], p in state.turtles)
                     for p in PEOPLE),
        track=tuple(_slot_view(i + 1, slot, viewer) for i, slot in enumerate(track)),
        resolving=state.resolving,
        players=(_player_view(state, PLAYERS[0], viewer), _player_view(state, PLAYERS[1], viewer)),
        decision=decision, outcome=state.outcome(),
    )


def _pending(state: GameState, sealed: Mapping[Player, tuple[int, ...]]) -> tuple[Player, ...]:
    if state.phase is not Phase.PROGRAM or not sealed or state.is_over:
        return state.pending()
    done = [state.programmed[p] or p in sealed for p in PLAYERS]
    first = state.initiative
    if not done[first]:
        return (first,)
    return () if done[first.other] else (first.other,)


def _holder(markers: list[int | None], island: int) -> Player | None:
    return next((p for p in PLAYERS if markers[p] == island), None)


def _slot_view(number: int, slot: Slot, viewer: Player | None) -> SlotView:
    shown = slot.face_up or (viewer is not None and viewer == slot.owner)
    return SlotView(number, slot.owner, slot.card if shown else None, slot.face_up, slot.resolved, slot.fogged)


def _player_view(state: GameState, p: Player, viewer: Player | None) -> PlayerView:
    return PlayerView(hand=tuple(state.hands[p]) if viewer == p else None, hand_size=len(state.hands[p]),
                      deck=len(state.decks[p]), discard=tuple(state.discards[p]), set_aside=tuple(state.set_aside[p]),
                      open_hand=state.open_hand[p] > 0, weakened=state.weakened[p])


def decision_for(state: GameState, player: Player, taken: tuple[int, ...] = ()) -> Decision | None:
    """The decision ``player`` faces (``taken``: slots of a sealed programming of the other)."""
    if taken and state.phase is Phase.PROGRAM and not state.programmed[player] and not state.is_over:
        kind: str | None = "program"
    else:
        kind = state.decision_kind(player)
    if kind is None:
        return None
    if kind == "program":
        slots = state.program_slots(player, taken)
        if len(slots) == 1:
            sentence = f"Put 3 cards from your hand on slots {', '.join(map(str, slots[0]))}."
        else:
            sentence = "Put 3 cards from your hand on the track, one in each pair: 1 or 2, 3 or 4, 5 or 6."
        if state.open_hand[player]:
            sentence += " Under Open hand, they go face up."
        return Decision("program", sentence, None, (), slots, tuple(state.hands[player]))
    assert state.waiting is not None
    card = state.waiting.card
    moves = state.legal_moves(player)
    if kind == "transfer":
        movable: dict[str, set[int]] = {}
        for move in moves:
            assert isinstance(move, Transfer)
            for person, island in move.steps:
                movable.setdefault(person, set()).add(island)
        points = state.options.transfer_points
        sentence = (f"Transfer: move up to {MAX_STEPS} of your people, {points} movement points in all, "
                    "one point per island along the ring.")
        if Transfer(()) in moves:
            sentence += " You may also pass (no step)."
        reachable = {p: tuple(sorted(movable[p])) for p in PEOPLE if p in movable}
        return Decision("transfer", sentence, card, (), points=points, movable=reachable)
    return Decision(kind, _sentence(state, kind), card, tuple(moves))


def _sentence(state: GameState, kind: str) -> str:
    if kind == "flee":
        return f"Volcano: choose who flees from the lava island {state.lava[0]}; the others there die."
    return _SENTENCES[kind]


_SENTENCES = {
    "harpoon": "Harpoon: choose an opponent person, not a turtle, on an island next to one of your people.",
    "turtle": "Turtle: choose one of your people to become a turtle.",
    "fog": "Fog: choose a later slot with an opponent card; it is discarded without effect.",
    "surge": "Tidal surge: move the flood marker one island clockwise or counter-clockwise.",
    "flood": "Flood: choose the island for the flood marker (its own island too).",
    "net": "Net: choose an island for your Net.",
    "pilehouse": "Pilehouse: choose a small island for your Pilehouse.",
    "volcano": "Volcano: choose a volcanic island to erupt.",
    "fish": "Flying fish: choose one of your people and any other island with room.",
}
