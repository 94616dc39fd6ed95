"""PtyChild on its own, with a shell as the child: size, resize, exit status, the process group."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from server.ssh.session import PtyChild

from .terminal import process_gone


class Collector:
    def __init__(self) -> None:
        self.data = bytearray()

    def __call__(self, data: bytes) -> None:
        self.data += data

    async def wait_for(self, text: bytes, timeout: float = 5.0) -> None:
        end = time.monotonic() + timeout
        while text not in self.data:
            assert time.monotonic() < end, f"{text!r} not in {bytes(self.data)!r}"
            await asyncio.sleep(0.02)

    async def line(self, prefix: str, timeout: float = 20.0) -> str:
        """The rest of the first line that starts with ``prefix``."""
        end = time.monotonic() + timeout
        while True:
            for line in self.data.decode(errors="replace").splitlines():
                if line.startswith(prefix):
                    return line[len(prefix):]
            assert time.monotonic() < end, f"no {prefix!r} line in {bytes(self.data)!r}"
            await asyncio.sleep(0.02)


def spawn(script: str, out: Collector, size=(100, 30, 0, 0)) -> PtyChild:
    env = {"PATH": os.environ.get("PATH", os.defpath), "TERM": "xterm"}
    child = PtyChild(size, out, lambda blocked: None)
    child.spawn(["/bin/sh", "-c", script], env)
    return child


async def test_size_output_exit_status_and_leftovers_of_the_group(tmp_path):
    out = Collector()
    pidfile = tmp_path / "bg.pid"
    child = spawn(f"stty size; sleep 30 & echo $! > {pidfile}; echo done; exit 3", out)
    code = await asyncio.wait_for(asyncio.shield(child.exited), 10)
    child.drain()
    assert code == 3
    assert b"30 100" in out.data and b"done" in out.data
    background = int(pidfile.read_text())
    for _ in range(100):  # killed with the group as the leader exited; reaped by PID 1 or us
        if process_gone(background) or Path(f"/proc/{background}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the child's background process outlived it")
    child.close()


async def test_resize_sends_sigwinch_and_terminate_ends_the_group():
    out = Collector()
    child = spawn('trap "stty size" WINCH; echo ready; while :; do sleep 0.05; done', out)
    await out.wait_for(b"ready")
    child.resize(120, 40)
    await out.wait_for(b"40 120")
    code = await child.terminate(grace=30.0)
    assert code == -signal.SIGTERM  # ended by the first signal, not by the SIGKILL after the grace
    assert process_gone(child.pid)
    child.close()
    assert child.master == -1
