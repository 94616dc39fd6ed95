"""Determinization: a whole game state consistent with what one player's view shows.

A bot that looks one ply ahead needs a state to play a move on; it only has its view.
``determinize(view, rng)`` builds a ``GameState`` in which everything the view shows is as
shown (the ring, the people, the markers, the track, the piles' sizes, the discards, the
viewer's hand) and every card the viewer cannot see is dealt at random from the cards it
cannot account for: the opponent's hand, the opponent's face-down cards on the track, and
both draw piles' order.  So ``view(determinize(v, rng), v.viewer) == v``.

A Volcano's fleeing (a ``flee`` decision) cannot be rebuilt: the lava islands still to
handle are not in the view, so a view waiting for a flee is refused.

It writes the engine state's fields directly (as ``atlas_zeus.game.new_game`` does), so it
follows ``GameState``'s layout; the round-trip test in ``tests/bots/atlas_zeus`` guards that.
"""

from __future__ import annotations

import random
from collections import Counter

from atlas_zeus.cards import Card
from atlas_zeus.game import GameState, Pending, Phase, Slot
from atlas_zeus.moves import Move
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.players import PLAYERS, Player, owner_of
from atlas_zeus.views import View

from .strategy import decision_of, player_of

__all__ = ["determinize", "legal_moves"]


def determinize(view: View, rng: random.Random, options: Options = DEFAULT_OPTIONS) -> GameState:
    """A state consistent with ``view`` (a player's view holding that player's decision)."""
    me = player_of(view)
    decision = decision_of(view)
    if decision.kind == "flee":
        raise ValueError("a Volcano's fleeing cannot be sampled from a view")
    state = GameState.__new__(GameState)
    state.options = options
    state.rng = random.Random(rng.getrandbits(64))
    state.round, state.initiative, state.phase = view.round, view.initiative, view.phase
    state.ring = [island.number for island in view.ring]
    state.location = {p.person: p.island for p in view.people}
    state.flood = view.flood
    state.nets = [_holding(view, player, "net") for player in PLAYERS]
    state.pilehouses = [_holding(view, player, "pilehouse") for player in PLAYERS]
    state.turtles = [next((p.person for p in view.people if p.turtle and owner_of(p.person) is player), None)
                     for player in PLAYERS]
    state.discards = [list(view.player(player).discard) for player in PLAYERS]
    state.set_aside = [list(view.player(player).set_aside) for player in PLAYERS]
    state.track = [Slot(s.owner, s.card, s.face_up, s.resolved, s.fogged) for s in view.track]
    state.hands, state.decks = [[], []], [[], []]
    for player in PLAYERS:
        _deal(view, player, state, options, rng)
    state.programmed = [any(s.owner is player for s in view.track) for player in PLAYERS]
    state.open_hand = [int(view.player(player).open_hand) for player in PLAYERS]
    state.weakened = [view.player(player).weakened for player in PLAYERS]
    state.resolving = view.resolving
    state.waiting = None
    if view.phase is Phase.RESOLVE:
        assert view.resolving is not None and decision.card is not None
        state.waiting = Pending(me, decision.kind, view.resolving, decision.card)
    state.lava, state.crater, state.lava_all = [], None, ()
    state._outcome = None
    return state


def legal_moves(view: View, rng: random.Random, options: Options = DEFAULT_OPTIONS) -> list[Move]:
    """Every legal move of the viewer's decision: the decision's options, or (for a
    programming or a Transfer, whose options the view describes instead of listing) the
    moves of a determinization — which depend on public facts and the viewer's hand only."""
    decision = decision_of(view)
    if decision.options:
        return list(decision.options)
    return determinize(view, rng, options).legal_moves(player_of(view))


def _holding(view: View, player: Player, marker: str) -> int | None:
    """The island holding ``player``'s Net or Pilehouse, or None."""
    return next((i.number for i in view.ring if getattr(i, marker) is player), None)


def _deal(view: View, player: Player, state: GameState, options: Options, rng: random.Random) -> None:
    """Fill ``player``'s hand, deck and face-down track cards of ``state`` from the cards the
    view does not account for, at random."""
    pv = view.player(player)
    unseen = Counter(options.deck)
    unseen.subtract(pv.discard)
    unseen.subtract(pv.set_aside)
    unseen.subtract(s.card for s in view.track if s.owner is player and s.card is not None
                    and not s.resolved and not s.fogged)
    if pv.hand is not None:
        unseen.subtract(pv.hand)
    if any(n < 0 for n in unseen.values()):
        raise ValueError(f"the view shows more cards of {player} than the deck holds")
    cards: list[Card] = sorted(unseen.elements())
    rng.shuffle(cards)
    face_down = [i for i, s in enumerate(view.track) if s.owner is player and s.card is None]
    for i in face_down:
        slot = view.track[i]
        state.track[i] = Slot(player, cards.pop(), slot.face_up, slot.resolved, slot.fogged)
    if pv.hand is not None:
        state.hands[player] = list(pv.hand)
    else:
        hidden = len(cards) - pv.deck
        state.hands[player], cards = cards[:hidden], cards[hidden:]
    if len(cards) != pv.deck:
        raise ValueError(f"{player}'s cards do not add up: {len(cards)} unseen, {pv.deck} in the draw pile")
    state.decks[player] = cards
