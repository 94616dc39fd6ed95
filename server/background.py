"""Tasks a gateway starts in the background (a session, its end), kept and their failures logged.

asyncio keeps only a weak reference to a task, and an exception nobody awaits is reported only
when the task is collected, if at all (and asyncssh logs those of its callbacks only at DEBUG):
``track`` holds each task in a set until it is done and logs its failure itself."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any


def track(tasks: set[asyncio.Future[Any]], work: Awaitable[Any], what: str, log: logging.Logger) -> asyncio.Future[Any]:
    """Run ``work`` as a task held in ``tasks`` until it is done; a failure is logged as ``what`` failed."""
    task = asyncio.ensure_future(work)
    tasks.add(task)

    def done(t: asyncio.Future[Any]) -> None:
        tasks.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.error("%s failed", what, exc_info=t.exception())

    task.add_done_callback(done)
    return task
