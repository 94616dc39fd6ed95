"""Fair thinking time for the searching bots the server hosts.

A searching bot (Aton's ``hard`` level, Atlas & Zeus's ``normal`` and ``hard``) thinks in a
worker process.  The workers are few and the games many, so who thinks when, and for how
long, is decided here by three rules (the settings are ``server.config.HostedBotSettings``):

* **Games take turns.**  Each game has its own queue, and the games with a decision
  waiting take turns: a free worker takes the next decision of the game whose turn it
  is, and that game goes to the back.  A bot that asks again (it has a newer decision)
  withdraws the one it asked before, so a game holds one place per bot and a decision
  waits for at most one decision of each other game.
* **Budgets shrink with the round.**  A round gives one turn to every game waiting when
  it begins, and its searches share ``round_seconds`` per worker.  A search gets its
  level's budget, but no more than its share of the round, and no more than
  ``clock_share`` of the time its seat has left before the reserve: under load every
  bot plays a shorter search rather than some bots none at all.  A search that would
  get less than ``min_search_ms`` is not started: the light level answers at once.
* **The clock always wins.**  A decision still unanswered ``reserve_seconds`` before its
  seat's time runs out, waiting or thinking, is answered by the light level at once.

The light level is each game's own (``GameKind.light_level``: Aton's ``normal``, greedy),
the strongest that answers in milliseconds.  Levels that do not search answer at once,
without a queue (``GameKind.search_budget_ms`` says which search).  Time is the server's
``Clock``, the one its rooms' deadlines are on.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from protocol import messages as m

from .clock import Clock, Timer
from .config import HostedBotSettings
from .games import game_kind
from .games.aton import SEARCH_BUDGET_MS

log = logging.getLogger(__name__)

__all__ = ["SEARCH_BUDGET_MS", "BotScheduler", "Decision", "decide"]


def decide(level: str, seed: int, view_data: dict, budget_ms: float | None = None,
           game: str = m.DEFAULT_GAME) -> dict:
    """One decision of a ``level`` bot of the game ``game`` for a view; ``budget_ms`` replaces a
    search's own budget.

    Runs in a worker process for a search, inline otherwise.
    """
    return game_kind(game).bot_move(level, seed, view_data, budget_ms)


@dataclass(eq=False)
class Decision:
    """One decision a hosted bot asked for; ``answer`` gets the move (``decide``'s dict)."""

    game: int  # the queue it waits in
    level: str
    seed: int
    view: dict
    deadline: float | None  # on the server's clock, when its seat's time runs out; None: no clock
    answer: asyncio.Future = field(repr=False)
    asked_at: int = 0  # how many decisions had started when it was asked
    waited_behind: int | None = None  # decisions started between its asking and its own start
    budget_ms: float | None = None  # its search's budget once started; None: answered without a search
    timer: Timer | None = field(default=None, repr=False)  # the light level's turn, before the reserve
    kind: str = m.DEFAULT_GAME  # the game's kind (``server.games``)


#: runs a search: the decision and its budget in ms -> the move
Thinker = Callable[[Decision, float], Awaitable[dict]]


class WorkerPool:
    """Searches in worker processes, started on first use; the scheduler never gives it more
    decisions than it has workers, so none waits in the pool's own first-come queue."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def think(self, decision: Decision, budget_ms: float) -> Awaitable[dict]:
        try:
            return self._submit(decision, budget_ms)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start them again
            log.warning("a bot worker process died; starting new ones")
            self.close()
            return self._submit(decision, budget_ms)

    def _submit(self, decision: Decision, budget_ms: float) -> Awaitable[dict]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        return asyncio.get_running_loop().run_in_executor(
            self._pool, decide, decision.level, decision.seed, decision.view, budget_ms, decision.kind)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class BotScheduler:
    """Answers hosted bots' decisions: searches in turn between games, within their clocks."""

    def __init__(self, settings: HostedBotSettings, clock: Clock, think: Thinker | None = None) -> None:
        self.settings = settings
        self.workers = settings.worker_count()
        self._pool = WorkerPool(self.workers) if think is None else None
        self._think: Thinker = think or self._pool.think  # type: ignore[union-attr]
        self.clock = clock
        #: game -> its decisions waiting; the games in turn order
        self._queues: OrderedDict[int, deque[Decision]] = OrderedDict()
        self._waiting = 0
        self._turns_left = 0  # games still to have their turn in the current round
        self._round_share_ms = 0.0  # the search budget per decision in the current round
        self._thinking: set[Decision] = set()  # searches holding a worker (answered already or not)
        self.started = 0  # decisions started so far, searched or light
        self._closed = False

    @property
    def waiting(self) -> int:
        """Decisions waiting for a worker."""
        return self._waiting

    # ------------------------------------------------------------------ bots ask and withdraw

    def ask(self, game: int, level: str, seed: int, view: dict, deadline: float | None,
            kind: str = m.DEFAULT_GAME) -> Decision:
        """A decision for the bot of ``game`` (of the kind ``kind``) whose seat's time runs out at
        ``deadline`` (None: never)."""
        decision = Decision(game, level, seed, view, deadline, answer=asyncio.get_running_loop().create_future(),
                            asked_at=self.started, kind=kind)
        if self._closed:
            decision.answer.cancel()  # the server is stopping: the bot will play after its restart
            return decision
        if level not in game_kind(kind).search_budget_ms:
            self._start(decision)
            self._settle(decision, level)
            return decision
        if deadline is not None:
            decision.timer = self.clock.call_later(deadline - self.settings.reserve_seconds - self.clock.now(),
                                                   self._out_of_time, decision)
        self._queues.setdefault(game, deque()).append(decision)
        self._waiting += 1
        self._fill_workers()
        return decision

    def withdraw(self, decision: Decision) -> None:
        """The bot needs this decision no more (a newer one, or the game moved on without it)."""
        if decision.answer.done():
            return
        decision.answer.cancel()
        self._cancel_timer(decision)
        self._leave_round(decision)

    def close(self) -> None:
        """Shut down: no more answers; the workers stop."""
        self._closed = True
        for decision in [*self._thinking, *(d for waiting in self._queues.values() for d in waiting)]:
            self.withdraw(decision)
        if self._pool is not None:
            self._pool.close()

    # ------------------------------------------------------------------ the round

    def _fill_workers(self) -> None:
        while self._queues and len(self._thinking) < self.workers and not self._closed:
            decision = self._next_in_round()
            self._start(decision)
            budget = self._budget_ms(decision)
            if budget is None:
                self._answer_light(decision)
            else:
                self._search(decision, budget)

    def _next_in_round(self) -> Decision:
        """The first decision of the game whose turn it is; the game goes to the back.

        When a round ends the next begins, with a turn for every game waiting then.
        """
        if self._turns_left <= 0:
            self._turns_left = len(self._queues)
            self._round_share_ms = 1000 * self.settings.round_seconds * self.workers / self._turns_left
        self._turns_left -= 1
        game, waiting = next(iter(self._queues.items()))
        decision = waiting.popleft()
        self._waiting -= 1
        if waiting:
            self._queues.move_to_end(game)
        else:
            del self._queues[game]
        return decision

    def _leave_round(self, decision: Decision) -> bool:
        """Take a waiting decision out of its game's queue; False if it was not waiting."""
        waiting = self._queues.get(decision.game)
        if waiting is None or decision not in waiting:
            return False
        waiting.remove(decision)
        self._waiting -= 1
        if not waiting:
            del self._queues[decision.game]
        return True

    def _start(self, decision: Decision) -> None:
        decision.waited_behind = self.started - decision.asked_at
        self.started += 1

    def _budget_ms(self, decision: Decision) -> float | None:
        """The search budget of a decision leaving the round now; None: too little to search.

        Its level's budget, its share of the round, and a share of its clock before the
        reserve, whichever is least.
        """
        s = self.settings
        budget = min(game_kind(decision.kind).search_budget_ms[decision.level], self._round_share_ms)
        if decision.deadline is not None:
            before_reserve = decision.deadline - s.reserve_seconds - self.clock.now()
            budget = min(budget, 1000 * s.clock_share * before_reserve)
        return budget if budget >= s.min_search_ms else None

    # ------------------------------------------------------------------ answers

    def _search(self, decision: Decision, budget_ms: float) -> None:
        decision.budget_ms = budget_ms
        try:
            search = asyncio.ensure_future(self._think(decision, budget_ms))
        except Exception:
            log.exception("a %s bot's search in game %s could not start; the light level answers",
                          decision.level, decision.game)
            self._answer_light(decision)
            return
        self._thinking.add(decision)
        search.add_done_callback(lambda done: self._searched(decision, done))

    def _searched(self, decision: Decision, search: asyncio.Future) -> None:
        self._thinking.discard(decision)
        if not decision.answer.done():
            error = None if search.cancelled() else search.exception()
            if search.cancelled() or error is not None:
                log.error("a %s bot's search in game %s failed; the light level answers", decision.level,
                          decision.game, exc_info=error)
                self._answer_light(decision)
            else:
                self._cancel_timer(decision)
                decision.answer.set_result(search.result())
        self._fill_workers()

    def _out_of_time(self, decision: Decision) -> None:
        """The reserve is reached with no answer: the light level answers, waiting or thinking."""
        decision.timer = None
        if decision.answer.done():
            return
        if self._leave_round(decision):
            self._start(decision)
        log.info("a %s bot in game %s is out of time to search; the light level answers", decision.level,
                 decision.game)
        self._answer_light(decision)

    def _answer_light(self, decision: Decision) -> None:
        self._cancel_timer(decision)
        self._settle(decision, game_kind(decision.kind).light_level)

    def _settle(self, decision: Decision, level: str) -> None:
        try:
            decision.answer.set_result(decide(level, decision.seed, decision.view, game=decision.kind))
        except Exception as exc:  # the bot's seat plays its default move (HostedBot)
            decision.answer.set_exception(exc)

    @staticmethod
    def _cancel_timer(decision: Decision) -> None:
        if decision.timer is not None:
            decision.timer.cancel()
            decision.timer = None
