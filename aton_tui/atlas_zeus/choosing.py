"""A decision of Atlas & Zeus while the player makes up their mind: pure logic, no widgets.

The screen's keys and clicks change it; the widgets draw it.  It never decides legality:
the slots and cards of a programming come from the decision's ``slots`` and ``hand``, the
targets of a card from its ``options`` (every legal move) or, for a Transfer, from
``movable`` and ``points``; the server has the last word (a refusal shows its sentence).

A target is where the player points: ``("island", 7)``, ``("person", "R3")`` or
``("slot", 5)``.  ``CardChoice.pick`` turns the targets picked so far into a move (its wire
form, ``kind`` first) once it is complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from atlas_zeus.moves import PAIRS
from atlas_zeus.ring import Direction, distance
from atlas_zeus.ring import step as neighbour

Target = tuple[str, int | str]
Move = dict[str, object]


class ProgramDraft:
    """Three cards of the hand on three slots, one in each colour pair: the slots together
    one of ``choices`` (the decision's ``slots``: for the initiative player every slot of each
    pair, for the other player the three free slots)."""

    def __init__(self, hand: Sequence[str], choices: Sequence[Sequence[int]]) -> None:
        self.hand = tuple(hand)
        self.choices = frozenset(tuple(sorted(c)) for c in choices)
        self.placed: dict[int, int] = {}  # slot -> index of the hand's card on it, in the order put
        self.lit = 0  # the hand's card the next slot takes

    @property
    def slots(self) -> tuple[int, ...]:
        """Every slot a card may go on."""
        return tuple(sorted({slot for choice in self.choices for slot in choice}))

    @property
    def complete(self) -> bool:
        return tuple(sorted(self.placed)) in self.choices

    @property
    def on_track(self) -> dict[int, str]:
        """The draft's cards by slot."""
        return {slot: self.hand[index] for slot, index in sorted(self.placed.items())}

    def used(self, index: int) -> int | None:
        """The slot the hand's card ``index`` lies on (None: still in the hand)."""
        return next((slot for slot, i in self.placed.items() if i == index), None)

    def light(self, step: int) -> None:
        """Light the next (``step`` 1) or previous (-1) card of the hand."""
        if self.hand:
            self.lit = (self.lit + step) % len(self.hand)

    def put(self, slot: int) -> str | None:
        """Put the lit card on ``slot`` (taking back a card of the same group, and moving the lit
        card if it lay elsewhere); why not, if it cannot go there."""
        if slot not in self.slots:
            allowed = ", ".join(str(s) for s in self.slots)
            return f"Slot {slot} is not yours to fill this round (yours: {allowed})."
        if not self.hand:
            return "Your hand is empty."
        for other in next(pair for pair in PAIRS if slot in pair):
            self.placed.pop(other, None)
        before = self.used(self.lit)
        if before is not None:
            del self.placed[before]
        self.placed[slot] = self.lit
        self._light_a_free_card()
        return None

    def take_back(self, slot: int | None = None) -> None:
        """Take back the card on ``slot`` (None: the lit card if it lies on the track, else the
        card put there last)."""
        if slot is None:
            slot = self.used(self.lit)
        if slot is None and self.placed:
            slot = list(self.placed)[-1]
        if slot is not None and slot in self.placed:
            self.lit = self.placed.pop(slot)

    def lay(self, cards: Sequence[tuple[int, str]]) -> None:
        """Put these (slot, card) pairs on the track at once (a suggestion the player still seals)."""
        self.placed = {}
        free = list(range(len(self.hand)))
        for slot, card in cards:
            index = next(i for i in free if self.hand[i] == card)
            free.remove(index)
            self.placed[slot] = index

    def _light_a_free_card(self) -> None:
        for step in range(len(self.hand)):
            index = (self.lit + step) % len(self.hand)
            if self.used(index) is None:
                self.lit = index
                return

    def move(self) -> Move:
        """The programming, once complete: slots ascending."""
        assert self.complete, "three slots filled"
        return {"kind": "program", "cards": [[slot, card] for slot, card in self.on_track.items()]}


@dataclass
class CardChoice:
    """The targets of a card's decision, chosen one after the other.

    ``ring`` is the islands clockwise, ``where`` each living person's island: with them
    the targets are offered in the ring's order, and a Transfer's steps are costed."""

    kind: str
    options: tuple[Move, ...]
    ring: tuple[int, ...]
    where: dict[str, int]
    movable: dict[str, tuple[int, ...]] = field(default_factory=dict)
    points: int = 0
    flood: int = 0  # the flood marker's island (Tidal surge's targets are its neighbours)
    steps: list[tuple[str, int]] = field(default_factory=list)  # a Transfer's, or a Flying fish's person
    person: str | None = None  # the person chosen, whose destination is chosen next (transfer, fish)

    # ------------------------------------------------------------------ what may be pointed at

    def targets(self) -> list[Target]:
        """What the player may point at now, in the ring's order (slots in the track's)."""
        if self.kind == "transfer":
            found: list[Target] = (self._destinations() if self.person is not None else
                                   [("person", p) for p in self._movers()])
        elif self.kind == "fish" and self.person is not None:
            found = [("island", int(o["island"])) for o in self.options  # type: ignore[call-overload]
                     if o["person"] == self.person]
        elif self.kind == "fog":
            found = [("slot", int(o["slot"])) for o in self.options]  # type: ignore[call-overload]
        elif self.kind == "surge":
            found = [("island", self._surge_island(str(o["direction"]))) for o in self.options]
        elif self.kind in ("harpoon", "turtle", "flee", "fish"):
            found = [("person", str(o["person"])) for o in self.options]
        else:  # flood, net, pilehouse, volcano
            found = [("island", int(o["island"])) for o in self.options]  # type: ignore[call-overload]
        return self._in_ring_order(list(dict.fromkeys(found)))

    def _in_ring_order(self, targets: list[Target]) -> list[Target]:
        def place(target: Target) -> tuple[int, int]:
            what, value = target
            if what == "slot":
                return (0, int(value))
            island = int(value) if what == "island" else self._island_of(str(value))
            return (self.ring.index(island) if island in self.ring else len(self.ring), 0)
        return sorted(targets, key=place)

    def _island_of(self, person: str) -> int:
        moved = dict(self.steps)
        return moved.get(person, self.where.get(person, -1))

    @property
    def spent(self) -> int:
        """The movement points the Transfer's steps so far cost."""
        return sum(distance(self.ring, self.where[p], island) for p, island in self.steps)

    @property
    def left(self) -> int:
        return self.points - self.spent

    def _movers(self) -> list[str]:
        moved = {p for p, _ in self.steps}
        return [p for p, islands in self.movable.items()
                if p not in moved and any(self._cost(p, i) <= self.left for i in islands)]

    def _cost(self, person: str, island: int) -> int:
        return distance(self.ring, self.where[person], island)

    def _destinations(self) -> list[Target]:
        assert self.person is not None
        return [("island", i) for i in self.movable.get(self.person, ())
                if 0 < self._cost(self.person, i) <= self.left]

    def _surge_island(self, direction: str) -> int:
        """Where Tidal surge moves the flood marker in ``direction`` (its island's neighbour)."""
        return neighbour(self.ring, self.flood, Direction(direction)) or self.flood

    # ------------------------------------------------------------------ pointing

    def pick(self, target: Target) -> Move | None:
        """Point at ``target`` (one of ``targets()``): the move when it is complete, else None."""
        if target not in self.targets():
            return None
        what, value = target
        if self.kind == "transfer":
            if what == "person":
                self.person = str(value)
            else:
                assert self.person is not None
                self.steps.append((self.person, int(value)))
                self.person = None
                if self.left <= 0 or not self._movers():
                    return self.transfer()
            return None
        if self.kind == "fish" and self.person is None:
            self.person = str(value)
            return None
        if self.kind == "fish":
            return {"kind": "fish", "person": self.person, "island": int(value)}
        if self.kind == "surge":
            return next(o for o in self.options if self._surge_island(str(o["direction"])) == value)
        key = {"person": "person", "island": "island", "slot": "slot"}[what]
        return next(o for o in self.options if o[key] == value)

    def back(self) -> bool:
        """Undo the last thing pointed at; False when there was nothing to undo."""
        if self.person is not None:
            self.person = None
            return True
        if self.steps:
            self.steps.pop()
            return True
        return False

    def transfer(self) -> Move | None:
        """The Transfer of the steps so far (None: no step yet)."""
        if not self.steps:
            return None
        return {"kind": "transfer", "steps": [[p, i] for p, i in sorted(self.steps)]}
