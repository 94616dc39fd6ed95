"""``aton-server`` as a child process that a test can SIGKILL and start again where it was."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ServerProcess:
    """The real ``aton-server`` (``python -m server.cli``) on a loopback port with a database
    in ``directory``; every incarnation appends its log to ``server.log`` there."""

    def __init__(self, directory: Path) -> None:
        self.db = directory / "aton.db"
        self.log = directory / "server.log"
        self.port = 0  # the first start picks a free port; restarts take the same one
        self.starts = 0
        self._process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with open(self.log, "ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server.cli", "--host", "127.0.0.1", "--port", str(self.port),
                "--db", str(self.db), "--log-level", "info",
                cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self._process.stdout is not None
        line = (await self._process.stdout.readline()).decode()
        assert line.startswith("listening on 127.0.0.1:"), f"the server did not start: {line!r}; see {self.log}"
        self.port = int(line.rsplit(":", 1)[1])
        self.starts += 1

    @property
    def process(self) -> asyncio.subprocess.Process:
        assert self._process is not None, "the server has not started"
        return self._process

    async def kill(self) -> None:
        """SIGKILL: no bye, no last commit, nothing but what the database already holds."""
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> int:
        """SIGTERM, a clean stop; the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), 30)

    def export(self, out: Path) -> None:
        """``aton-server export`` of the database, as an operator runs it."""
        subprocess.run([sys.executable, "-m", "server.cli", "export", "--db", str(self.db), "--out", str(out)],
                       cwd=ROOT, check=True, capture_output=True)

    def logged(self, *markers: str) -> list[str]:
        """The lines of every incarnation's log that contain any of ``markers``."""
        return [line for line in self.log.read_text(errors="replace").splitlines()
                if any(marker in line for marker in markers)]
