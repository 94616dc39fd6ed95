"""One browser session's game client: textual-serve's ``AppService``, started without a shell
and with an environment of its own.

textual-serve starts the app command through a shell with a copy of the server's whole
environment (``AppService._build_environment``: ``os.environ.copy()`` and its own
variables), and stops it by asking it to quit and waiting for as long as it takes.  A
browser player must reach nothing of the server's: ``ClientService`` gives the client the
environment the gateway made for this player (``server.hosted_client``) plus only the
variables textual-serve sets for its driver, runs the program itself (no shell reads a
player's name), in a process group of its own, and ends that group if the client has not
quit within a grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from asyncio.subprocess import Process

from textual_serve.app_service import AppService

#: What textual-serve adds to the app's environment (its driver, colours, size): the only
#: variables taken from its ``_build_environment``, whose base is the server's own environment.
SERVE_VARIABLES = ("TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
                   "COLUMNS", "ROWS")
QUIT_GRACE = 2.0  # seconds for a client asked to quit before its process group is killed


class ClientService(AppService):
    """The client ``argv`` with exactly ``env`` (and textual-serve's driver variables), in ``cwd``."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, **service: object) -> None:
        super().__init__(argv[0], **service)  # type: ignore[arg-type]  # textual-serve's keyword arguments
        self.argv = argv
        self.env = env
        self.cwd = cwd

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        served = super()._build_environment(width, height)
        return {**self.env, **{name: served[name] for name in SERVE_VARIABLES}}

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width, height), cwd=self.cwd,
            start_new_session=True)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def end(self) -> None:
        """Ask the client to quit; kill its process group if it has not within ``QUIT_GRACE``; reap it."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop(), QUIT_GRACE)
        with contextlib.suppress(ProcessLookupError):  # the client, or whatever it left behind in its group
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        if self._task is not None:  # (stop did not finish: the reader ends with the process's output)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
