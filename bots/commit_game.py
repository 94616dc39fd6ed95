"""The simultaneous commit solved as a game: a mixed strategy by regret matching.

At the commit both players put their four cards down at once, so there is no best reply to
compute: a commitment that is best against what the opponent usually does can be read and
punished.  Like Goofspiel-like card games, the commit is better treated as a small matrix game
and answered with a *mixed* strategy.  This module finds one by regret matching (RM+, with
linearly weighted averaging) over sampled determinizations:

- **My actions**: the distinct assignments of my hand, and the exchange while it is on offer.
- **The opponent's actions**: its hand differs from one determinization to the next, so its
  actions are the 24 *orders* of its hand — which of its cards, from the lowest to the
  highest, goes on which cartouche.  "Lowest card on cartouche 2, highest on cartouche 4"
  means the same plan whatever four cards it holds.
- **One iteration** deals a determinization (``aton.sampling``: every unseen card at random),
  draws one action of each player from their current strategies, and plays out (to the end
  of the round and further, with the cheap policy of ``bots.strategies.mcts``)
  every action of mine against the opponent's drawn one and every order of the opponent's
  against my drawn one.  Each player's regrets then grow by how much better each action did
  than their current strategy (external sampling).
- The answer is the **average** strategy of mine over the iterations, which converges to an
  equilibrium of the sampled game; actions below ``floor`` of probability are dropped as noise
  of the sampling (purification) before one is drawn.

Deterministic for a given ``rng`` and iteration count; with a time budget the number of
iterations follows the machine.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aton.game import GameState
from aton.moves import EXCHANGE, Commit, Move
from aton.options import DEFAULT_RULES, Rules
from aton.sampling import Sampler
from aton.views import View

from .evaluation import commit_candidates, commit_of, win_probability
from .strategy import decision_of, player_of

#: Plays a state on from both players' commits; the result for the deciding player (0 … 1).
PlayOut = Callable[[GameState], float]
#: The deciding player's commit after an exchange, in the state that follows it.
CommitAfterExchange = Callable[[GameState], Commit]

__all__ = ["OPPONENT_ORDERS", "CommitMix", "solve_commit"]

OPPONENT_ORDERS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(4)))
"""The opponent's actions: for cartouches 1-4, the rank (0 lowest … 3 highest) of the card it puts there."""

FLOOR = 0.03
"""Actions the average strategy plays less often than this are dropped before drawing."""


@dataclass(frozen=True)
class CommitMix:
    """A mixed strategy at a commit: ``moves[i]`` is played with ``probabilities[i]``."""

    moves: tuple[Move, ...]
    probabilities: tuple[float, ...]
    iterations: int
    evaluations: int  # play-outs spent

    def draw(self, rng: random.Random, floor: float = FLOOR) -> Move:
        """One move drawn from the strategy, its rarest actions (below ``floor``) left out."""
        kept = [p if p >= floor else 0.0 for p in self.probabilities]
        if not any(kept):  # cannot happen with a floor at or below 1/len(moves); be safe
            kept = list(self.probabilities)
        return rng.choices(self.moves, weights=kept)[0]


def _order_commit(hand: Sequence[int], order: tuple[int, ...]) -> Commit:
    ranked = sorted(hand)
    return commit_of((ranked[order[0]], ranked[order[1]], ranked[order[2]], ranked[order[3]]))


def _regret_matching(regrets: list[float]) -> list[float]:
    positive = sum(regrets)  # RM+ keeps regrets at or above zero
    if positive <= 0.0:
        return [1.0 / len(regrets)] * len(regrets)
    return [r / positive for r in regrets]


def _draw(strategy: list[float], rng: random.Random) -> int:
    x = rng.random()
    for i, p in enumerate(strategy):
        x -= p
        if x < 0.0:
            return i
    return len(strategy) - 1


def _update(regrets: list[float], values: list[float], strategy: list[float]) -> None:
    expected = sum(p * v for p, v in zip(strategy, values, strict=True))
    for i, v in enumerate(values):
        regrets[i] = max(0.0, regrets[i] + v - expected)


def solve_commit(
    view: View,
    rng: random.Random,
    *,
    play_out: PlayOut,
    commit_after_exchange: CommitAfterExchange,
    evaluations: int | None = None,
    deadline: float = 0.0,
    clock: Callable[[], float] | None = None,
    rules: Rules = DEFAULT_RULES,
) -> CommitMix:
    """The mixed strategy of the commit (or exchange) decision in ``view``, with the search's
    cheap policy (``play_out``, ``commit_after_exchange``) judging each pair of actions.

    Runs until ``evaluations`` play-outs are spent (comparable with the halving search's
    budget; an iteration spends one per action of mine and 24), or until ``clock()`` passes
    ``deadline`` — at least one iteration."""
    me = player_of(view)
    opp = me.other
    decision = decision_of(view)
    moves = commit_candidates(decision.hand, decision.can_exchange)
    if len(moves) == 1:
        return CommitMix(tuple(moves), (1.0,), 0, 0)
    sampler = Sampler(view, rules)
    my_regrets = [0.0] * len(moves)
    their_regrets = [0.0] * len(OPPONENT_ORDERS)
    my_average = [0.0] * len(moves)

    def value(state: GameState, mine: Move, theirs: Commit | None) -> float:
        s = state.copy()
        if theirs is not None:
            s.play(opp, theirs)
        s.play(me, mine)
        if mine is EXCHANGE:
            s.play(me, commit_after_exchange(s))
        return play_out(s) if not s.is_over else win_probability(s, me)

    done = used = 0
    while True:
        state = sampler.sample(rng)
        mine = _regret_matching(my_regrets)
        if state.cartouches[opp] is not None:  # the opponent has committed: only I choose
            values = [value(state, move, None) for move in moves]
            used += len(values)
        else:
            theirs = _regret_matching(their_regrets)
            hand = state.hands[opp]
            their_pick = _order_commit(hand, OPPONENT_ORDERS[_draw(theirs, rng)])
            my_pick = moves[_draw(mine, rng)]
            values = [value(state, move, their_pick) for move in moves]
            their_values = [1.0 - value(state, my_pick, _order_commit(hand, order)) for order in OPPONENT_ORDERS]
            _update(their_regrets, their_values, theirs)
            used += len(values) + len(their_values)
        _update(my_regrets, values, mine)
        done += 1
        for i, p in enumerate(mine):  # linear averaging: later, better strategies weigh more
            my_average[i] += done * p
        if used >= evaluations if evaluations is not None else clock is None or clock() >= deadline:
            break
    total = sum(my_average)
    return CommitMix(tuple(moves), tuple(p / total for p in my_average), done, used)
