"""How good a position is for one player: the greedy bot's yardstick.

``evaluate(view, player)`` reads public facts only (any view will do, a spectator's too):
the value of ``player``'s side minus the opponent's side, or ±``WIN`` when the game is over.
A side is worth the sum over its living people of

    worth(person) × safety(island)

with ``worth`` growing with the person's strength (a stronger person wins more Crab fights)
and ``safety`` with the number of sinkings before the person's island goes under: the flood
marker's order is public (the marker's island sinks this round, then the next higher
numbers in turn), so an island far down that order is a safe home and the one under the
marker is nearly a grave.  A Net on the island makes it worse (nobody may walk off it).
Then smaller terms:

- people in reach of the opponent — outnumbered in strength on a shared island (Crab), or
  next to an island holding opponent people and not a turtle (Harpoon) — lose part of
  their worth;
- people on a holy island are worth a little more (Prayer draws a card for each);
- a Pilehouse is worth a little (a small island that takes any number of people).

The weights are hand-tuned, not learnt; ``tests/bots/atlas_zeus`` only checks their signs.
"""

from __future__ import annotations

from collections import defaultdict

from atlas_zeus.options import DEFAULT_OPTIONS
from atlas_zeus.players import Player, owner_of
from atlas_zeus.ring import Kind, neighbours
from atlas_zeus.views import View

__all__ = ["WIN", "evaluate", "sinking_order", "worth"]

#: The value of a won game (a lost one is -WIN, a draw 0): more than any position.
WIN = 1000.0
#: safety(k) = 1 - SINKING_RISK * SINKING_DECAY ** k for an island that sinks after k others.
SINKING_RISK = 0.8
SINKING_DECAY = 0.45
#: A Net keeps people on its island: it counts as sinking this much sooner.
NET_PENALTY = 0.7
#: The share of a person's worth at stake where the opponent could strike with a Crab, a Harpoon.
CRAB_RISK = 0.3
HARPOON_RISK = 0.08
#: Bonuses: a person on a holy island; a Pilehouse in the ring.
HOLY_BONUS = 0.08
PILEHOUSE_BONUS = 0.1
#: Strength adds to a person's worth: 1 + strength / STRENGTH_SCALE.
STRENGTH_SCALE = 80


def worth(strength: int) -> float:
    """What a living person of this strength is worth, before its island's safety."""
    return 1 + strength / STRENGTH_SCALE


def sinking_order(ring: list[int], flood: int) -> list[int]:
    """The islands in the order they will sink if nothing moves the flood marker: the
    marker's island, then ever higher numbers, wrapping round to the lowest (§4.3)."""
    return sorted(ring, key=lambda number: (number < flood, number))


def safety(sinkings_before: float) -> float:
    return 1 - SINKING_RISK * SINKING_DECAY ** max(0.0, sinkings_before)


def evaluate(view: View, player: Player) -> float:
    """``player``'s side minus the opponent's (see the module's text); ±WIN once over."""
    if view.outcome is not None:
        winner = view.outcome.winner
        return 0.0 if winner is None else WIN if winner is player else -WIN
    order = {number: k for k, number in enumerate(sinking_order([i.number for i in view.ring], view.flood))}
    islands = {i.number: i for i in view.ring}
    numbers = [i.number for i in view.ring]
    strength: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])  # island -> per clan, for Crab
    for person in view.people:
        if person.island is not None:
            weak = view.player(person.clan).weakened
            strength[person.island][person.clan] += DEFAULT_OPTIONS.weakened_strength if weak else person.strength
    side = [0.0, 0.0]
    for person in view.people:
        number = person.island
        if number is None:
            continue
        clan = person.clan
        island = islands[number]
        value = worth(person.strength)
        k = order[number] - (NET_PENALTY if island.net is not None else 0)
        held = value * safety(k)
        theirs = strength[number][clan.other]
        if theirs > strength[number][clan]:
            held -= CRAB_RISK * value
        if not person.turtle and any(
                any(owner_of(q) is clan.other for q in islands[n].people) for n in neighbours(numbers, number)):
            held -= HARPOON_RISK * value
        if island.kind is Kind.HOLY:
            held += HOLY_BONUS
        side[clan] += held
    for island in view.ring:
        if island.pilehouse is not None:
            side[island.pilehouse] += PILEHOUSE_BONUS
    return side[player] - side[player.other]
