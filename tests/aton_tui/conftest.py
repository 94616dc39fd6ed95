"""Fixtures for the Textual client: an app that runs its own server, like ``aton`` does."""

from __future__ import annotations

import pytest

from aton_tui.app import AtonApp, Launch
from aton_tui.settings import Settings


def quiet_settings(**changes) -> Settings:
    """Settings for tests: no reveal animation, nothing written to disk."""
    return Settings(**{"reveal_delay": 0.0, "auto_forced": True, "path": None, **changes})


@pytest.fixture
def embedded_app(tmp_path):
    """``aton --level random``: a server in the process and a game against its random bot."""

    def make(level: str = "random", **changes) -> AtonApp:
        launch = Launch(name="tester", serve="127.0.0.1", db_path=str(tmp_path / "aton.db"),
                        start="bot", level=level, clock="relaxed")
        return AtonApp(launch, quiet_settings(**changes))

    return make
