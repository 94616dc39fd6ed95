"""Stand-ins for the hosted bots' worker processes: a search ends when the test says so.

Pass ``FakeWorkers().think`` to a ``BotScheduler`` (or to ``ArbiterServer(think=...)``):
no search then takes real time, so no test depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio

from server.bot_scheduler import Decision, decide


async def settle() -> None:
    """Let the callbacks that are due run (an answer is played in the next turns), without waiting."""
    for _ in range(3):
        await asyncio.sleep(0)


class FakeWorkers:
    """Searches that end when the test finishes them, in the order they started."""

    def __init__(self) -> None:
        self.searches: list[tuple[Decision, float, asyncio.Future]] = []

    def think(self, decision: Decision, budget_ms: float) -> asyncio.Future:
        search = asyncio.get_running_loop().create_future()
        self.searches.append((decision, budget_ms, search))
        return search

    @property
    def games(self) -> list[int]:
        """The games whose searches started, in order."""
        return [decision.game for decision, _, _ in self.searches]

    async def finish(self, index: int, move: dict | None = None) -> None:
        """End the ``index``-th search with ``move``, by default the real move the easy level
        chooses for its view (the same one for the same seed)."""
        decision, _, search = self.searches[index]
        search.set_result(move or decide("easy", decision.seed, decision.view))
        await settle()
