"""The tests here run on each event loop a gateway may serve on: asyncio's own and uvloop."""

from __future__ import annotations

import asyncio

import uvloop


def pytest_asyncio_loop_factories(config, item):
    return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
