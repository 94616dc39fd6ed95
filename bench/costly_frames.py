"""What frames that are costly to decode or to refuse do to everybody else on a server.

    python bench/costly_frames.py [--attackers 1,3,10] [--seconds S] [--root CHECKOUT]

``aton-server`` runs as a subprocess on a free 127.0.0.1 port (from ``--root``, default
this checkout, so that an older checkout can be measured: ``git worktree add BEFORE REV``).
A bystander pings it every 50 ms; meanwhile N attacker connections (from 127.0.0.2) each
do one of:

- ``refusals``: nine undecodable frames and a ping, twenty times a second (the ping
  resets the count of refusals in a row);
- ``large``: the largest request the checkout's protocol lets a client send, a ping
  padded with a map of small values (an unknown field, ignored), twenty times a second
  (the message rate).

Printed per mode and N: the bystander's ping round trip (p50, p99, max), the frames the
server answered per second, how many attackers it disconnected, and its CPU use.
Never part of the test run; loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack

HEADER = struct.Struct(">I")
PACE = 0.05  # seconds between an attacker's batches, and between the bystander's pings


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def ping(**extra) -> bytes:
    return frame(msgpack.packb({"type": "ping", **extra}, use_bin_type=True))


def largest_request(size: int) -> bytes:
    """A ping padded to about ``size`` bytes with a map of small values: costly to decode."""
    pad: dict[str, int] = {}
    i = 0
    while len(msgpack.packb({"type": "ping", "pad": pad})) < size - 8:
        pad[format(i, "x")] = i % 128
        i += 1
    return ping(pad=pad)


def request_bytes(root: Path) -> int:
    """The largest frame the checkout's clients may send (before the limit: any frame)."""
    code = "import protocol.framing as f; print(getattr(f, 'MAX_REQUEST_BYTES', f.MAX_FRAME_BYTES))"
    return int(subprocess.check_output([sys.executable, "-c", code], cwd=root, text=True))


class Peer:
    """A raw connection that counts the frames it receives and notices the server's close."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received = 0
        self.closed = False
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, source: str, name: str) -> Peer:
        peer = cls(*await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)))
        peer.writer.write(frame(msgpack.packb({"type": "hello", "version": "1.0", "name": name,
                                               "kind": "human", "lobby": False})))
        await peer.until(1)
        return peer

    async def _read(self) -> None:
        try:
            while True:
                (length,) = HEADER.unpack(await self.reader.readexactly(4))
                await self.reader.readexactly(length)
                self.received += 1
                self.arrived.set()
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed = True
            self.arrived.set()

    async def until(self, received: int) -> None:
        while self.received < received and not self.closed:
            self.arrived.clear()
            await self.arrived.wait()

    def close(self) -> None:
        self.writer.close()
        self.task.cancel()


async def attack(port: int, index: int, batch: bytes, frames: int, stop: asyncio.Event) -> tuple[int, bool]:
    """Send ``batch`` (``frames`` frames) every PACE seconds; the frames answered, and whether closed."""
    peer = await Peer.open(port, "127.0.0.2", f"attacker-{index}")
    while not stop.is_set() and not peer.closed:
        peer.writer.write(batch)
        await peer.until(peer.received + frames)
        await asyncio.sleep(PACE)
    peer.close()
    return peer.received - 1, peer.closed


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(port: int, pid: int, mode: str, attackers: int, seconds: float, size: int) -> str:
    batch, frames = (frame(b"\xc1") * 9 + ping(), 10) if mode == "refusals" else (largest_request(size), 1)
    bystander = await Peer.open(port, "127.0.0.1", "bystander")
    stop = asyncio.Event()
    started, cpu = time.perf_counter(), cpu_seconds(pid)
    attacking = [asyncio.create_task(attack(port, i, batch, frames, stop)) for i in range(attackers)]
    trips = []
    while time.perf_counter() - started < seconds:
        sent = time.perf_counter()
        bystander.writer.write(ping())
        await bystander.until(bystander.received + 1)
        trips.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(PACE)
    stop.set()
    results = await asyncio.gather(*attacking)
    elapsed, used = time.perf_counter() - started, cpu_seconds(pid) - cpu
    bystander.close()
    trips.sort()
    answered = sum(r[0] for r in results)
    closed = sum(r[1] for r in results)
    return (f"| {mode if attackers else 'none'} | {attackers} | {statistics.median(trips):.1f} / "
            f"{trips[int(len(trips) * 0.99)]:.1f} / {trips[-1]:.0f} ms | {answered / elapsed:,.0f} | "
            f"{closed} of {attackers} | {used / elapsed:.0%} |")


async def main(args: argparse.Namespace) -> None:
    root = Path(args.root).resolve()
    size = request_bytes(root)
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--db", f"{tmp}/aton.db",
                                   "--log-level", "error"], cwd=root, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        try:
            port = int(server.stdout.readline().rsplit(":", 1)[1])
            print(f"server from {root}, requests of up to {size:,} bytes, {args.seconds:g} s per row\n")
            print("| attack | attackers | bystander's ping p50 / p99 / max | frames answered/s | attackers "
                  "disconnected | server CPU |")
            print("|---|---|---|---|---|---|")
            print(await measure(port, server.pid, "none", 0, args.seconds, size))
            for mode in ("refusals", "large"):
                for attackers in args.attackers:
                    print(await measure(port, server.pid, mode, attackers, args.seconds, size), flush=True)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attackers", type=lambda s: [int(n) for n in s.split(",")], default=[1, 3, 10])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--root", default=Path(__file__).resolve().parent.parent)
    asyncio.run(main(parser.parse_args()))
