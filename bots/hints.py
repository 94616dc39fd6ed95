"""Hints: the search bot's suggestion for a player's decision, with one line of why.

``hint(view, seed=..., iterations=...)`` asks the search bot (``mcts`` with a fixed number
of evaluations, so that a view and a seed give the same hint on any machine) for its move
and for the option it ranked next (the last one it dropped).  Then it compares the
position each of the two leads to on the terms of the evaluation
(``bots.evaluation.evaluation_terms``: the points, each scoring category's majority, the
bonus squares, each area's threat for either side, the race to 40) and names the term in
which the suggested move is furthest ahead, in a player's words: "temple 2 majority:
yours by 1 (even after a black square in temple 3)".

The positions compared:

- a **removal or a placement**: the board right after the stone is removed or placed
  (the board is public: nothing is guessed);
- **four cards** (or the exchange): the position at the end of the round, on average over
  ``samples`` deals of the cards the player has not seen, in which the opponent lays a
  random assignment of their dealt hand and both sides play the round's stones with the
  heuristic of ``bots.evaluation`` (as the search's own playouts do).

When the evaluation does not tell the two apart (two squares alike, say), the line gives
the search's own figures instead: how often each led to a win in its playouts.

Pure and deterministic for a fixed seed: only the player's view is used, so the hint is
what the player could have worked out, and no hidden card of the opponent reaches it.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from aton.board import LAYOUT, square_set
from aton.game import GameState
from aton.moves import Commit, Exchange, Move, Place, Remove, move_from_dict
from aton.outcome import Termination
from aton.players import Player
from aton.sampling import Sampler
from aton.views import View

from .evaluation import AREAS, CATEGORIES, commit_of, commit_options, evaluation_terms, play_out_turns, stone_counts
from .strategies.mcts import Arms, Budget, Halving, commit_arms, quick_commit, sequential_halving, square_arms
from .strategy import decision_of, player_of

#: Evaluations of the search behind a hint: fixed (not a time), so that a hint can be
#: checked; about 0.1–0.7 s on one core of the machines this was measured on.
HINT_ITERATIONS = 500
#: Deals of the unseen cards over which two commitments' rounds are compared.
HINT_SAMPLES = 16
#: A difference of the evaluation below this (in points) does not explain a choice.
NOTICEABLE = 0.05


@dataclass(frozen=True)
class Hint:
    """A suggested move and why.  ``reason`` is one line; ``headline`` the same without the
    comparison in brackets (for a narrow screen); ``term`` the evaluation's term named
    (None: the decision had one kind of option, or the evaluation could not tell the two
    best apart and the search's own figures are given)."""

    move: Move
    reason: str
    headline: str
    term: str | None = None
    alternative: Move | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move.to_dict(), "reason": self.reason, "headline": self.headline, "term": self.term,
                "alternative": None if self.alternative is None else self.alternative.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hint:
        alternative = data.get("alternative")
        return cls(move_from_dict(data["move"]), str(data["reason"]), str(data["headline"]), data.get("term"),
                   None if alternative is None else move_from_dict(alternative))


def hint(view: View, *, seed: int, iterations: int = HINT_ITERATIONS, samples: int = HINT_SAMPLES) -> Hint:
    """The search bot's move for the decision in ``view`` (a player's own view) and why."""
    me = player_of(view)
    rng = random.Random(seed)
    squares = decision_of(view).kind != "commit"
    arms = square_arms(view, rng) if squares else commit_arms(view, rng)
    if len(arms.moves) == 1:
        return _only_choice(view, _a_square_of(arms, 0, rng) if squares else arms.moves[0])
    found = sequential_halving(len(arms.moves), arms.evaluate, Budget(iterations))
    runner_up = _runner_up(found)
    alternative = arms.moves[runner_up]
    best_chance, alternative_chance = (found.totals[a] / found.counts[a] for a in (found.best, runner_up))
    move = best = _a_square_of(arms, found.best, rng) if squares else arms.moves[found.best]
    sampled = isinstance(move, (Commit, Exchange))
    count = samples if sampled else 1
    deals = [Sampler(view).sample(rng) for _ in range(count)]
    replies = [_random_commit(deal, me.other, rng) if sampled and deal.cartouches[me.other] is None else None
               for deal in deals]
    ours = _Summary.of([_after(deal, reply, me, best, rng) for deal, reply in zip(deals, replies, strict=True)], me)
    theirs = _Summary.of([_after(deal, reply, me, alternative, rng)
                          for deal, reply in zip(deals, replies, strict=True)], me)
    now = _Summary.of([deals[0]], me)
    words = _Words(me, move, alternative, sampled)
    gains = {term: ours.terms[term] - theirs.terms.get(term, 0.0) for term in ours.terms}
    term = max(gains, key=gains.__getitem__, default=None)
    if term is None or gains[term] < NOTICEABLE:
        line = (f"the search's playouts: {best_chance:.0%} to win, "
                f"{alternative_chance:.0%} {words.after}")
        return Hint(move, line, line.split(",")[0], None, alternative)
    headline, comparison = words.explain(term, ours, theirs, now)
    if sampled:  # the end of the round, over deals of the unseen cards
        reason, headline = f"{headline} ({comparison}), on average after the round", f"{headline}, on average"
    else:
        reason = f"{headline} ({comparison})"
    return Hint(move, reason, headline, term, alternative)


def _a_square_of(arms: Arms, arm: int, rng: random.Random) -> Move:
    """As the search bot plays a square decision: any square of the class ``arm`` stands for."""
    make = Place if isinstance(arms.moves[arm], Place) else Remove
    return make(*rng.choice(square_set(arms.masks[arm])))


def _runner_up(found: Halving) -> int:
    """The arm the search dropped last: of the arms in its last phase (evaluated most), the
    best but the winner."""
    last = max(found.counts)
    finalists = [a for a, count in enumerate(found.counts) if count == last and a != found.best]
    return max(finalists, key=lambda a: found.totals[a] / found.counts[a])


def _random_commit(state: GameState, player: Player, rng: random.Random) -> Commit:
    """One of ``player``'s assignments in ``state``, uniformly (as the search models the opponent)."""
    options = commit_options(state.hands[player])
    return commit_of(options[int(rng.random() * len(options))])


def _after(deal: GameState, reply: Commit | None, me: Player, move: Move, rng: random.Random) -> GameState:
    """The position ``move`` leads to in ``deal``: right after it for a square, at the end of the
    round for the cards (the opponent laying ``reply`` if they have not committed)."""
    state = deal.copy()
    if reply is not None:
        state.play(me.other, reply)
    state.play(me, move)
    if isinstance(move, Exchange):
        state.play(me, quick_commit(state, me, rng, noise=0.0))
    if isinstance(move, (Commit, Exchange)):
        play_out_turns(state)
    return state


def _only_choice(view: View, move: Move) -> Hint:
    """A decision whose options are all alike: any one does."""
    if isinstance(move, Commit):
        line = "these four cards can be laid in one way only"
    else:
        line = f"every square you may choose is {_square(move)}: any one does the same"
    return Hint(move, line, line)


@dataclass
class _Summary:
    """A position (or the average of several) in the terms of the evaluation, and the counts
    that a player reads them by."""

    terms: dict[str, float]
    stones: dict[str, tuple[float, float]]  # area or category -> (own stones, the opponent's)
    points: float  # own score minus the opponent's
    bonus: float  # own points on bonus squares minus the opponent's
    won: float  # the share of the positions that are a win for us
    lost: float
    termination: Termination | None = field(default=None)  # how the first position's game ended

    @classmethod
    def of(cls, states: list[GameState], me: Player) -> _Summary:
        n = len(states)
        terms: dict[str, float] = {}
        stones: dict[str, tuple[float, float]] = {}
        points = bonus = won = lost = 0.0
        for state in states:
            for term, value in evaluation_terms(state, me).items():
                terms[term] = terms.get(term, 0.0) + value / n
            counts = stone_counts(state.stones[me], state.stones[me.other])
            for name, (own, opp) in counts.items():
                was = stones.get(name, (0.0, 0.0))
                stones[name] = (was[0] + own / n, was[1] + opp / n)
            points += (state.scores[me] - state.scores[me.other]) / n
            outcome = state.outcome()
            if outcome is not None and outcome.winner is not None:
                won += (outcome.winner is me) / n
                lost += (outcome.winner is not me) / n
        first = states[0].outcome()
        bonus = stones["bonus points"][0] - stones["bonus points"][1]
        return cls(terms, stones, points, bonus, won, lost, first.termination if first else None)

    def lead(self, name: str) -> float:
        own, opp = self.stones[name]
        return own - opp


class _Words:
    """How a hint speaks of the moves and of the terms, for one player."""

    def __init__(self, me: Player, move: Move, alternative: Move, sampled: bool) -> None:
        self.me = me
        self.them = str(me.other).capitalize()
        self.move = move
        self.alternative = alternative
        self.sampled = sampled
        self.after = f"after {_describe(alternative)}" if not sampled else f"with {_describe(alternative)}"

    def number(self, x: float) -> str:
        return f"{x:.1f}" if self.sampled and abs(x - round(x)) > 0.05 else f"{round(x)}"

    def signed(self, x: float) -> str:
        text = self.number(x)
        return text if text.startswith("-") or text in ("0", "0.0") else "+" + text

    def lead(self, x: float) -> str:
        if abs(x) < 0.05:
            return "even"
        return f"yours by {self.number(x)}" if x > 0 else f"{self.them}'s by {self.number(-x)}"

    def explain(self, term: str, ours: _Summary, theirs: _Summary, now: _Summary) -> tuple[str, str]:
        """The words for ``term``: what our move makes of it, and what the alternative would."""
        after, them = self.after, self.them
        if term == "outcome":
            if not self.sampled and ours.won and ours.termination is not None:
                return f"wins the game at once ({_ENDS.get(ours.termination, 'it ends')})", f"not {after}"
            if ours.won or theirs.won:
                return f"wins the game this round in {ours.won:.0%} of deals", f"{theirs.won:.0%} {after}"
            return f"loses the game this round in {ours.lost:.0%} of deals", f"{theirs.lost:.0%} {after}"
        if term == "points":
            gained, other = ours.points - now.points, theirs.points - now.points
            if isinstance(self.move, Commit) and isinstance(self.alternative, Commit) \
                    and self.move.cards[0] != self.alternative.cards[0]:
                return (f"{self.move.cards[0]} on cartouche 1: {self.signed(gained)} points against {them}",
                        f"{self.signed(other)} {after}")
            return f"points: {self.signed(gained)} against {them}", f"{self.signed(other)} {after}"
        if term == "race":
            return "the race to 40 points by cartouche 1", f"worse {after}"
        if term == "bonus":
            return (f"bonus squares: {self.signed(ours.bonus)} points at a scoring",
                    f"{self.signed(theirs.bonus)} {after}")
        if term in CATEGORIES:
            name = CATEGORIES[term]
            if term == "temple 4" and abs(ours.lead("temple 4") - theirs.lead("temple 4")) < 0.05:
                own, other = ours.stones["blue"][0], theirs.stones["blue"][0]
                return (f"blue squares for the temple 4 majority: {self.number(own)} yours",
                        f"{self.number(other)} {after}")
            return f"{name} majority: {self.lead(ours.lead(term))}", f"{self.lead(theirs.lead(term))} {after}"
        side, area = term.split(" ", 1)
        size = AREAS[area]
        (n_ours, m_ours), (n_theirs, m_theirs) = ours.stones[area], theirs.stones[area]
        if side == "own":
            goal = f"filling {area}" if area.startswith("temple") else f"all {area} squares"
            if abs(n_ours - n_theirs) >= 0.05:
                return (f"closer to {goal}: {self.number(n_ours)} of {size} yours",
                        f"{self.number(n_theirs)} {after}")
            return (f"clears the way to {goal}: {self.number(m_ours)} of {them}'s stones in it",
                    f"{self.number(m_theirs)} {after}")
        goal = f"{them}'s {area}" if area.startswith("temple") else f"{them}'s {area} squares"
        if abs(m_ours - m_theirs) >= 0.05:
            return f"sets back {goal}: {self.number(m_ours)} of {size} theirs", f"{self.number(m_theirs)} {after}"
        return f"blocks {goal}: {self.number(n_ours)} of your stones in the way", f"{self.number(n_theirs)} {after}"


#: How a game won at once by a move ended, in words.
_ENDS = {
    Termination.TEMPLE: "a whole temple",
    Termination.YELLOW: "every yellow square",
    Termination.GREEN: "every green square",
    Termination.POINTS: "40 points",
    Termination.SCORING: "40 points at the scoring",
}


def _square(move: Move) -> str:
    """A square's kind and temple: "a black square in temple 3"."""
    assert isinstance(move, (Place, Remove)), "a square move"
    return f"a {LAYOUT[move.temple - 1][move.square]} square in temple {move.temple}"


def _describe(move: Move) -> str:
    """The alternative a hint compares with, in a few words: "an exchange", "3 1 4 2" (the
    cards on cartouches 1–4), "a black square in temple 3"."""
    if isinstance(move, Exchange):
        return "an exchange"
    if isinstance(move, Commit):
        return " ".join(map(str, move.cards))
    return _square(move)


def answer(request: BinaryIO, reply: BinaryIO) -> None:
    """One hint for a worker process: a JSON request ``{"view": a view's plain form, "seed",
    "iterations"}`` in, the hint's plain form (``Hint.to_dict``) out."""
    asked = json.loads(request.read())
    found = hint(View.from_dict(asked["view"]), seed=int(asked["seed"]), iterations=int(asked["iterations"]))
    reply.write(json.dumps(found.to_dict()).encode())


__all__ = ["HINT_ITERATIONS", "HINT_SAMPLES", "Hint", "answer", "hint"]


if __name__ == "__main__":  # python -m bots.hints: the client's worker process for one hint
    answer(sys.stdin.buffer, sys.stdout.buffer)
