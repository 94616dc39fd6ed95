"""Start turns: an app host's apps start one at a time, in the order their sessions came."""

from __future__ import annotations

import asyncio

from aton_tui.start_turns import StartTurns


async def queue(turns: StartTurns, *owners: str) -> tuple[list[str], dict[str, asyncio.Task[None]]]:
    """Each owner asks for its turn, in this order; the list says whose turn came, in order."""
    started: list[str] = []

    async def take(owner: str) -> None:
        await turns.take(owner)
        started.append(owner)

    tasks = {}
    for owner in owners:
        tasks[owner] = asyncio.create_task(take(owner))
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    return started, tasks


async def settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_turns_come_in_the_order_asked_each_when_the_one_before_is_done():
    turns = StartTurns()
    started, _ = await queue(turns, "a", "b", "c")
    assert started == ["a"] and turns.queued == 3
    turns.done("b")  # not its turn: it leaves the line (its session ended while it waited)
    turns.done("a")
    await settle()
    assert started == ["a", "c"] and turns.queued == 1
    turns.done("c")
    assert turns.queued == 0


async def test_a_session_ended_while_waiting_or_as_its_turn_came_passes_it_on():
    turns = StartTurns()
    started, tasks = await queue(turns, "a", "b", "c", "d")
    tasks["b"].cancel()  # waiting
    turns.done("a")  # its turn goes to c; c is cancelled before it runs
    tasks["c"].cancel()
    await settle()
    assert started == ["a", "d"] and turns.queued == 1


async def test_a_turn_not_done_in_time_is_given_up():
    turns = StartTurns(turn_limit=0.05)
    started, _ = await queue(turns, "a", "b")
    for _ in range(200):  # a draws nothing: b's turn comes all the same
        if started == ["a", "b"]:
            break
        await asyncio.sleep(0.01)
    assert started == ["a", "b"]


async def test_through_waits_for_the_queued_starts_or_its_limit():
    turns = StartTurns(through_limit=3600.0)
    await turns.through()  # nobody starts: at once
    await queue(turns, "a", "b")
    through = asyncio.create_task(turns.through())
    turns.done("a")
    await settle()
    assert not through.done()  # b is starting
    turns.done("b")
    await settle()
    assert through.done()
    limited = StartTurns(through_limit=0.05)
    await queue(limited, "a")
    await asyncio.wait_for(limited.through(), 5.0)  # given up after its limit, a still starting
    assert limited.queued == 1
