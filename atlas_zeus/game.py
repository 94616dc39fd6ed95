"""The game state and its rules: setup, programming, resolution, sinking, draw (§3–§7).

``new_game(seed, options)`` deals a game; ``GameState.play(player, move, events)`` applies a
decision and runs the resolution by itself until the next decision (``pending()``) or the end.
All randomness comes from one generator seeded with the game's seed, used in a fixed order
(setup, then each reshuffle as it happens), so a seed and its moves always give the same game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import permutations, product
from typing import TYPE_CHECKING

from .cards import MARKER_CARDS, Card
from .errors import IllegalMove
from .events import (
    CardsDrawn,
    CardTurned,
    CardWithoutEffect,
    Event,
    FloodMoved,
    GameOver,
    InitiativePassed,
    IslandErupted,
    IslandSank,
    MarkerPlaced,
    MarkerReturned,
    OpenHandPlayed,
    PersonDied,
    PersonMoved,
    PileReshuffled,
    Programmed,
    RoundStarted,
    Weakened,
)
from .moves import (
    CARDS_PER_PROGRAM,
    DECISION_OF_CARD,
    MAX_STEPS,
    PAIRS,
    SLOTS,
    Fish,
    Flee,
    Flood,
    Fog,
    Harpoon,
    Move,
    Net,
    Pilehouse,
    Program,
    Resign,
    Steps,
    Surge,
    Transfer,
    Turtle,
    Volcano,
)
from .options import DEFAULT_OPTIONS, Options
from .outcome import Outcome, Termination
from .players import BLUE, PEOPLE, PLAYERS, RED, Player, owner_of, people_of, strength_of
from .ring import Direction, Kind, distance, neighbours, next_flood, step, way_round

if TYPE_CHECKING:
    from .views import Decision

#: The marker name of each marker card (as events and views say it).
MARKER_OF: dict[Card, str] = {Card.NET: "net", Card.TURTLE: "turtle", Card.PILEHOUSE: "pilehouse"}


class Phase(StrEnum):
    PROGRAM = "program"
    RESOLVE = "resolve"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Slot:
    """One slot of the action track.  A resolved or fogged card stays shown on its slot (face
    up) until the round ends, although it is already in its owner's discard pile or set aside."""

    owner: Player | None = None
    card: Card | None = None
    face_up: bool = False
    resolved: bool = False
    fogged: bool = False

    @property
    def holds_card(self) -> bool:
        """Whether a card of the track lies here (not yet resolved, fogged or discarded)."""
        return self.card is not None and not self.resolved and not self.fogged


EMPTY_SLOT = Slot()


@dataclass(frozen=True, slots=True)
class Pending:
    """A decision the resolution waits for: ``kind`` (a move kind) by ``player`` for the card
    on ``slot``."""

    player: Player
    kind: str
    slot: int
    card: Card


class GameState:
    """A whole game, mutable; ``copy()`` gives an independent one."""

    options: Options
    rng: random.Random
    round: int
    initiative: Player
    phase: Phase
    ring: list[int]
    location: dict[str, int | None]
    flood: int
    nets: list[int | None]
    pilehouses: list[int | None]
    turtles: list[str | None]
    decks: list[list[Card]]  # top card last
    hands: list[list[Card]]
    discards: list[list[Card]]  # in the order the cards arrived
    set_aside: list[list[Card]]
    track: list[Slot]  # slots 1..6 at indexes 0..5
    programmed: list[bool]
    open_hand: list[int]  # programmings still due face up
    weakened: list[bool]
    resolving: int | None
    waiting: Pending | None
    lava: list[int]  # a Volcano's lava islands still to handle (§5.2 step 2)
    crater: int | None  # the erupting island while its Volcano resolves
    lava_all: tuple[int, ...]
    _outcome: Outcome | None

    # ------------------------------------------------------------ reading

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def pending(self) -> tuple[Player, ...]:
        """Who must decide now: one player, or nobody when the game is over."""
        if self._outcome is not None:
            return ()
        if self.phase is Phase.PROGRAM:
            return (self.initiative,) if not self.programmed[self.initiative] else (self.initiative.other,)
        assert self.waiting is not None
        return (self.waiting.player,)

    def decision_kind(self, player: Player) -> str | None:
        """The kind of move ``player`` must make now, or None."""
        if player not in self.pending():
            return None
        return "program" if self.phase is Phase.PROGRAM else self.waiting.kind if self.waiting else None

    def decision(self, player: Player) -> Decision | None:
        """The decision ``player`` faces now, or None."""
        from .views import decision_for
        return decision_for(self, player)

    def people_on(self, island: int) -> list[str]:
        """The living people on ``island``, in person order."""
        return [p for p in PEOPLE if self.location[p] == island]

    def alive(self, player: Player) -> list[str]:
        return [p for p in people_of(player) if self.location[p] is not None]

    def capacity(self, island: int) -> int | None:
        """How many people ``island`` may hold: None for any number (large, or a Pilehouse on it)."""
        if self.options.island(island).large or island in self.pilehouses:
            return None
        return 1

    def netted(self, island: int) -> bool:
        return island in self.nets

    def strength(self, person: str) -> int:
        """A person's strength for Crab: weakened people count as ``weakened_strength``."""
        return self.options.weakened_strength if self.weakened[owner_of(person)] else strength_of(person)

    def program_slots(self, player: Player, taken: Iterable[int] = ()) -> tuple[tuple[int, ...], ...]:
        """The slot choices open to ``player``'s programming: one of each pair for the player
        with the initiative, exactly the free slots for the other (``taken``: slots claimed by
        a programming still sealed)."""
        claimed = set(taken) | {s for s in SLOTS if self.track[s - 1].owner is not None}
        if player is self.initiative:
            return tuple(c for c in product(*PAIRS) if not claimed & set(c))
        free = tuple(s for s in SLOTS if s not in claimed)
        return (free,) if len(free) == CARDS_PER_PROGRAM else ()

    # ------------------------------------------------------------ legal moves

    def legal_moves(self, player: Player) -> list[Move]:
        """Every legal decision of ``player`` now (never ``Resign``)."""
        kind = self.decision_kind(player)
        if kind is None:
            return []
        if kind == "program":
            return self.programs(player)
        assert self.waiting is not None
        return list(self._card_options(player, kind))

    def programs(self, player: Player, taken: Iterable[int] = ()) -> list[Move]:
        """Every distinct programming of ``player``'s hand on the slots open to them."""
        orders = sorted(set(permutations(self.hands[player], CARDS_PER_PROGRAM)))
        return [Program.in_slot_order(tuple(zip(slots, cards, strict=True)))
                for slots in self.program_slots(player, taken) for cards in orders]

    def _card_options(self, player: Player, kind: str) -> Iterator[Move]:
        """The legal choices of a card decision, generated lazily (the first one is enough to
        know that the card has a target)."""
        if kind == "transfer":
            yield from self._transfers(player)
            return
        for move in self._candidates(player, kind):
            if self._why_not(player, move, kind) is None:
                yield move

    def _candidates(self, player: Player, kind: str) -> Iterator[Move]:
        """Every move of a card decision's shape on this ring, legal or not (``_why_not`` decides)."""
        ring = self.ring
        if kind == "harpoon":
            yield from (Harpoon(p) for p in self.alive(player.other))
        elif kind == "turtle":
            yield from (Turtle(p) for p in self.alive(player))
        elif kind == "fog":
            yield from (Fog(s) for s in SLOTS)
        elif kind == "surge":
            yield from (Surge(d) for d in (Direction.CW, Direction.CCW))
        elif kind == "flood":
            yield from (Flood(i) for i in ring)
        elif kind == "net":
            yield from (Net(i) for i in ring)
        elif kind == "pilehouse":
            yield from (Pilehouse(i) for i in ring)
        elif kind == "volcano":
            yield from (Volcano(i) for i in ring)
        elif kind == "fish":
            yield from (Fish(p, i) for p in self.alive(player) for i in ring)
        elif kind == "flee":
            yield from (Flee(p) for p in self.people_on(self.lava[0]))

    def _transfers(self, player: Player) -> Iterator[Transfer]:
        """Every legal Transfer of ``player`` (§5.1), built step by step within the points: each
        step leaves and reaches an island without a Net at a cost of 1..points; only the room
        on the destinations is left to check on the whole set.  The pass (no step), when the
        options allow it, comes last and only after a real Transfer: the first move tells
        whether the card has a target."""
        points = self.options.transfer_points
        reach: list[tuple[str, list[tuple[int, int]]]] = []
        for person in self.alive(player):
            here = self._island_of(person)
            if self.netted(here):
                continue
            dests = [(i, cost) for i in self.ring if i != here and not self.netted(i)
                     and (cost := self._step_cost(here, i)) is not None and cost <= points]
            if dests:
                reach.append((person, dests))
        occupancy, small = self._occupancy()

        def extend(first: int, steps: Steps, left: int) -> Iterator[Transfer]:
            for k in range(first, len(reach)):
                person, dests = reach[k]
                for island, cost in dests:
                    if cost > left:
                        continue
                    longer = (*steps, (person, island))
                    if self._arrival_order(longer, occupancy, small) is not None:
                        yield Transfer(longer)
                    if len(longer) < MAX_STEPS and left > cost:
                        yield from extend(k + 1, longer, left - cost)

        some = False
        for move in extend(0, (), points):
            some = True
            yield move
        if some and self.options.transfer_may_pass:
            yield Transfer(())

    def _step_cost(self, here: int, island: int) -> int | None:
        """The movement points a step from ``here`` to ``island`` costs: the ring distance, or
        the shorter way round that passes no Net when nets block passing (None: none does)."""
        if not self.options.nets_block_passing:
            return distance(self.ring, here, island)
        return way_round(self.ring, here, island, self.nets)

    def _occupancy(self) -> tuple[Counter[int], set[int]]:
        """How many people each island holds, and the islands that hold one at most."""
        occupancy = Counter(island for island in self.location.values() if island is not None)
        return occupancy, {i for i in self.ring if self.capacity(i) is not None}

    def _arrival_order(self, steps: Steps, occupancy: Counter[int], small: set[int]) -> Steps | None:
        """The order in which the people of ``steps`` move: as given when room is counted after
        all the steps together; else, people moving one after another, the first order (in
        person order) in which each arrives where there is room.  None: no order fits."""
        one_by_one = self.options.room_checked_per_step
        orders = permutations(steps) if one_by_one else (steps,)
        return next((o for o in orders if self._short_of_room(o, occupancy, small, one_by_one) is None), None)

    def _short_of_room(self, steps: Steps, occupancy: Counter[int], small: set[int], one_by_one: bool) -> int | None:
        """A small island that lacks room for ``steps`` moved all together, or one by one in
        this order; None: there is room for them all."""
        if one_by_one:
            arrived: Counter[int] = Counter()
            for person, island in steps:
                if island in small and occupancy[island] + arrived[island] >= 1:
                    return island
                arrived[self._island_of(person)] -= 1
                arrived[island] += 1
            return None
        for _, island in steps:
            if island in small:
                staying = occupancy[island] - sum(1 for p, _ in steps if self.location[p] == island)
                if staying + sum(1 for _, i in steps if i == island) > 1:
                    return island
        return None

    # ------------------------------------------------------------ checking

    def check(self, player: Player, move: Move) -> None:
        """IllegalMove with the reason if ``player`` may not play ``move`` now; nothing changes."""
        if self._outcome is not None:
            raise IllegalMove("The game is over.")
        if isinstance(move, Resign):
            return
        kind = self.decision_kind(player)
        if kind is None:
            raise IllegalMove(self._not_your_turn(player))
        if move.kind != kind:
            raise IllegalMove(f"Now you must choose {_DECISION_NOUN[kind]}, not {_DECISION_NOUN[move.kind]}.")
        reason = self._why_not(player, move, kind)
        if reason is not None:
            raise IllegalMove(reason)

    def check_program(self, player: Player, move: Program, taken: Iterable[int] = ()) -> None:
        """Whether ``move`` is a programming ``player`` may seal now, while the slots ``taken``
        are claimed by the other player's sealed programming (the arbiter's question)."""
        if self._outcome is not None:
            raise IllegalMove("The game is over.")
        if self.phase is not Phase.PROGRAM or self.programmed[player]:
            raise IllegalMove("It is not the time to program.")
        reason = self._why_not_program(player, move, tuple(taken))
        if reason is not None:
            raise IllegalMove(reason)

    def _not_your_turn(self, player: Player) -> str:
        pending = self.pending()
        if not pending:
            return "The game is over."
        other = pending[0]
        return f"It is not your turn: {other} must choose {_DECISION_NOUN[self.decision_kind(other) or 'program']}."

    def _why_not(self, player: Player, move: Move, kind: str) -> str | None:
        """Why ``move`` is not a legal ``kind`` decision of ``player`` now (None: it is)."""
        if isinstance(move, Program):
            return self._why_not_program(player, move, ())
        if isinstance(move, Transfer):
            return self._why_not_transfer(player, move)
        if isinstance(move, Harpoon | Turtle | Flee | Fish):
            reason = self._why_not_person(move.person)
            if reason:
                return reason
        if isinstance(move, Flood | Net | Pilehouse | Volcano | Fish):
            reason = self._why_not_island(move.island)
            if reason:
                return reason
        if isinstance(move, Harpoon):
            return self._why_not_harpoon(player, move.person)
        if isinstance(move, Turtle):
            if owner_of(move.person) is not player:
                return f"{move.person} is not one of your people."
            return None if self.turtles[player] is None else "Your Turtle is already in play."
        if isinstance(move, Fog):
            return self._why_not_fog(player, move.slot)
        if isinstance(move, Surge):
            if self.flood not in self.ring:
                return "The flood marker is off the ring until the sinking."
            return None if len(self.ring) > 1 else "The flood marker's island has no neighbour."
        if isinstance(move, Flood):
            return None
        if isinstance(move, Net):
            if self.nets[player.other] == move.island:
                return f"Island {move.island} already holds {player.other}'s Net."
            return None if self.nets[player] is None else "Your Net is already in play."
        if isinstance(move, Pilehouse):
            if self.options.island(move.island).large:
                return f"Island {move.island} is large: a Pilehouse goes on a small island."
            if self.pilehouses[player.other] == move.island:
                return f"Island {move.island} already holds {player.other}'s Pilehouse."
            return None if self.pilehouses[player] is None else "Your Pilehouse is already in play."
        if isinstance(move, Volcano):
            if self.options.island(move.island).kind is not Kind.VOLCANIC:
                return f"Island {move.island} is not volcanic."
            return None
        if isinstance(move, Fish):
            if owner_of(move.person) is not player:
                return f"{move.person} is not one of your people."
            if self.location[move.person] == move.island:
                return f"{move.person} is already on island {move.island}: a Flying fish goes to another island."
            if not self._has_room(move.island, 1):
                return f"Island {move.island} is small and already occupied."
            return None
        if isinstance(move, Flee):
            assert self.waiting is not None
            lava = self.lava[0]
            if self.location[move.person] != lava:
                return f"{move.person} is not on island {lava}, the lava island escaping now."
            clan = self._fleeing_clan(lava, self.waiting_owner())
            if owner_of(move.person) is not clan:
                return f"{move.person} may not flee: one of {clan}'s people does."
            return None
        raise AssertionError(f"unexpected move {move!r}")

    def waiting_owner(self) -> Player:
        """The owner of the card being resolved."""
        assert self.resolving is not None
        owner = self.track[self.resolving - 1].owner
        assert owner is not None
        return owner

    def _why_not_person(self, person: str) -> str | None:
        return f"{person} is dead." if self.location.get(person) is None else None

    def _why_not_island(self, island: int) -> str | None:
        return None if island in self.ring else f"Island {island} is no longer in the ring."

    def _why_not_program(self, player: Player, move: Program, taken: tuple[int, ...]) -> str | None:
        if move.slots not in self.program_slots(player, taken):
            if player is self.initiative and not taken:
                return "With the initiative, put one card in each pair of slots: 1 or 2, 3 or 4, 5 or 6."
            free = [s for s in SLOTS if self.track[s - 1].owner is None and s not in taken]
            return f"Put your cards on the free slots {', '.join(map(str, free))}."
        need, have = Counter(card for _, card in move.cards), Counter(self.hands[player])
        for card, n in need.items():
            if have[card] < n:
                if have[card] == 0:
                    return f"You have no {card.title} in your hand."
                return f"You have only {have[card]} {card.title} in your hand."
        return None

    def _why_not_transfer(self, player: Player, move: Transfer) -> str | None:
        if not move.steps:
            return None if self.options.transfer_may_pass else "A Transfer is compulsory: move at least one person."
        if len(move.steps) > MAX_STEPS or len({p for p, _ in move.steps}) != len(move.steps):
            return f"A Transfer moves 1 to {MAX_STEPS} different people."
        cost = 0
        after = dict(self.location)
        for person, island in move.steps:
            reason = self._why_not_person(person) or self._why_not_island(island)
            if reason:
                return reason
            if owner_of(person) is not player:
                return f"{person} is not one of your people."
            here = self.location[person]
            assert here is not None
            if here == island:
                return f"{person} is already on island {island}."
            if self.netted(here):
                return f"{person} stands on island {here}, which holds a Net: nobody may leave it."
            if self.netted(island):
                return f"Island {island} holds a Net: nobody may move there."
            step_cost = self._step_cost(here, island)
            if step_cost is None:
                return f"Both ways from island {here} to island {island} pass a Net."
            cost += step_cost
            after[person] = island
        points = self.options.transfer_points
        if cost > points:
            return f"These steps cost {cost} movement points; a Transfer has {points}."
        occupancy, small = self._occupancy()
        if self._arrival_order(move.steps, occupancy, small) is None:
            crowded = self._short_of_room(move.steps, occupancy, small, one_by_one=False)
            if crowded is None:
                return ("These people move one after another, and in no order does each find room "
                        "when it arrives: two people cannot swap small islands.")
            there = [p for p in PEOPLE if after[p] == crowded]
            return f"Island {crowded} is small: it cannot hold {' and '.join(there)}."
        return None

    def _why_not_harpoon(self, player: Player, person: str) -> str | None:
        if owner_of(person) is player:
            return f"{person} is one of your own people."
        if self.turtles[player.other] == person:
            return f"{person} is a turtle: a Harpoon cannot take it."
        island = self.location[person]
        assert island is not None
        if not any(self._holds(player, n) for n in neighbours(self.ring, island) if n != island):
            return f"{person} is not on an island next to one of your people."
        return None

    def _why_not_fog(self, player: Player, slot: int) -> str | None:
        assert self.resolving is not None
        target = self.track[slot - 1]
        if slot <= self.resolving or target.resolved:
            return f"Slot {slot} is not a later slot."
        if not target.holds_card:
            return f"Slot {slot} holds no card to fog."
        if target.owner is player and not self.options.fog_own_cards:
            return f"Slot {slot} holds your own card: Fog hits the opponent's cards."
        return None

    def _holds(self, player: Player, island: int) -> bool:
        return any(self.location[p] == island for p in people_of(player))

    def _has_room(self, island: int, arriving: int) -> bool:
        capacity = self.capacity(island)
        return capacity is None or len(self.people_on(island)) + arriving <= capacity

    # ------------------------------------------------------------ playing

    def play(self, player: Player, move: Move, events: list[Event] | None = None) -> None:
        """Apply ``player``'s ``move``: IllegalMove (and nothing changed) if it is not legal.
        The events it caused are appended to ``events``."""
        self.check(player, move)
        out: list[Event] = [] if events is None else events
        if isinstance(move, Resign):
            self.forfeit(player, Termination.RESIGN, out)
            return
        if isinstance(move, Program):
            self._program(player, move, out)
        else:
            self._decide(player, move, out)
        self._run(out)

    def forfeit(self, player: Player, termination: Termination, events: list[Event] | None = None) -> None:
        """``player`` gives the game up (resign, time, abandoned): the other wins."""
        if self._outcome is not None:
            raise IllegalMove("The game is over.")
        self._end(Outcome(termination, player.other), [] if events is None else events)

    def _program(self, player: Player, move: Program, events: list[Event]) -> None:
        face_up = self.open_hand[player] > 0
        if face_up:
            self.open_hand[player] -= 1  # Open hand ends once used (§4.5)
        for slot, card in move.cards:
            self.hands[player].remove(card)
            self.track[slot - 1] = Slot(player, card, face_up)
        self.programmed[player] = True
        events.append(Programmed(player, move.slots, tuple(c for _, c in move.cards), face_up))
        if all(self.programmed):
            self.phase = Phase.RESOLVE
            self.resolving = 0

    def _decide(self, player: Player, move: Move, events: list[Event]) -> None:
        """Carry out a card decision, then finish the card unless a Volcano waits for a flee."""
        assert self.waiting is not None and self.resolving is not None
        pending, self.waiting = self.waiting, None
        owner = self.waiting_owner()
        card = pending.card
        if isinstance(move, Transfer):
            order = self._arrival_order(move.steps, *self._occupancy())
            assert order is not None
            for person, island in order:
                self._move(person, island, "transfer", events)
        elif isinstance(move, Harpoon):
            self._kill(move.person, "harpoon", events)
        elif isinstance(move, Fog):
            target = self.track[move.slot - 1]
            assert target.owner is not None and target.card is not None
            self.track[move.slot - 1] = replace(target, face_up=True, fogged=True)
            self.discards[target.owner].append(target.card)
            events.append(CardWithoutEffect(move.slot, target.owner, target.card, "fogged"))
        elif isinstance(move, Surge):
            to = step(self.ring, self.flood, move.direction)
            assert to is not None
            self._move_flood(to, "surge", events)
        elif isinstance(move, Flood):
            self._move_flood(move.island, "flood", events)
        elif isinstance(move, Net):
            self.nets[owner] = move.island
            events.append(MarkerPlaced(owner, "net", move.island, None))
        elif isinstance(move, Pilehouse):
            self.pilehouses[owner] = move.island
            events.append(MarkerPlaced(owner, "pilehouse", move.island, None))
        elif isinstance(move, Turtle):
            self.turtles[owner] = move.person
            events.append(MarkerPlaced(owner, "turtle", self.location[move.person], move.person))
        elif isinstance(move, Fish):
            self._move(move.person, move.island, "fish", events)
        elif isinstance(move, Volcano):
            self._start_eruption(owner, move.island, events)
            if not self._erupt(owner, events):
                return
        elif isinstance(move, Flee):
            self._flee(move.person, events)
            if not self._erupt(owner, events):
                return
        self._finish_card(card, owner, took_effect=True, events=events)

    # ------------------------------------------------------------ the resolution

    def _run(self, events: list[Event]) -> None:
        """Resolve the track until a card needs a decision, the round ends, or the game ends."""
        while self._outcome is None and self.phase is Phase.RESOLVE and self.waiting is None:
            assert self.resolving is not None
            if self.resolving == len(SLOTS):
                self._end_round(events)
                return
            self.resolving += 1
            slot = self.track[self.resolving - 1]
            if not slot.holds_card:
                continue
            assert slot.owner is not None and slot.card is not None
            self.track[self.resolving - 1] = replace(slot, face_up=True)
            events.append(CardTurned(self.resolving, slot.owner, slot.card))
            self._start_card(slot.owner, slot.card, events)

    def _start_card(self, owner: Player, card: Card, events: list[Event]) -> None:
        kind = DECISION_OF_CARD.get(card)
        if kind is not None:
            if next(self._card_options(owner, kind), None) is None:
                self._without_effect(owner, card, events)
            else:
                assert self.resolving is not None
                self.waiting = Pending(owner, kind, self.resolving, card)
            return
        took_effect = True
        if card is Card.CRAB:
            took_effect = self._crab(owner, events)
        elif card is Card.RESHUFFLE:
            self._reshuffle(owner, events)
        elif card is Card.OPEN_HAND:
            self.open_hand[owner.other] += 1
            events.append(OpenHandPlayed(owner.other, self.open_hand[owner.other]))
        elif card is Card.PRAYER:
            holy = sum(1 for p in self.alive(owner)
                       if self.options.island(self._island_of(p)).kind is Kind.HOLY)
            took_effect = holy > 0
            if took_effect:
                self._draw(owner, holy, events)
        elif card is Card.WEAKNESS:
            self.weakened[owner.other] = True
            events.append(Weakened(owner.other))
        if took_effect:
            self._finish_card(card, owner, took_effect=True, events=events)
        else:
            self._without_effect(owner, card, events)

    def _without_effect(self, owner: Player, card: Card, events: list[Event]) -> None:
        assert self.resolving is not None
        events.append(CardWithoutEffect(self.resolving, owner, card, "no_target"))
        self._finish_card(card, owner, took_effect=False, events=events)

    def _finish_card(self, card: Card, owner: Player, took_effect: bool, events: list[Event]) -> None:
        """The card leaves the track (discard, set aside, or back to the hand), then the end check."""
        assert self.resolving is not None
        self.track[self.resolving - 1] = replace(self.track[self.resolving - 1], resolved=True)
        if took_effect and card in MARKER_CARDS:
            self.set_aside[owner].append(card)
        elif not took_effect and self.options.no_target_returns_to_hand:
            self.hands[owner].append(card)
        else:
            self.discards[owner].append(card)
        self._check_end(events)

    def _island_of(self, person: str) -> int:
        island = self.location[person]
        assert island is not None
        return island

    # ------------------------------------------------------------ card effects

    def _crab(self, owner: Player, events: list[Event]) -> bool:
        victims = []
        for island in self.ring:
            theirs = [p for p in self.people_on(island) if owner_of(p) is owner.other]
            mine = [p for p in self.people_on(island) if owner_of(p) is owner]
            if theirs and sum(map(self.strength, mine)) > sum(map(self.strength, theirs)):
                victims.extend(theirs)
        for person in victims:
            self._kill(person, "crab", events)
        return bool(victims)

    def _reshuffle(self, owner: Player, events: list[Event]) -> None:
        pile = self.decks[owner] + self.discards[owner]
        self.rng.shuffle(pile)
        self.decks[owner], self.discards[owner] = pile, []
        events.append(PileReshuffled(owner, len(pile), "reshuffle"))

    def _draw(self, player: Player, count: int, events: list[Event]) -> None:
        """Draw ``count`` cards (§4.4): an empty draw pile takes the shuffled discard pile."""
        drawn = []
        if not self.options.reshuffle_keeps_rest_first and 0 < len(self.decks[player]) < count:
            self._new_pile(player, events)
        for _ in range(count):
            if not self.decks[player]:
                if not self.discards[player]:
                    break
                self._new_pile(player, events)
            drawn.append(self.decks[player].pop())
        self.hands[player].extend(drawn)
        events.append(CardsDrawn(player, len(drawn), tuple(drawn)))

    def _new_pile(self, player: Player, events: list[Event]) -> None:
        """The discard pile becomes the draw pile, shuffled: under the cards left in the draw
        pile (the top is last), or shuffled together with them when the option says so."""
        if not self.discards[player]:
            return
        pile, rest = self.discards[player], self.decks[player]
        if self.options.reshuffle_keeps_rest_first:
            self.rng.shuffle(pile)
            pile += rest
        else:
            pile += rest
            self.rng.shuffle(pile)
        self.decks[player], self.discards[player] = pile, []
        events.append(PileReshuffled(player, len(pile), "draw"))

    def _move(self, person: str, island: int, by: str, events: list[Event]) -> None:
        here = self._island_of(person)
        self.location[person] = island
        events.append(PersonMoved(person, here, island, by))
        owner = owner_of(person)
        if self.turtles[owner] == person and self.options.turtle_ends_when_moved:
            self._return_turtle(owner, "moved", events)

    def _kill(self, person: str, by: str, events: list[Event]) -> None:
        island = self._island_of(person)
        self.location[person] = None
        events.append(PersonDied(person, island, by))
        owner = owner_of(person)
        if self.turtles[owner] == person:
            self._return_turtle(owner, "died", events)

    def _return_turtle(self, owner: Player, why: str, events: list[Event]) -> None:
        person = self.turtles[owner]
        self.turtles[owner] = None
        self._return_card(owner, Card.TURTLE)
        events.append(MarkerReturned(owner, "turtle", self.location[person] if person else None, person, why))

    def _return_card(self, owner: Player, card: Card) -> None:
        self.set_aside[owner].remove(card)
        self.discards[owner].append(card)

    def _move_flood(self, to: int, by: str, events: list[Event]) -> None:
        events.append(FloodMoved(self.flood, to, by))
        self.flood = to

    def _remove_island(self, island: int, by: str, events: list[Event]) -> None:
        """``island`` leaves the ring with its people (dead) and its markers (returned)."""
        for person in self.people_on(island):
            self._kill(person, by, events)
        self.ring.remove(island)
        why = "sank" if by == "sinking" else "erupted"
        for player in PLAYERS:
            if self.nets[player] == island:
                self.nets[player] = None
                self._return_card(player, Card.NET)
                events.append(MarkerReturned(player, "net", island, None, why))
            if self.pilehouses[player] == island:
                self.pilehouses[player] = None
                self._return_card(player, Card.PILEHOUSE)
                events.append(MarkerReturned(player, "pilehouse", island, None, why))

    # ------------------------------------------------------------ the Volcano (§5.2)

    def _start_eruption(self, owner: Player, crater: int, events: list[Event]) -> None:
        self.crater = crater
        self.lava_all = neighbours(self.ring, crater)
        self.lava = list(self.lava_all)

    def _escape(self, lava: int) -> int | None:
        """Where the people of a lava island may go: its other neighbour, unless §5.2 forbids it."""
        assert self.crater is not None
        others = [n for n in neighbours(self.ring, lava) if n != self.crater]
        if not others or others[0] in self.lava_all or self.netted(lava) or self.netted(others[0]):
            return None
        escape = others[0]
        if self.capacity(escape) is not None and self.people_on(escape):
            return None
        return escape

    def _fleeing_clan(self, lava: int, erupting: Player) -> Player:
        return erupting if self._holds(erupting, lava) else erupting.other

    def _erupt(self, owner: Player, events: list[Event]) -> bool:
        """Handle the lava islands left, then the crater; False while the card is not finished:
        waiting for a flee, or the game ended at the lava (``end_check_at_any_point``)."""
        assert self.crater is not None and self.resolving is not None
        while self.lava:
            lava = self.lava[0]
            there = self.people_on(lava)
            escape = self._escape(lava)
            if there and escape is not None:
                if self.capacity(escape) is None:
                    for person in there:
                        self._move(person, escape, "volcano", events)
                else:
                    clan = self._fleeing_clan(lava, owner)
                    chooser = self.options.flee_chooser
                    if chooser != "strongest":
                        self.waiting = Pending(clan if chooser == "owner" else owner, "flee", self.resolving,
                                               Card.VOLCANO)
                        return False
                    candidates = [p for p in there if owner_of(p) is clan]
                    self._move(max(candidates, key=lambda p: (strength_of(p), -PEOPLE.index(p))), escape,
                               "volcano", events)
            self.lava.pop(0)
        for lava in self.lava_all:
            for person in self.people_on(lava):
                self._kill(person, "volcano", events)
        crater, self.crater, self.lava_all = self.crater, None, ()
        if self.options.end_check_at_any_point:
            self._check_end(events)
            if self._outcome is not None:
                return False  # over at once: the crater stays, the card stays on the track (§11.9)
        events.append(IslandErupted(crater, owner))
        self._remove_island(crater, "volcano", events)
        if self.flood == crater and self.ring and self.options.eruption_advances_flood:
            self._move_flood(next_flood(self.ring, crater), "volcano", events)
        return True

    def _flee(self, person: str, events: list[Event]) -> None:
        escape = self._escape(self.lava[0])
        assert escape is not None
        self._move(person, escape, "volcano", events)
        self.lava.pop(0)

    # ------------------------------------------------------------ the end of a round

    def _end_round(self, events: list[Event]) -> None:
        """Sinking (§4.3), draw (§4.4), end of round (§4.5), then the next round's programming."""
        if self.flood in self.ring:
            sunk = self.flood
            events.append(IslandSank(sunk))
            self._remove_island(sunk, "sinking", events)
            self._check_end(events)
            if self._outcome is not None:
                return  # §11.10: the flood marker stays
        if self.ring:
            self._move_flood(next_flood(self.ring, self.flood), "sinking", events)
        for player in PLAYERS:
            self._draw(player, self.options.draw_per_round, events)
        self.weakened = [False, False]
        self.track = [EMPTY_SLOT] * len(SLOTS)
        self.programmed = [False, False]
        self.resolving = None
        self.initiative = self.initiative.other
        events.append(InitiativePassed(self.initiative))
        if self.round >= self.options.max_rounds:
            self._end(Outcome(Termination.ROUND_LIMIT, None), events)
            return
        self.round += 1
        self.phase = Phase.PROGRAM
        events.append(RoundStarted(self.round, self.initiative))

    def _check_end(self, events: list[Event]) -> None:
        red, blue = bool(self.alive(RED)), bool(self.alive(BLUE))
        if red and blue:
            return
        if not red and not blue:
            self._end(Outcome(Termination.BOTH_ELIMINATED, None), events)
        else:
            self._end(Outcome(Termination.ELIMINATED, RED if red else BLUE), events)

    def _end(self, outcome: Outcome, events: list[Event]) -> None:
        self._outcome = outcome
        self.phase = Phase.OVER
        self.waiting = None
        events.append(GameOver(outcome.winner, outcome.termination))

    # ------------------------------------------------------------ copying

    def copy(self) -> GameState:
        new = GameState.__new__(GameState)
        new.__dict__.update(self.__dict__)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        for name in ("ring", "nets", "pilehouses", "turtles", "track", "programmed", "open_hand", "weakened",
                     "lava"):
            setattr(new, name, list(getattr(self, name)))
        new.location = dict(self.location)
        for name in ("decks", "hands", "discards", "set_aside"):
            setattr(new, name, [list(pile) for pile in getattr(self, name)])
        return new


#: What a decision asks for, in the words of "you must choose …".
_DECISION_NOUN = {
    "program": "a programming", "transfer": "a Transfer", "harpoon": "a Harpoon target",
    "turtle": "a Turtle", "flee": "who flees", "fog": "a slot to fog", "surge": "a Tidal surge direction",
    "flood": "an island to flood", "net": "an island to net", "pilehouse": "an island for the Pilehouse",
    "volcano": "a volcano", "fish": "a Flying fish move", "resign": "to resign",
}


def new_game(seed: int, options: Options = DEFAULT_OPTIONS, events: list[Event] | None = None) -> GameState:
    """A new game dealt from ``seed`` (§3); the setup's events (the first round, each opening
    draw) are appended to ``events``."""
    out: list[Event] = [] if events is None else events
    state = GameState.__new__(GameState)
    state.options = options
    state.rng = rng = random.Random(seed)
    ring = [i.number for i in options.islands]
    rng.shuffle(ring)
    people = list(PEOPLE)
    rng.shuffle(people)
    start = ring.index(1)
    state.ring = ring
    state.location = {person: ring[(start + k) % len(ring)] for k, person in enumerate(people)}
    state.flood = 1
    state.nets, state.pilehouses, state.turtles = [None, None], [None, None], [None, None]
    state.decks = []
    for _ in PLAYERS:
        deck = list(options.deck)
        rng.shuffle(deck)
        state.decks.append(deck)
    state.hands, state.discards, state.set_aside = [[], []], [[], []], [[], []]
    state.track = [EMPTY_SLOT] * len(SLOTS)
    state.programmed, state.open_hand, state.weakened = [False, False], [0, 0], [False, False]
    state.resolving, state.waiting = None, None
    state.lava, state.crater, state.lava_all = [], None, ()
    state._outcome = None
    state.round = 1
    state.initiative = owner_of(people[0])
    state.phase = Phase.PROGRAM
    out.append(RoundStarted(1, state.initiative))
    for player in PLAYERS:
        state._draw(player, options.hand_size, out)
    return state
