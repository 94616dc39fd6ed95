"""``LoopClock``: the time and timers of the loop that runs it, found once per loop."""

from __future__ import annotations

import asyncio

from server.clock import LoopClock


def test_a_clock_keeps_the_time_and_timers_of_the_loop_that_runs_it():
    clock = LoopClock()

    async def fire_once() -> tuple[asyncio.AbstractEventLoop, float, float]:
        loop = asyncio.get_running_loop()
        fired = loop.create_future()
        clock.call_later(0, lambda: fired.set_result(clock.now()))
        return loop, loop.time(), await fired

    first, started, fired_at = asyncio.run(fire_once())
    assert fired_at >= started
    # the loop it knew is closed: a clock used again finds the new one
    second, started, fired_at = asyncio.run(fire_once())
    assert second is not first and first.is_closed()
    assert fired_at >= started
