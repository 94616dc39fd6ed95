"""The web gateway prunes its players' kept games as the SSH gateway does (``server.hosted_client``):
when it starts, then once a day on its clock."""

from __future__ import annotations

import os
import time

from server.kept_games import KEPT_GAMES_DIRECTORY, KEPT_GAMES_MAX_AGE, PRUNING_INTERVAL

from ..manual_clock import ManualClock


async def test_the_web_gateway_prunes_kept_games_untouched_for_thirty_days(tmp_path, web_stack_factory):
    games = tmp_path / KEPT_GAMES_DIRECTORY  # (beside the factory's databases)
    long_gone, recent = games / "long-gone", games / "recent"
    for directory, age in ((long_gone, KEPT_GAMES_MAX_AGE + 3600), (recent, 3600)):
        directory.mkdir(parents=True)
        (directory / "seals.json").write_text("{}")
        os.utime(directory / "seals.json", (time.time() - age,) * 2)
    clock = ManualClock()
    stack = await web_stack_factory(clock=clock)
    pruning = stack.gateway.pruning
    assert pruning.kept_games == games and pruning.pruned is not None and await pruning.pruned == 1
    assert not long_gone.exists() and recent.exists()
    assert clock.pending()[-1] == PRUNING_INTERVAL  # the next, a day on
