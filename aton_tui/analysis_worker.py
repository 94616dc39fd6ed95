"""A game's analysis in a worker process, so that the screen never waits for it.

The analysis (``bots.analysis.analyse``) is pure Python that keeps a core busy for
seconds to minutes: in a thread it would hold the interpreter's lock and starve the
screen.  ``AnalysisRun`` runs it in a child interpreter instead,

    python -m aton_tui.analysis_worker

and talks to it through pipes, one JSON object a line.  The request (the record and the
settings) goes to the child's standard input; the child answers on its standard output
with ``{"done": n, "total": m}`` after each move it has gone through and, at the end,
``{"analysis": …}`` (``GameAnalysis.to_dict``) or ``{"error": "…"}``.

Cancelling the task that awaits ``AnalysisRun.run`` (leaving the screen does) kills the
child and reaps it: no analysis is left running.  The child also dies with its parent
(``PR_SET_PDEATHSIG``, and a broken pipe at its next line), and runs at a lower priority
(``NICENESS``) so that a game on the same machine keeps its share of the processor.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from aton.record import GameRecord
from bots.analysis import AnalysisSettings, GameAnalysis

#: how much lower than the client the worker's priority is (``nice``)
NICENESS = 5
#: the longest line the client reads from the worker: a whole analysis of a long game
#: (150 rounds: about a thousand decisions, a few hundred kilobytes)
MAX_LINE = 64 * 1024 * 1024

Progress = Callable[[int, int], None]


class AnalysisFailed(Exception):
    """The worker process ended without an analysis (the reason is the message)."""


class AnalysisRun:
    """One analysis of ``record`` in a worker process (``run`` starts it and awaits its result)."""

    def __init__(self, record: GameRecord, settings: AnalysisSettings) -> None:
        self.record = record
        self.settings = settings
        self.pid: int | None = None  # the worker's, once started

    async def run(self, progress: Progress) -> GameAnalysis:
        """The analysis; ``progress(done, total)`` after each move.  AnalysisFailed when the
        worker gives none; cancelled, the worker is killed and reaped before this returns."""
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", __name__, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, limit=MAX_LINE)
        self.pid = process.pid
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            request = {"record": self.record.to_dict(), "settings": self.settings.to_dict(), "parent": os.getpid()}
            process.stdin.write(json.dumps(request).encode() + b"\n")
            await process.stdin.drain()
            process.stdin.close()
            async for line in process.stdout:
                answer = json.loads(line)
                if "analysis" in answer:
                    return GameAnalysis.from_dict(answer["analysis"])
                if "error" in answer:
                    raise AnalysisFailed(answer["error"])
                progress(answer["done"], answer["total"])
            await process.wait()
            told = (await process.stderr.read()).decode(errors="replace").strip().splitlines()
            raise AnalysisFailed(told[-1] if told else f"the analysis ended with status {process.returncode}")
        finally:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()


# ---------------------------------------------------------------------- the worker's side


def answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def work() -> int:
    """Read one request on standard input, answer its progress and its analysis."""
    from protocol.handoff import PR_SET_PDEATHSIG, prctl

    request = json.loads(sys.stdin.readline())
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != request.get("parent"):
        return 1  # the client died before the line above: nobody waits for the answer
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    from bots.analysis import analyse

    try:
        record = GameRecord.from_dict(request["record"])
        settings = request["settings"]
        analysis = analyse(record, iterations=settings["iterations"], budget_ms=settings["budget_ms"],
                           seed=settings["seed"], progress=lambda done, total: answer({"done": done, "total": total}))
    except (ValueError, KeyError) as exc:  # a record that does not replay is a ValueError (RecordError)
        answer({"error": str(exc)})
        return 1
    answer({"analysis": analysis.to_dict()})
    return 0


if __name__ == "__main__":
    try:
        sys.exit(work())
    except BrokenPipeError:  # the client went away: nobody reads the answer
        sys.exit(1)
