"""The hosted bots' scheduler on its own: turns between games, budgets, the clock's reserve.

Searches are a fake worker the test answers, time is a manual clock that starts at 0:
nothing here waits.
"""

from __future__ import annotations

import dataclasses

import pytest

from aton.players import RED
from server.bot_scheduler import SEARCH_BUDGET_MS, BotScheduler, decide
from server.config import HostedBotSettings
from server.games import AtonGame
from server.games.aton import KIND as ATON

from ..manual_clock import ManualClock
from .fake_workers import FakeWorkers, settle

HARD_MS = SEARCH_BUDGET_MS["hard"]


def a_view() -> dict:
    """A real opening view (the light level answers it with a real move)."""
    return AtonGame(seed=7).view(RED)


def light_answer() -> dict:
    """What the light level plays for ``a_view()`` with seed 0 (the decisions here are asked with it)."""
    return decide(ATON.light_level, 0, a_view())


def scheduler(workers: int = 1, **settings) -> tuple[BotScheduler, FakeWorkers, ManualClock]:
    fake, clock = FakeWorkers(), ManualClock()
    return BotScheduler(HostedBotSettings(workers=workers, **settings), clock, think=fake.think), fake, clock


async def test_games_take_turns_however_many_decisions_one_game_has_waiting():
    bots, workers, _ = scheduler()
    flood = [bots.ask(1, "hard", seed, a_view(), None) for seed in range(5)]
    others = [bots.ask(game, "hard", 0, a_view(), None) for game in (2, 3)]
    for index in range(7):
        await workers.finish(index, {"move": "searched"})
    # first come, first served would be 1 1 1 1 1 2 3
    assert workers.games == [1, 1, 2, 3, 1, 1, 1]
    assert [d.waited_behind for d in others] == [1, 2]  # one decision of each game before it
    assert all(d.answer.result() == {"move": "searched"} for d in flood + others)


async def test_a_game_that_asks_again_goes_to_the_back_of_the_round():
    bots, workers, _ = scheduler()
    first = bots.ask(1, "hard", 0, a_view(), None)
    waiting = [bots.ask(game, "hard", 0, a_view(), None) for game in (2, 3, 4)]
    await workers.finish(0)
    again = bots.ask(1, "hard", 1, a_view(), None)  # game 1's bot has its next decision
    for index in range(1, 5):
        await workers.finish(index)
    assert first.waited_behind == 0
    assert workers.games == [1, 2, 3, 4, 1]
    assert again.waited_behind == 2  # games 3 and 4: game 2 had started when game 1 asked again
    assert [d.waited_behind for d in waiting] == [0, 1, 2]


async def test_a_withdrawn_decision_leaves_the_round_and_is_never_answered():
    bots, workers, _ = scheduler()
    bots.ask(1, "hard", 0, a_view(), None)
    stale = bots.ask(2, "hard", 0, a_view(), None)
    fresh = bots.ask(3, "hard", 0, a_view(), None)
    bots.withdraw(stale)
    assert bots.waiting == 1 and stale.answer.cancelled()
    await workers.finish(0)
    assert workers.games == [1, 3]
    assert fresh.waited_behind == 0


async def test_no_more_searches_at_once_than_workers():
    bots, workers, _ = scheduler(workers=2)
    for game in range(1, 6):
        bots.ask(game, "hard", 0, a_view(), None)
    assert workers.games == [1, 2] and bots.waiting == 3
    await workers.finish(1)
    assert workers.games == [1, 2, 3] and bots.waiting == 2


async def test_a_lone_decision_gets_its_levels_whole_budget():
    bots, workers, _ = scheduler()
    bots.ask(1, "hard", 0, a_view(), deadline=30)
    assert workers.searches[0][1] == HARD_MS


async def test_budgets_shrink_so_that_a_round_of_the_waiting_games_fits_its_time():
    round_ms = 4.5 * HARD_MS  # nine games' searches would take twice as long
    bots, workers, _ = scheduler(round_seconds=round_ms / 1000)
    for game in range(1, 11):
        bots.ask(game, "hard", 0, a_view(), None)
    for index in range(10):
        await workers.finish(index)
    budgets = [budget for _, budget, _ in workers.searches]
    assert budgets[0] == HARD_MS  # game 1 was alone when it asked
    assert budgets[1:] == pytest.approx([round_ms / 9] * 9)  # the next round: nine games share it
    bots.ask(1, "hard", 1, a_view(), None)
    assert workers.searches[-1][1] == HARD_MS  # alone again: the whole budget


async def test_two_workers_share_a_round_twice_as_fast():
    round_ms = 2.0 * HARD_MS
    bots, workers, _ = scheduler(workers=2, round_seconds=round_ms / 1000)
    for game in range(1, 11):
        bots.ask(game, "hard", 0, a_view(), None)
    await workers.finish(0)
    assert workers.searches[2][1] == pytest.approx(2 * round_ms / 8)


async def test_a_search_takes_only_its_share_of_the_clock_before_the_reserve():
    bots, workers, _ = scheduler(clock_share=0.5, reserve_seconds=2.0, min_search_ms=1)
    bots.ask(1, "hard", 0, a_view(), deadline=2.0 + HARD_MS / 1000)
    assert workers.searches[0][1] == pytest.approx(HARD_MS / 2)  # half of the time left before the reserve


async def test_with_too_little_time_to_search_the_light_level_answers_at_once():
    bots, workers, _ = scheduler(reserve_seconds=2.0, min_search_ms=50)
    decision = bots.ask(1, "hard", 0, a_view(), deadline=2.05)
    assert workers.searches == []
    assert decision.budget_ms is None
    assert decision.answer.result() == light_answer()


async def test_a_decision_still_waiting_at_the_reserve_is_answered_by_the_light_level():
    bots, workers, clock = scheduler(reserve_seconds=2.0)
    bots.ask(1, "hard", 0, a_view(), deadline=None)  # holds the only worker
    late = bots.ask(2, "hard", 0, a_view(), deadline=10.0)
    clock.advance(7.9)
    assert not late.answer.done()
    clock.advance(0.2)
    assert late.answer.result() == light_answer()
    assert late.waited_behind == 0 and bots.waiting == 0
    await workers.finish(0)
    assert workers.games == [1]  # it is not searched afterwards


async def test_a_search_still_running_at_the_reserve_is_overtaken_by_the_light_level():
    bots, workers, clock = scheduler(reserve_seconds=2.0)
    slow = bots.ask(1, "hard", 0, a_view(), deadline=10.0)
    queued = bots.ask(2, "hard", 0, a_view(), deadline=None)
    clock.advance(8.0)
    light = slow.answer.result()
    assert light == light_answer()
    assert workers.games == [1]  # the worker is still busy with it ...
    await workers.finish(0, {"move": "too late"})
    assert slow.answer.result() == light  # ... and its late answer is dropped
    assert workers.games == [1, 2] and not queued.answer.done()


async def test_a_failed_search_is_answered_by_the_light_level():
    bots, workers, _ = scheduler()
    decision = bots.ask(1, "hard", 0, a_view(), None)
    workers.searches[0][2].set_exception(RuntimeError("the worker died"))
    await settle()
    assert decision.answer.result() == light_answer()


async def test_levels_that_do_not_search_answer_at_once_without_a_worker():
    bots, workers, _ = scheduler()
    bots.ask(1, "hard", 0, a_view(), None)
    easy = bots.ask(2, "easy", 0, a_view(), None)
    assert easy.answer.done() and easy.waited_behind == 0
    assert workers.games == [1]


def test_the_light_level_must_not_search():
    with pytest.raises(ValueError, match="does not search"):
        dataclasses.replace(ATON, light_level="hard")
