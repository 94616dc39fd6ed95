"""``greedy``: one ply ahead, decided from the view alone.

*A card's decision* (Transfer, Harpoon, Fog, Tidal surge, Flood, Net, Turtle, Pilehouse,
Flying fish, Volcano): every legal option is played on ``samples`` determinizations of the
view (``bots.atlas_zeus.determinize``: the opponent's hand, face-down cards and both draw
piles dealt at random from the cards the bot cannot see), the resolution runs on by itself
as the engine runs it — the rest of the track and, if no other decision comes first, the
sinking — and the position reached is scored with ``bots.atlas_zeus.evaluation``.  The
option with the best total over the samples wins (the same samples for every option, so
they are compared on equal terms; ties broken at random).  A fleeing decision met on the
way is settled as the rules' bot default does: the strongest person flees.

*Fleeing* (``flee``): the strongest person (the determinization cannot rebuild a Volcano
half-way through, and saving the strongest is the obvious choice).

*Programming*: a heuristic ordering, not a search.  Each card in hand gets a value in the
current position — a Crab the opponent's people it would kill now, a Harpoon its best
target, a Flood or a Tidal surge what sinking another island would gain, a Transfer or a
Flying fish the people under the flood marker it could save, and so on (``card_values``) —
the three best cards are played (a second copy of a card counts for less), in a fixed
order of resolution: Weakness first, then Fog (while the opponent's cards are still to
come), Transfer and Flying fish, Harpoon and Crab, Volcano, and Flood or Tidal surge last
(the final word on what sinks).  With the initiative, the early cards take the first slot
of their pair and the late ones the second.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from atlas_zeus.cards import Card
from atlas_zeus.game import GameState
from atlas_zeus.moves import Flee, Move, Program
from atlas_zeus.players import Player, owner_of, strength_of
from atlas_zeus.ring import Kind, neighbours
from atlas_zeus.views import View, view

from .determinize import determinize
from .evaluation import evaluate, safety, sinking_order, worth
from .strategy import Strategy, decision_of, player_of

__all__ = ["GreedyStrategy", "card_values"]

#: The order in which a programming's cards should resolve (lower first).
RESOLUTION_ORDER: dict[Card, int] = {
    Card.WEAKNESS: 0, Card.FOG: 1, Card.OPEN_HAND: 1, Card.TURTLE: 1, Card.PILEHOUSE: 1,
    Card.TRANSFER: 2, Card.FISH: 2, Card.NET: 3, Card.HARPOON: 3, Card.CRAB: 4, Card.PRAYER: 4,
    Card.RESHUFFLE: 4, Card.VOLCANO: 5, Card.FLOOD: 6, Card.SURGE: 6,
}
#: Cards at least this late in RESOLUTION_ORDER take the second slot of their pair (initiative).
LATE = 4
#: A second copy of a card in one programming is worth this share of its value.
COPY_DISCOUNT = 0.5


def strongest(moves: Iterable[Move]) -> Flee:
    """The flee of the strongest person among ``moves`` (all ``Flee``)."""
    flees = [m for m in moves if isinstance(m, Flee)]
    return max(flees, key=lambda m: strength_of(m.person))


class GreedyStrategy(Strategy):
    """One ply: each legal option played on sampled states and the best position kept;
    programming by a heuristic ordering of the hand."""

    name = "greedy"

    def __init__(self, seed: int | None = None, samples: int = 2) -> None:
        super().__init__(seed)
        if samples < 1:
            raise ValueError("greedy needs at least one sample")
        self.samples = samples

    def choose(self, view: View) -> Move:
        decision = decision_of(view)
        if decision.kind == "program":
            return self.program(view)
        if decision.kind == "flee":
            return strongest(decision.options)
        me = player_of(view)
        samples = [determinize(view, self.rng) for _ in range(self.samples)]
        moves = list(decision.options) or samples[0].legal_moves(me)
        if len(moves) == 1:
            return moves[0]
        totals = [sum(_after(sample, me, move) for sample in samples) for move in moves]
        best = max(totals)
        return self.rng.choice([m for m, total in zip(moves, totals, strict=True) if total == best])

    def program(self, view: View) -> Program:
        me = player_of(view)
        decision = decision_of(view)
        values = card_values(view, me)
        chosen: list[Card] = []
        left = list(decision.hand)
        for _ in range(3):
            seen = Counter(chosen)
            card = max(left, key=lambda c: values[c] * COPY_DISCOUNT ** seen[c])
            chosen.append(card)
            left.remove(card)
        chosen.sort(key=RESOLUTION_ORDER.__getitem__)
        wanted = tuple(2 * pair + 1 + (RESOLUTION_ORDER[card] >= LATE) for pair, card in enumerate(chosen))
        slots = wanted if wanted in decision.slots else decision.slots[0]
        return Program(tuple(zip(slots, chosen, strict=True)))


def _after(sample: GameState, me: Player, move: Move) -> float:
    """The value for ``me`` of the position after ``move`` on a copy of ``sample``."""
    state = sample.copy()
    state.play(me, move)
    while (pending := state.pending()) and state.decision_kind(pending[0]) == "flee":
        state.play(pending[0], strongest(state.legal_moves(pending[0])))
    return evaluate(view(state, None), me)


def card_values(v: View, me: Player) -> dict[Card, float]:
    """What each card would be worth played now (the programming heuristic; see the module)."""
    them = me.other
    numbers = [i.number for i in v.ring]
    order = {n: k for k, n in enumerate(sinking_order(numbers, v.flood))}
    at_stake: dict[int, list[float]] = {n: [0.0, 0.0] for n in numbers}  # island -> worth per clan
    power: dict[int, list[int]] = {n: [0, 0] for n in numbers}  # island -> strength per clan
    for p in v.people:
        if p.island is not None:
            at_stake[p.island][p.clan] += worth(p.strength)
            power[p.island][p.clan] += p.strength
    islands = {i.number: i for i in v.ring}

    def sinking_gain(n: int) -> float:
        """What sinking island ``n`` (instead of nothing) gains me."""
        return at_stake[n][them] - at_stake[n][me]

    here = sinking_gain(v.flood)
    my_danger = at_stake[v.flood][me]
    next_island = min(numbers, key=lambda n: (order[n] != 1, n))
    harpoonable = [worth(p.strength) for p in v.people
                   if p.clan is them and p.island is not None and not p.turtle
                   and any(any(owner_of(q) is me for q in islands[n].people) for n in neighbours(numbers, p.island))]
    crab = sum(at_stake[n][them] * safety(order[n]) for n in numbers
               if at_stake[n][them] and power[n][me] > power[n][them])
    hand = decision_of(v).hand
    contested = sum(at_stake[n][them] for n in numbers if at_stake[n][them] and power[n][me])
    volcano = max((sum(sinking_gain(m) for m in (n, *neighbours(numbers, n)))
                   for n in numbers if islands[n].kind is Kind.VOLCANIC), default=0.0)
    holy = sum(1 for p in v.people if p.clan is me and p.island is not None and islands[p.island].kind is Kind.HOLY)
    return {
        Card.TRANSFER: 0.6 + 1.2 * my_danger + 0.3 * at_stake[next_island][me],
        Card.FISH: 0.4 + 1.2 * my_danger,
        Card.CRAB: 0.2 + 1.2 * crab,
        Card.HARPOON: 1.1 * max(harpoonable, default=-0.1) + 0.2,
        Card.FLOOD: 0.2 + max(0.0, max(map(sinking_gain, numbers)) - here),
        Card.SURGE: 0.1 + max(0.0, max((sinking_gain(n) for n in neighbours(numbers, v.flood)), default=here) - here),
        Card.VOLCANO: max(0.0, 0.7 * volcano),
        Card.FOG: 0.7,
        Card.WEAKNESS: 0.05 + (0.4 * contested if Card.CRAB in hand else 0.0),
        Card.PRAYER: 0.05 + 0.35 * holy,
        Card.TURTLE: 0.1,
        Card.NET: 0.2,
        Card.PILEHOUSE: 0.2,
        Card.OPEN_HAND: 0.3,
        Card.RESHUFFLE: 0.15,
    }
