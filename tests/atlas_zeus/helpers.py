"""Exact positions for the Atlas & Zeus engine tests.

``position`` builds a state with a given ring, people, hands, markers and track, the
rest of each clan's 25 cards in its draw pile, so the card invariant of §9 holds.  With a
``track`` the state is in the resolution, and ``resolve`` runs it to the first decision.
Tests never depend on what a seed happens to deal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from atlas_zeus import BLUE, PLAYERS, RED, Card, GameState, Player, new_game
from atlas_zeus.events import Event
from atlas_zeus.game import Phase, Slot
from atlas_zeus.moves import Move
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.players import PEOPLE

#: Marker cards by marker name.
_MARKER_CARDS = {"net": Card.NET, "pilehouse": Card.PILEHOUSE, "turtle": Card.TURTLE}


def position(people: Mapping[str, int], *, ring: Iterable[int] = range(1, 17), flood: int | None = None,
             hands: Mapping[Player, Iterable[Card]] | None = None,
             track: Mapping[int, tuple[Player, Card]] | None = None,
             nets: Mapping[Player, int] | None = None, pilehouses: Mapping[Player, int] | None = None,
             turtles: Mapping[Player, str] | None = None, discards: Mapping[Player, Iterable[Card]] | None = None,
             decks: Mapping[Player, Iterable[Card]] | None = None,
             initiative: Player = RED, round: int = 1, options: Options = DEFAULT_OPTIONS, seed: int = 0) -> GameState:
    """A state: ``people`` maps each living person to an island (the others are dead).
    ``decks`` gives a draw pile top card first (the rest of the 25 cards go under it)."""
    state = new_game(seed, options)
    state.ring = list(ring)
    state.location = {p: people.get(p) for p in PEOPLE}
    state.flood = state.ring[0] if flood is None else flood
    state.round, state.initiative = round, initiative
    rest = [Counter(options.deck), Counter(options.deck)]

    def take(player: Player, cards: Iterable[Card]) -> list[Card]:
        cards = list(cards)
        rest[player].subtract(cards)
        if any(n < 0 for n in rest[player].values()):
            raise ValueError(f"more cards than {player}'s deck holds: {cards}")
        return cards

    state.hands = [take(p, (hands or {}).get(p, ())) for p in PLAYERS]
    state.discards = [take(p, (discards or {}).get(p, ())) for p in PLAYERS]
    state.set_aside = [[], []]
    for name, markers in (("net", nets), ("pilehouse", pilehouses), ("turtle", turtles)):
        for player, where in (markers or {}).items():
            getattr(state, name + "s")[player] = where
            state.set_aside[player].append(*take(player, [_MARKER_CARDS[name]]))
    state.track = [Slot()] * 6
    for slot, (player, card) in (track or {}).items():
        take(player, [card])
        state.track[slot - 1] = Slot(player, card)
    tops = [take(p, (decks or {}).get(p, ())) for p in PLAYERS]
    state.decks = [sorted(rest[p].elements(), key=list(Card).index) + list(reversed(tops[p])) for p in PLAYERS]
    if track:
        state.phase, state.programmed, state.resolving = Phase.RESOLVE, [True, True], 0
    return state


def resolve(state: GameState) -> list[Any]:
    """Run the resolution of a ``position`` built with a track, up to the first decision; its events
    (typed loosely, for the tests to read any field)."""
    events: list[Event] = []
    state._run(events)  # the engine starts it itself after the second programming
    return events


def play(state: GameState, player: Player, move: Move) -> list[Any]:
    events: list[Event] = []
    state.play(player, move, events)
    return events


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def of(events: Iterable[Event], cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def total_cards(state: GameState, player: Player) -> int:
    """Deck + hand + track + discard + set aside (§9)."""
    on_track = sum(1 for s in state.track if s.owner is player and s.holds_card)
    return (len(state.decks[player]) + len(state.hands[player]) + on_track + len(state.discards[player])
            + len(state.set_aside[player]))


__all__ = ["BLUE", "RED", "kinds", "of", "play", "position", "resolve", "total_cards"]
