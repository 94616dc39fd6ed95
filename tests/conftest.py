"""Shared fixtures: a real arbiter server on a loopback port, and a data directory of each test's own."""

from __future__ import annotations

import pytest

from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from .manual_clock import ManualClock

#: The shared server's game seed: every test that uses it gets the same deals, run after run.
GAME_SEED = 20261203


@pytest.fixture(autouse=True)
def own_data_directory(tmp_path_factory, monkeypatch):
    """Every test, and every process it starts, keeps its keys, sessions and settings in a
    directory of its own (XDG_DATA_HOME), never in the user's: a bot started by one test must
    not find the session a bot of another test left (``aton-bot`` keeps them by default)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


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
