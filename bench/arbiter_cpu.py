"""The arbiter's own CPU per accepted move, counted inside its callbacks: a figure a busy machine changes little.

    python bench/arbiter_cpu.py [--games N] [--moves M] [--seed S]

``bench/server_load.py`` measures the server's process from outside: its CPU time per
accepted move is right, but on a machine other work keeps busy it also counts what sharing
the cores costs (caches, scheduling), which varies from run to run by more than a change of
the server's code.  This benchmark runs an ``ArbiterServer`` (its defaults but
``server_load``'s per-address limits, a database in a temporary file) and N games of
``server_load``'s clients (random legal moves, no think time) on one event loop over
127.0.0.1, and sums ``time.process_time`` spent inside the server's own callbacks only:
reading and handling a client's frames (``Connection.data_received``) and sending a turn's
frames after its commit (``Outbox.flush``).  Divided by the acknowledgements the clients
received after a warm-up of M/5 moves until M more, it is the Python work of one accepted
move (validated, played, stored and committed, every receiver's update built and
written); the event loop's own work and the kernel's reading of the sockets are left out,
so it is somewhat under ``server_load``'s figure.  The best of 3 windows is printed.

Never part of the test run.  It only talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import server_load as load  # noqa: E402

from server.app import ArbiterServer  # noqa: E402
from server.config import Limits, ServerConfig  # noqa: E402
from server.connection import Connection, Outbox  # noqa: E402


class Meter:
    """CPU seconds spent inside the wrapped methods."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any) -> Any:
            start = time.process_time()
            try:
                return method(*args)
            finally:
                self.seconds += time.process_time() - start
        return timed


meter = Meter()  # around the server's callbacks (``main``)


async def measure(games: int, moves: int, seed: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="aton-bench-") as tmp:
        limits = Limits(max_connections=max(Limits().max_connections, 2 * games + 10),
                        max_connections_per_address=1000, max_games_per_address=1000)
        server = ArbiterServer(ServerConfig(host=load.HOST, port=0, db_path=str(Path(tmp) / "bench.db"),
                                            limits=limits))
        await server.start()
        try:
            args = {"games": games, "think": 0.0, "ramp": 0.0, "clock": "normal", "burst": 50, "stall": 30.0,
                    "seed": seed, "max_games": 0, "addresses": 1, "port": server.port, "client_procs": 1,
                    "worker": 0, "seconds": 1e9, "drain": 0.0}
            run = load.Run(args, load.Stats())
            limit = asyncio.Semaphore(64)
            clients = await asyncio.gather(*(load._connect(run, f"{role}{i}", i, limit)
                                             for i in range(games) for role in ("h", "g")))
            slots = [load.Slot(run, i, clients[2 * i], clients[2 * i + 1], seed=seed * 1_000_003 + i)
                     for i in range(games)]
            run.t0 = time.monotonic()
            tasks = [asyncio.create_task(slot.play()) for slot in slots]
            windows = []
            for window in range(4):  # a warm-up, then 3 measured windows
                goal = moves // 5 if window == 0 else moves
                acks0, cpu0 = run.stats.acks_total, meter.seconds
                while run.stats.acks_total - acks0 < goal:
                    await asyncio.sleep(0.05)
                if window:
                    windows.append((meter.seconds - cpu0) / (run.stats.acks_total - acks0))
            run.stopping = True
            for slot in slots:
                slot.host.abandon()
                slot.guest.abandon()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            await server.stop()
    return windows



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="concurrent games (default 100)")
    parser.add_argument("--moves", type=int, default=10_000, help="accepted moves per window (default 10,000)")
    parser.add_argument("--seed", type=int, default=1)
    a = parser.parse_args()
    Connection.data_received = meter.wrap(Connection.data_received)  # type: ignore[method-assign]
    Outbox.flush = meter.wrap(Outbox.flush)  # type: ignore[method-assign]
    windows = asyncio.run(measure(a.games, a.moves, a.seed))
    each = ", ".join(f"{1e6 * w:.0f}" for w in windows)
    print(f"{a.games} games, 3 windows of {a.moves:,} accepted moves: the arbiter's callbacks used {each} µs "
          f"of CPU per accepted move (best {1e6 * min(windows):.0f})")


if __name__ == "__main__":
    main()
