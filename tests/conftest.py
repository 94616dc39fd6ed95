"""Shared fixtures: a real arbiter server on a loopback port."""

from __future__ import annotations

import pytest

from server.app import ArbiterServer
from server.config import ServerConfig


@pytest.fixture
async def server(tmp_path):
    """A running server on a free loopback port, with its own database."""
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")))
    await srv.start()
    yield srv
    await srv.stop()
