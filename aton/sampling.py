"""Determinization: full game states consistent with what one player may know.

A search bot that only has its view (``aton.views.View``) cannot play moves
forward; ``sample_state(view, rng)`` gives it a complete ``GameState`` in which
every card the viewer has not seen is dealt at random (the opponent's hand,
face-down cartouches, exchanged discards and deck; the viewer's own deck order)
and everything the view reveals is exactly as shown — the viewer's own exchanged
hand stays in its discard pile, the war cards stay at the bottom of their decks:

    view(sample_state(v, rng), v.viewer) == v

Pure: no I/O, and all randomness comes from ``rng``.  ``Sampler`` prepares the
parts that do not change from sample to sample, for bots that draw thousands.
"""

from __future__ import annotations

import random

from .game import STONES_PER_PLAYER, GameState, Phase
from .options import DEFAULT_RULES, Rules
from .players import PLAYERS, Player
from .views import View, unseen_cards

__all__ = ["Sampler", "sample_state"]


class Sampler:
    """Samples states consistent with one view; build once, call ``sample`` many times."""

    __slots__ = ("template", "unseen", "slots", "viewer")

    def __init__(self, v: View, rules: Rules = DEFAULT_RULES) -> None:
        if v.viewer is None:
            raise ValueError("a spectator's view cannot be completed: sample from a player's view")
        if v.phase is Phase.OVER:
            raise ValueError("the game is over: there is nothing left to sample")
        self.viewer: Player = v.viewer
        s = GameState(rules, 0, ([], []))
        s.round = v.round
        s.phase = v.phase
        s.first = v.first
        s.active = v.active
        s.turn_index = 0 if s.active is None or s.active == s.first else 1
        s.stones = list(v.stones)
        self.unseen: list[list[int]] = []
        # per player: (hand cards to deal, face-down cartouche positions, hidden discards to deal,
        # the known exchanged cards in the discard pile, the known cards at the deck's bottom, bottom first)
        self.slots: list[tuple[int, tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]] = []
        for p in PLAYERS:
            pv = v.player(p)
            s.scores[p] = pv.score
            s.supply[p] = pv.supply
            s.dead[p] = pv.dead
            s.retired[p] = STONES_PER_PLAYER - pv.supply - pv.on_board - pv.dead
            s.exchange_used[p] = pv.exchange_used
            s.discard_public[p] = list(pv.discard_seen)
            if pv.hand is not None:
                s.hands[p] = tuple(pv.hand)
                hidden_hand = 0
            else:
                hidden_hand = pv.hand_size
            face_down: tuple[int, ...] = ()
            if pv.committed:
                c1, c2, c3, c4 = (0 if c is None else c for c in pv.cartouches)  # 0: face down, dealt by sample
                s.cartouches[p] = (c1, c2, c3, c4)
                face_down = tuple(i for i, c in enumerate(pv.cartouches) if c is None)
                s.revealed[p] = pv.revealed
            exchanged = pv.exchanged or ()
            hidden_discard = pv.discard - len(pv.discard_seen) - len(exchanged)
            above_bottom = pv.deck - len(pv.deck_bottom)
            pool = list(unseen_cards(v, p).elements())
            if hidden_discard < 0 or above_bottom < 0 or \
                    len(pool) != hidden_hand + len(face_down) + hidden_discard + above_bottom:
                raise ValueError(
                    f"inconsistent view: {p} has {len(pool)} unseen cards for "
                    f"{hidden_hand} in hand, {len(face_down)} face down, {hidden_discard} "
                    f"discarded unseen and {above_bottom} in the deck above the known cards")
            s.war_bottom[p] = len(pv.deck_bottom)
            self.unseen.append(pool)
            self.slots.append((hidden_hand, face_down, hidden_discard, exchanged, pv.deck_bottom[::-1]))
        decision = v.decision
        if s.active is not None:
            s.range_value = v.range or 0
            if decision is not None and decision.kind in ("remove", "place"):
                s.remaining = decision.count
                if decision.owner is not None:  # a removal: whose stones
                    s.target = decision.owner
        self.template = s
        if s.active is not None and (decision is None or decision.kind == "commit"):
            self._guess_opponent_turn(s.active)

    def _guess_opponent_turn(self, active: Player) -> None:
        """The view does not say how many stones the acting opponent still has to move:
        assume none of them has been moved yet (the best guess without the event log)."""
        s = self.template
        cards = s.cartouches[active]
        assert cards is not None, "the acting player has committed"
        if s.phase is Phase.REMOVE:
            removal = 0 if s.round == 1 else cards[1] - 2
            if removal >= 1:
                s.target, s.remaining = active.other, removal
            else:
                s.target, s.remaining = active, 1
        elif s.phase is Phase.PLACE:
            s.remaining = max(1, min(cards[3], s.supply[active]))

    def sample(self, rng: random.Random) -> GameState:
        """A fresh state: the template with every unseen card dealt at random."""
        s = self.template.copy()
        s.seed = rng.getrandbits(62)  # future shuffles of the sampled state
        for p in PLAYERS:
            pool = self.unseen[p][:]
            rng.shuffle(pool)
            hidden_hand, face_down, hidden_discard, exchanged, bottom = self.slots[p]
            if hidden_hand:
                s.hands[p] = tuple(pool[:hidden_hand])
                del pool[:hidden_hand]
            committed = s.cartouches[p]
            if face_down and committed is not None:
                cards = list(committed)
                for i in face_down:
                    cards[i] = pool.pop()
                c1, c2, c3, c4 = cards
                s.cartouches[p] = (c1, c2, c3, c4)
            if hidden_discard or exchanged:
                s.discard_hidden[p] = [*exchanged, *pool[:hidden_discard]]
                del pool[:hidden_discard]
            s.decks[p] = [*bottom, *pool] if bottom else pool  # exactly ``deck`` cards, top last
        return s


def sample_state(v: View, rng: random.Random, rules: Rules = DEFAULT_RULES) -> GameState:
    """A complete state consistent with everything ``v`` shows its viewer.

    The unseen cards of each player (``aton.views.unseen_cards``) are dealt at random
    over that player's hidden hand, face-down cartouches, unseen discards and deck (above
    the war cards known at its bottom).
    The rules are not part of a view: pass the table's ``rules`` if they differ from
    the defaults.  When the view's decision belongs to the opponent, the number of
    stones it still has to move is not in the view; the sample assumes it has moved
    none yet.
    """
    return Sampler(v, rules).sample(rng)
