"""``greedy``: one ply, every legal option scored with the heuristic of ``bots.evaluation``.

*Place / remove*: the square whose stone changes the board's value most (majorities
per scoring category with a smoothed sign, bonus squares, the area win conditions
and the opponent's threats against them) — gained for a placement, taken from the
opponent for a removal, lost least for the removal of one's own stone.

*Commit*: each assignment of the hand to the cartouches is played through the
round on a few states sampled from the view (the opponent's unknown hand dealt
from its unseen cards, and committed at random — it is not modelled as clever),
the removals and placements of both sides made by the square heuristic, and the
position after the round evaluated: this weighs C1's points against C2's turn
order and removals, C3's range and C4's stones in the actual position.  The same
samples serve every assignment, so they are compared on equal terms.

*Exchange*: when the best assignment of the hand is clearly worse than what the
best assignment of a fresh hand is expected to bring.

*Slips* (option ``slips``, 0 by default): the share of decisions played uniformly at
random instead, as ``random`` would. The server's ``easy`` level is greedy with slips: a
bot a beginner can beat that still punishes a careless game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from aton.board import mask_of, square_set
from aton.game import COMMIT, GameState
from aton.moves import EXCHANGE
from aton.players import Player
from aton.sampling import Sampler
from aton.views import View

from ..evaluation import CLASS_MASKS, best_class, class_deltas, commit_of, commit_options, evaluate, play_out_turns
from ..strategy import Strategy, decision_of, player_of, register
from .random import RandomStrategy


def pick_in_class(rng: random.Random, legal: int, cls: int) -> tuple[int, int]:
    """A random legal square of the class ``cls``."""
    return rng.choice(square_set(legal & CLASS_MASKS[cls]))


def round_values(samples: list[GameState], me: Player, options: Sequence[tuple[int, int, int, int]],
                 opp_choices: list[int]) -> list[float]:
    """For each of ``options`` (my assignments): the evaluation after the round, summed
    over the samples; in sample j the opponent (if still to commit) plays its
    ``opp_choices[j]``-th assignment (modulo their number)."""
    totals = [0.0] * len(options)
    opp = me.other
    for j, sample in enumerate(samples):
        opp_commit = None
        if sample.cartouches[opp] is None:
            opp_opts = commit_options(sample.hands[opp])
            opp_commit = commit_of(opp_opts[opp_choices[j] % len(opp_opts)])
        for i, cards in enumerate(options):
            s = sample.copy()
            if opp_commit is not None:
                s.play(opp, opp_commit)
            s.play(me, commit_of(cards))
            play_out_turns(s)
            totals[i] += evaluate(s, me)
    return totals


@register("greedy")
class GreedyStrategy(Strategy):
    """One ply: the legal option with the best heuristic value."""

    def __init__(self, seed: int | None = None, samples: int = 8, exchange_margin: float = 4.0,
                 slips: float = 0.0) -> None:
        super().__init__(seed)
        if not 0.0 <= slips <= 1.0:
            raise ValueError(f"slips is a share of the decisions, from 0 to 1, not {slips!r}")
        self.samples = samples
        self.exchange_margin = exchange_margin
        self.slips = slips
        self._random = RandomStrategy()
        self._random.rng = self.rng  # the slips draw from the bot's own stream: one seed, one game

    def _slips(self) -> bool:
        """Whether this decision is played at random (never drawn when ``slips`` is 0)."""
        return self.slips > 0.0 and self.rng.random() < self.slips

    # -- squares

    def place(self, view: View) -> tuple[int, int]:
        if self._slips():
            return self._random.place(view)
        me = player_of(view)
        legal = mask_of(decision_of(view).squares)
        deltas = class_deltas(view.stones[me], view.stones[me.other], 1)
        return pick_in_class(self.rng, legal, best_class(deltas, legal))

    def remove(self, view: View) -> tuple[int, int]:
        if self._slips():
            return self._random.remove(view)
        decision = decision_of(view)
        target = decision.owner
        assert target is not None, "a removal says whose stones"
        legal = mask_of(decision.squares)
        deltas = class_deltas(view.stones[target], view.stones[target.other], -1)
        return pick_in_class(self.rng, legal, best_class(deltas, legal, maximize=target is view.viewer))

    # -- cartouches

    def _samples(self, view: View) -> tuple[Player, list[GameState], list[int]]:
        me = player_of(view)
        sampler = Sampler(view)
        samples = [sampler.sample(self.rng) for _ in range(self.samples)]
        choices = [self.rng.randrange(24) for _ in samples]
        return me, samples, choices

    def _best(self, me: Player, samples: list[GameState], choices: list[int],
              hand: tuple[int, ...]) -> tuple[tuple[int, int, int, int], float]:
        options = commit_options(hand)
        totals = round_values(samples, me, options, choices)
        best = max(range(len(options)), key=totals.__getitem__)
        return options[best], totals[best] / len(samples)

    def commit(self, view: View) -> tuple[int, int, int, int]:
        if self._slips():
            return self._random.commit(view)
        me, samples, choices = self._samples(view)
        return self._best(me, samples, choices, decision_of(view).hand)[0]

    def exchange(self, view: View) -> bool:
        if self._slips():
            return self._random.exchange(view)
        hand = decision_of(view).hand
        if sum(hand) > 8:  # a fair hand is never worth the token
            return False
        me, samples, choices = self._samples(view)
        _, keep = self._best(me, samples, choices, hand)
        fresh = 0.0
        for j, sample in enumerate(samples):
            s = sample.copy()
            s.play(me, EXCHANGE)
            assert s.phase is COMMIT
            fresh += self._best(me, [s], choices[j:j + 1], s.hands[me])[1]
        return fresh / len(samples) > keep + self.exchange_margin
