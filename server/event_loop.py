"""Which event loop a serving process runs on: uvloop where it is installed (the default), or asyncio's own.

uvloop (libuv under asyncio's interface, in C) reads, writes and schedules with less Python
work than asyncio's selector loop: measured back to back with ``bench/server_load.py
--games 300 --seconds 20 --client-procs 2``, the arbiter spent some tenth less CPU a move
on it (docs/hosting.md, "The event loop").  It became the default once the SSH gateway's
refusals closed gently (``server.ssh.lingering``): before, a connection refused at once
could be reset before its client read why, which uvloop's timing made likelier.
``--event-loop asyncio`` keeps asyncio's own loop.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Coroutine
from typing import Any


def event_loops() -> tuple[str, ...]:
    """The loops ``aton-server --event-loop`` offers here, the default first."""
    return ("uvloop", "asyncio") if importlib.util.find_spec("uvloop") is not None else ("asyncio",)


def run(main: Coroutine[Any, Any, None], event_loop: str) -> None:
    """Run ``main`` to its end on ``event_loop`` ("uvloop" or "asyncio"), as ``asyncio.run`` does."""
    if event_loop == "uvloop":
        import uvloop

        logging.getLogger(__name__).info("event loop: uvloop %s", uvloop.__version__)
        uvloop.run(main)
    else:
        logging.getLogger(__name__).info("event loop: asyncio's")
        asyncio.run(main)
