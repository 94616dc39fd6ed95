"""Shared fixtures: a real arbiter server on a loopback port."""

from __future__ import annotations

import pytest

from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from .manual_clock import ManualClock

#: The shared server's game seed: every test that uses it gets the same deals, run after run.
GAME_SEED = 20261203


@pytest.fixture
async def server(tmp_path):
    """A running server on a free loopback port, with its own database, a fixed game seed and
    a manual clock (``server.clock.advance(seconds)`` moves every game's clocks).  Its lobby
    sends each change at once (``lobby_update_interval`` 0): the tests of its batches make
    servers of their own."""
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"),
                                     game_seed=GAME_SEED, limits=Limits(lobby_update_interval=0)), clock=ManualClock())
    await srv.start()
    yield srv
    await srv.stop()
