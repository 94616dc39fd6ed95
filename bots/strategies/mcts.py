"""``mcts``: determinized Monte-Carlo search for simultaneous moves with hidden cards.

The bot knows only its view.  A decision is searched by *sequential halving* over
its candidates; every evaluation of a candidate

1. **samples a state** consistent with the view (``aton.sampling``): the opponent's
   hand, face-down cartouches, unseen discards and deck, and the bot's own deck
   order, dealt at random from the cards the view has not shown (a determinization
   of the information set);
2. **plays the candidate** in it — at a commit, one of the bot's assignments or the
   exchange, against an opponent commit drawn for that sample (``opp_model``: by
   default uniformly from the opponent's sampled hand, which measured stronger than
   modelling it by the cheap policy: a commit is simultaneous and a robust choice
   beats one fitted to a guess); at a removal or placement, one of the *square
   classes* (squares of one temple and colour are interchangeable: at most 20) or, with
   ``plan=2``, a plan of the turn's next two stones (``plan_arms``);
3. **plays out** the rest of the round and ``depth`` further rounds (``commit_depth``
   at a commit) with a cheap policy: squares by the heuristic of
   ``bots.evaluation``, commits by ``quick_commit`` (a linear score of each
   assignment with noise);
4. **evaluates** the position reached with the heuristic as a win probability (a
   finished game counts 1, 0 or 0.5).

Sequential halving: every phase evaluates all remaining candidates on the same fresh
samples (so they are compared on equal terms) and keeps the better half; the phases
share the budget.  The search stops after ``budget_ms`` milliseconds (default 500,
counted from the moment the bot is asked), or after ``iterations`` evaluations when
that is given — then the search is reproducible for a given seed on any machine.
Policy values are remembered per board within one search; that is what lets a few
hundred to a few thousand playouts fit in 100 ms.

A decision's candidates and their evaluator (``commit_arms``, ``square_arms``) and the
halving over them (``sequential_halving``) are functions of their own, shared with the
post-game analysis (``bots.analysis``), which values the candidates from a player's view.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from aton.board import RANGE_MASK, mask_of, square_set
from aton.game import COMMIT, OVER, PLACE, REMOVE, GameState
from aton.moves import EXCHANGE, Commit, Exchange, Move, Place, Remove, place_move, remove_move
from aton.options import DEFAULT_RULES, Rules
from aton.players import PLAYERS, Player
from aton.sampling import Sampler
from aton.views import View

from .. import evaluation
from ..commit_game import CommitMix, solve_commit
from ..evaluation import (
    CLASS_MASKS,
    class_deltas,
    commit_candidates,
    commit_of,
    commit_options,
    evaluate,
    lowest_square,
    play_out_turns,
    win_probability,
)
from ..strategy import Strategy, decision_of, player_of, register

_NEG = -1e9

#: How the search guesses the opponent's commit (see the module doc and ``commit_arms``).
OPPONENT_MODELS = ("quick", "lookahead", "random", "mix")
#: The search's defaults: rounds played out after the current one at a square decision and at
#: a commit, the opponent's commit, and the noise of the cheap commit policy.
DEPTH = 1
COMMIT_DEPTH = 0
OPP_MODEL = "random"
OPP_NOISE = 2.0
#: How many of a turn's own decisions a removal or placement searches together (1: the stone at
#: hand, its followers by the rollout's heuristic; 2: every class of it with the ``PLAN_WIDTH``
#: classes the heuristic ranks best for the next stone), see ``plan_arms``.
PLAN = 1
PLANS = (1, 2)
PLAN_WIDTH = 3
#: How the commit is searched: sequential halving for the best assignment against a guessed
#: opponent commit, or the commit solved as a matrix game for a mixed strategy (``bots.commit_game``).
COMMIT_SEARCHES = ("halving", "regret")

#: An assignment of a hand to cartouches 1-4.
Cards = tuple[int, int, int, int]
#: One assignment's cards and its engine move.
Option = tuple[int, int, int, int, Commit]
#: For ranges 1-4: the best placement, the best removal of an opponent's stone, the least bad
#: removal of one's own.
RangeValues = tuple[list[float], list[float], list[float]]


def _best_per_range(deltas: list[float], mask: int, sign: float) -> list[float]:
    """best[r] (r = 1..4): the best ``sign * delta`` of a class with a square of ``mask`` in
    temples 1..r (0.0 when there is none)."""
    best = [0.0, _NEG, _NEG, _NEG, _NEG]
    running = _NEG
    for t in range(4):
        base = 5 * t
        for c in range(base, base + 5):
            if mask & CLASS_MASKS[c]:
                v = sign * deltas[c]
                if v > running:
                    running = v
        best[t + 1] = running
    return [0.0 if v == _NEG else v for v in best]


C1_WIN = 60.0  # the worth of ending the game by cartouche 1, in points
_C1_CACHE: dict[tuple[int, int], tuple[float, ...]] = {}


def _c1_values(mine: int, theirs: int) -> tuple[float, ...]:
    """value[c] of putting card c on cartouche 1 against a card uniform over 1-4: its
    points or, where the difference reaches 40, the game."""
    key = (min(mine, 40), min(theirs, 40))
    found = _C1_CACHE.get(key)
    if found is None:
        values = [0.0]
        for c in range(1, 5):
            total = 0.0
            for o in range(1, 5):
                if c > o and mine + 2 * (c - o) >= 40:
                    total += C1_WIN
                elif o > c and theirs + 2 * (o - c) >= 40:
                    total -= C1_WIN
                else:
                    total += 2.0 * (c - o)
            values.append(total / 4)
        found = _C1_CACHE[key] = tuple(values)
    return found


_RANGE_CACHE: dict[tuple[int, int, bool], RangeValues] = {}
_RANKED_CACHE: dict[tuple[int, int, bool, tuple[int, ...], int, int, int], tuple[tuple[float, Commit], ...]] = {}


def _ranges(own: int, opp: int, removal_round: bool) -> RangeValues:
    """Per range 1-4: the best placement value, the best removal of an opponent's stone
    and the least bad removal of one's own (remembered per board)."""
    key = (own, opp, removal_round)
    found = _RANGE_CACHE.get(key)
    if found is None:
        if len(_RANGE_CACHE) > 50_000:
            _RANGE_CACHE.clear()
        free = ~(own | opp) & RANGE_MASK[4]
        place = _best_per_range(class_deltas(own, opp, 1), free, 1.0)
        if removal_round:
            take = _best_per_range(class_deltas(opp, own, -1), opp, -1.0)
            lose = _best_per_range(class_deltas(own, opp, -1), own, 1.0)
        else:
            take = lose = place
        found = _RANGE_CACHE[key] = (place, take, lose)
    return found


def ranked_commits(state: GameState, player: Player) -> tuple[tuple[float, Commit], ...]:
    """The assignments of ``player``'s hand with their quick score, best first:
    C1's expected points (or the game, near 40), C4's stones times the best square
    value within C3's range, C2's removals times the best removal value."""
    other = player.other
    own, opp = state.stones[player], state.stones[other]
    removal_round = state.round > 1
    hand = state.hands[player]
    mine, theirs = state.scores[player], state.scores[other]
    supply = min(state.supply[player], 4)
    key = (own, opp, removal_round, hand, mine, theirs, supply)
    found = _RANKED_CACHE.get(key)
    if found is not None:
        return found
    place, take, lose = _ranges(own, opp, removal_round)
    c1_value = _c1_values(mine, theirs)
    if removal_round:
        # C2 brings 2 or 1 removals of opponent stones, nothing, or the loss of one's own
        scored = [
            (c1_value[c1] + (c4 if c4 < supply else supply) * place[c3]
             + (lose[c3] if c2 == 1 else (c2 - 2) * take[c3] if c2 >= 3 else 0.0), move)
            for c1, c2, c3, c4, move in _options(hand)
        ]
    else:
        scored = [
            (c1_value[c1] + (c4 if c4 < supply else supply) * place[c3], move)
            for c1, c2, c3, c4, move in _options(hand)
        ]
    scored.sort(key=_first, reverse=True)
    if len(_RANKED_CACHE) > 20_000:
        _RANKED_CACHE.clear()
    found = _RANKED_CACHE[key] = tuple(scored)
    return found


def _first(item: tuple[float, Commit]) -> float:
    return item[0]


_OPTIONS_CACHE: dict[tuple[int, ...], tuple[Option, ...]] = {}


def _options(hand: tuple[int, ...]) -> tuple[Option, ...]:
    """(c1, c2, c3, c4, Commit) for every assignment of the hand (remembered per hand)."""
    found = _OPTIONS_CACHE.get(hand)
    if found is None:
        found = _OPTIONS_CACHE[hand] = tuple((*cards, commit_of(cards)) for cards in commit_options(hand))
    return found


def clear_caches() -> None:
    """Forget the remembered policy values (they are per board: a new search starts afresh)."""
    _RANGE_CACHE.clear()
    _RANKED_CACHE.clear()
    evaluation.clear_caches()


def quick_commit(state: GameState, player: Player, rng: random.Random, noise: float = 2.0) -> Commit:
    """The rollout policy's assignment: the best quick score plus uniform noise in
    [0, ``noise``) (only the options within ``noise`` of the best can win)."""
    ranked = ranked_commits(state, player)
    top, best = ranked[0]
    if noise <= 0.0 or len(ranked) == 1:
        return best
    floor = top - noise
    uniform = rng.random
    best_value = top + noise * uniform()
    for v, move in ranked[1:]:
        if v <= floor:
            break
        v += noise * uniform()
        if v > best_value:
            best, best_value = move, v
    return best


def lookahead_commit(state: GameState, player: Player, rng: random.Random, noise: float = 2.0) -> Commit:
    """A better (and dearer) guess at a player's commit: each assignment played through
    the round against the other player's quick commit, the result evaluated (one ply,
    as ``greedy`` does on a single sample), plus noise."""
    other = player.other
    reply = None
    if state.cartouches[other] is None:
        reply = quick_commit(state, other, rng, noise)
    uniform = rng.random
    options = _options(state.hands[player])
    best, best_value = options[0][4], _NEG
    for option in options:
        move = option[4]
        s = state.copy()
        s.play(player, move)
        if reply is not None:
            s.play(other, reply)
        play_out_turns(s)
        v = evaluate(s, player) + noise * uniform()
        if v > best_value:
            best, best_value = move, v
    return best


def rollout(state: GameState, me: Player, rounds: int, rng: random.Random) -> float:
    """Play the current round to its end and ``rounds`` more with the cheap policy;
    the result for ``me`` as a win probability."""
    target_round = state.round + rounds
    while True:
        play_out_turns(state)
        if state.phase is not COMMIT or state.round > target_round:  # over, or far enough
            break
        for p in PLAYERS:
            if state.cartouches[p] is None and state.phase is COMMIT:
                state.play(p, quick_commit(state, p, rng))
    return win_probability(state, me)


#: Adds to ``totals[a]`` the value of each arm ``a`` of ``arms`` on one fresh sample.
ArmsEvaluator = Callable[[list[int], list[float]], None]


@dataclass(frozen=True)
class Arms:
    """One decision's options as the search compares them: an engine move per arm, and the
    evaluator that plays a sample of arms on one fresh determinization.

    A square decision has an arm per *class* of interchangeable squares (``masks``: the
    legal squares each arm stands for; its move is the class's lowest one).  A commit has
    an arm per distinct assignment of the hand, and one for the exchange when it is on offer.
    """

    moves: tuple[Move, ...]
    evaluate: ArmsEvaluator
    masks: tuple[int, ...] = ()

    def arm_of(self, move: Move) -> int | None:
        """The arm that ``move`` stands for (None: no arm, e.g. a resignation)."""
        if self.masks:
            if isinstance(move, (Place, Remove)) and move.index >= 0:
                bit = 1 << move.index
                return next((a for a, mask in enumerate(self.masks) if mask & bit), None)
            return None
        return self.moves.index(move) if move in self.moves else None


def commit_arms(
    view: View,
    rng: random.Random,
    *,
    depth: int = COMMIT_DEPTH,
    opp_model: str = OPP_MODEL,
    opp_noise: float = OPP_NOISE,
    rules: Rules = DEFAULT_RULES,
) -> Arms:
    """The arms of the commit (or exchange) decision in ``view``: each assignment, and the
    exchange while it is on offer, played against an opponent commit drawn per sample
    (``opp_model``), then rolled out for ``depth`` more rounds.  ``rng`` drives the samples."""
    me = player_of(view)
    opp = me.other
    decision = decision_of(view)
    moves = commit_candidates(decision.hand, decision.can_exchange)
    if len(moves) == 1:
        return Arms(tuple(moves), _nothing_to_compare)
    clear_caches()
    sampler = Sampler(view, rules)

    def evaluate_arms(arms: list[int], totals: list[float]) -> None:
        state = sampler.sample(rng)
        if state.cartouches[opp] is None:
            if opp_model == "lookahead":
                state.play(opp, lookahead_commit(state, opp, rng, opp_noise))
            elif opp_model == "random" or (opp_model == "mix" and rng.random() < 0.5):
                opp_options = _options(state.hands[opp])
                state.play(opp, opp_options[int(rng.random() * len(opp_options))][4])
            else:
                state.play(opp, quick_commit(state, opp, rng, opp_noise))
        for a in arms:
            s = state.copy()
            move = moves[a]
            s.play(me, move)
            if move is EXCHANGE:
                s.play(me, quick_commit(s, me, rng, noise=0.0))
            totals[a] += rollout(s, me, depth, rng)

    return Arms(tuple(moves), evaluate_arms)


def square_arms(view: View, rng: random.Random, *, depth: int = DEPTH, rules: Rules = DEFAULT_RULES) -> Arms:
    """The arms of the removal or placement decision in ``view``: one per class of legal
    squares, each played on the sample and rolled out to the end of the round and ``depth``
    more.  ``rng`` drives the samples."""
    me = player_of(view)
    decision = decision_of(view)
    legal = mask_of(decision.squares)
    masks = tuple(legal & mask for mask in CLASS_MASKS if legal & mask)
    make = place_move if decision.kind == "place" else remove_move
    moves = tuple(make(lowest_square(mask)) for mask in masks)
    if len(masks) == 1:
        return Arms(moves, _nothing_to_compare, masks)
    clear_caches()
    sampler = Sampler(view, rules)

    def evaluate_arms(arms: list[int], totals: list[float]) -> None:
        state = sampler.sample(rng)
        for a in arms:
            s = state.copy()
            s.play(me, moves[a])
            totals[a] += rollout(s, me, depth, rng) if s.phase is not OVER else win_probability(s, me)

    return Arms(moves, evaluate_arms, masks)


def plan_arms(view: View, rng: random.Random, *, depth: int = DEPTH, width: int = PLAN_WIDTH,
              rules: Rules = DEFAULT_RULES) -> Arms:
    """The arms of the removal or placement decision in ``view``, looking one of its player's own
    decisions further: each class of legal squares, followed — when the same turn goes on with
    another stone to remove or place — by each of the ``width`` classes the heuristic ranks best
    for that stone.  The turn is its player's alone and the board is public, so the plans are
    the same in every sample; each is played on the sample and rolled out as ``square_arms``
    does.  An arm's move and mask are its first stone's: the best plan's first stone is played,
    and the next decision is searched afresh."""
    me = player_of(view)
    decision = decision_of(view)
    legal = mask_of(decision.squares)
    first_masks = tuple(legal & mask for mask in CLASS_MASKS if legal & mask)
    make = place_move if decision.kind == "place" else remove_move
    if len(first_masks) == 1:
        return Arms((make(lowest_square(first_masks[0])),), _nothing_to_compare, first_masks)
    clear_caches()
    sampler = Sampler(view, rules)
    board = sampler.sample(rng)  # for the board and the turn, which every sample shares
    plans: list[tuple[Move, Move | None]] = []
    masks: list[int] = []
    for mask in first_masks:
        first = make(lowest_square(mask))
        after = board.copy()
        after.play(me, first)
        followers: list[Move | None] = [*_best_next_stones(after, me, width)] or [None]
        plans.extend((first, second) for second in followers)
        masks.extend(mask for _ in followers)

    def evaluate_arms(arms: list[int], totals: list[float]) -> None:
        state = sampler.sample(rng)
        for a in arms:
            s = state.copy()
            first, second = plans[a]
            s.play(me, first)
            if second is not None:
                s.play(me, second)
            totals[a] += rollout(s, me, depth, rng) if s.phase is not OVER else win_probability(s, me)

    return Arms(tuple(first for first, _ in plans), evaluate_arms, tuple(masks))


def _best_next_stones(state: GameState, me: Player, width: int) -> list[Move]:
    """The ``width`` moves the heuristic ranks best for ``me``'s next stone of the same turn, one
    per class (none when the turn, or the game, is over)."""
    if state.active is not me or state.phase not in (REMOVE, PLACE):
        return []
    legal = state.legal_mask()
    make: Callable[[int], Move]
    if state.phase is PLACE:
        side, step, sign, make = me, 1, 1.0, place_move
    else:  # whose stones go: one's own are lost (least bad first), the opponent's taken (best first)
        side, step, sign, make = state.target, -1, 1.0 if state.target is me else -1.0, remove_move
    deltas = class_deltas(state.stones[side], state.stones[side.other], step)
    ranked = sorted((c for c in range(len(CLASS_MASKS)) if legal & CLASS_MASKS[c]), key=lambda c: -sign * deltas[c])
    return [make(lowest_square(legal & CLASS_MASKS[c])) for c in ranked[:width]]


def _nothing_to_compare(arms: list[int], totals: list[float]) -> None:
    raise AssertionError("a decision with one option is not searched")


@dataclass(frozen=True)
class Budget:
    """How long one search runs: ``iterations`` evaluations of an arm (reproducible for a
    seed on any machine), else until ``clock()`` (seconds) passes ``start + seconds``."""

    iterations: int | None = None
    start: float = 0.0
    seconds: float = 0.0
    clock: Callable[[], float] = time.perf_counter


@dataclass(frozen=True)
class Halving:
    """The outcome of sequential halving: the best arm, and per arm the sum of its values
    and the number of samples it was evaluated on (the arms dropped early have fewer)."""

    best: int
    totals: tuple[float, ...]
    counts: tuple[int, ...]
    used: int  # evaluations, all arms together


@contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector off for a search: it makes no cycles, collections would only cost time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def sequential_halving(n: int, evaluate_arms: ArmsEvaluator, budget: Budget) -> Halving:
    """Sequential halving over ``n`` arms: each phase evaluates every remaining arm on the
    same fresh samples, then keeps the better half; the phases share the budget."""
    with gc_paused():
        return _halving_loop(n, evaluate_arms, budget)


def _halving_loop(n: int, evaluate_arms: ArmsEvaluator, budget: Budget) -> Halving:
    arms = list(range(n))
    totals = [0.0] * n
    counts = [0] * n
    phases = max(1, math.ceil(math.log2(n)))
    used = 0
    clock = None if budget.iterations is not None else budget.clock
    for phase in range(phases):
        if clock is None:
            assert budget.iterations is not None
            share = (budget.iterations - used) // (phases - phase)
            rounds = max(1, share // len(arms))
            for _ in range(rounds):
                evaluate_arms(arms, totals)
            used += rounds * len(arms)
            for a in arms:
                counts[a] += rounds
        else:
            phase_end = budget.start + budget.seconds * (phase + 1) / phases
            rounds = 0
            while True:
                evaluate_arms(arms, totals)
                rounds += 1
                used += len(arms)
                if clock() >= phase_end:
                    break
            for a in arms:
                counts[a] += rounds
        if len(arms) <= 1:
            break
        arms.sort(key=lambda a: totals[a] / counts[a], reverse=True)
        arms = arms[: max(1, (len(arms) + 1) // 2)]
    return Halving(arms[0], tuple(totals), tuple(counts), used)


@register("mcts")
class MCTSStrategy(Strategy):
    """Determinized Monte-Carlo search with sequential halving (see the module doc)."""

    def __init__(
        self,
        seed: int | None = None,
        budget_ms: float = 500,
        iterations: int | None = None,
        depth: int = DEPTH,
        opp_noise: float = OPP_NOISE,
        opp_model: str = OPP_MODEL,
        commit_depth: int | None = COMMIT_DEPTH,
        commit_search: str = "halving",
        plan: int = PLAN,
        plan_width: int = PLAN_WIDTH,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``clock`` (seconds) measures ``budget_ms``; a test may pass its own."""
        super().__init__(seed)
        self.budget_ms = budget_ms
        self.clock = clock
        self.iterations = iterations
        self.depth = depth
        self.opp_noise = opp_noise
        if opp_model not in OPPONENT_MODELS:
            raise ValueError(f"opp_model must be one of {', '.join(OPPONENT_MODELS)}, got {opp_model!r}")
        self.commit_depth = depth if commit_depth is None else commit_depth
        self.opp_model = opp_model
        if commit_search not in COMMIT_SEARCHES:
            raise ValueError(f"commit_search must be one of {', '.join(COMMIT_SEARCHES)}, got {commit_search!r}")
        self.commit_search = commit_search
        if plan not in PLANS or plan_width < 1:
            raise ValueError(f"plan must be one of {', '.join(map(str, PLANS))} and plan_width at least 1, "
                             f"got {plan!r} and {plan_width!r}")
        self.plan, self.plan_width = plan, plan_width
        self.last_mix: CommitMix | None = None
        self._cached: tuple[View, Cards] | None = None
        self._started = 0.0
        self.last_iterations = 0

    # -- commits

    def _search_commit(self, view: View) -> Cards | Exchange:
        """The root option: an assignment (tuple) or EXCHANGE."""
        if self.commit_search == "regret":
            move = self._mixed_commit(view)
        else:
            arms = commit_arms(view, self.rng, depth=self.commit_depth, opp_model=self.opp_model,
                               opp_noise=self.opp_noise)
            move = arms.moves[self._best(arms)]
        return move if isinstance(move, Exchange) else _cards(move)

    def _mixed_commit(self, view: View) -> Move:
        """A move drawn from the commit's mixed strategy (``bots.commit_game``)."""
        me, rng, depth = player_of(view), self.rng, self.commit_depth
        clear_caches()
        with gc_paused():
            mix = solve_commit(
                view, rng,
                play_out=lambda state: rollout(state, me, depth, rng),
                commit_after_exchange=lambda state: quick_commit(state, me, rng, noise=0.0),
                evaluations=self.iterations,
                deadline=self._started + self.budget_ms / 1000.0 * 0.97, clock=self.clock,
            )
        self.last_mix = mix
        self.last_iterations = mix.evaluations
        return mix.draw(rng)

    def _best(self, arms: Arms) -> int:
        """The arm the search picks (the only one, without searching, when there is one)."""
        if len(arms.moves) == 1:
            return 0
        if self.iterations is not None:
            budget = Budget(self.iterations)
        else:  # counted from when the strategy was asked, set-up included
            budget = Budget(None, self._started, self.budget_ms / 1000.0 * 0.97, self.clock)
        found = sequential_halving(len(arms.moves), arms.evaluate, budget)
        self.last_iterations = found.used
        return found.best

    def exchange(self, view: View) -> bool:
        self._started = self.clock()
        choice = self._search_commit(view)
        if isinstance(choice, Exchange):
            self._cached = None
            return True
        self._cached = (view, choice)
        return False

    def commit(self, view: View) -> tuple[int, int, int, int]:
        cached = self._cached
        self._cached = None
        if cached is not None and cached[0] == view:
            return cached[1]  # searched already when asked about the exchange
        self._started = self.clock()
        choice = self._search_commit(_without_exchange(view))
        assert not isinstance(choice, Exchange), "the exchange is no longer on offer"
        return choice

    # -- squares

    def _search_square(self, view: View) -> tuple[int, int]:
        if self.plan == 2:
            arms = plan_arms(view, self.rng, depth=self.depth, width=self.plan_width)
        else:
            arms = square_arms(view, self.rng, depth=self.depth)
        return self.rng.choice(square_set(arms.masks[self._best(arms)]))

    def place(self, view: View) -> tuple[int, int]:
        self._started = self.clock()
        return self._search_square(view)

    def remove(self, view: View) -> tuple[int, int]:
        self._started = self.clock()
        return self._search_square(view)


def _cards(move: Move) -> Cards:
    """The assignment of a commit arm's move."""
    assert isinstance(move, Commit), "a commit arm is a Commit or the exchange"
    return move.cards


def _without_exchange(view: View) -> View:
    """The same view with the exchange no longer on offer (asked and declined)."""
    decision = view.decision
    if decision is None or not decision.can_exchange:
        return view
    return replace(view, decision=replace(decision, can_exchange=False))
