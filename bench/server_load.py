"""Load test of the arbiter: N concurrent games against a real ``aton-server`` on loopback.

    python bench/server_load.py [--games N] [--seconds S] [--client-procs K] [--addresses A] [--think MS]
                                [--drain S] [--max-games G] [--ramp S] [--clock C]
                                [--event-loop uvloop|asyncio] [--profile-server OUT] [--py-spy OUT [--py-spy-bin PATH]]

The server runs as a subprocess (``python -m server.cli`` on a free 127.0.0.1 port,
with a temporary database), so that its CPU time and peak RSS are its own.  Each of
the N game slots is a pair of protocol clients (``protocol.client.Client``, kind
"bot", ``lobby=False``) that play game after game: one opens a table, the other
joins it (exact pairing), and both play uniformly random legal moves with no think
time.  Every client paces its frames to the rate limit the server announces in
``welcome`` (a client that ignores it is refused and would stall); the number of
frames that had to wait for the pacer is printed.  Clients are spread over K
processes (default 1) so that the client side can be kept off the critical path, and
over A loopback source addresses (127.0.0.1 and on, default 1) so that more than the
1000 connections the server allows one address here can be seated; the server's
``max_connections`` is raised to hold every client.

The run is bounded: the clients connect, then the measurement window of S seconds
starts; at its end no new game is started, games in progress get ``--drain``
seconds to finish and are then abandoned (connections closed).  ``--max-games``
bounds the number of games started in all.

Printed: the command line, games completed, accepted moves per second (acks
received by the clients in the window), p50/p99 latency from the second commitment
to the reveal reaching both players, the server's peak RSS (VmHWM) and the CPU
used by the server and by the clients in the window.

Latency: for each round, from the moment the later of the two players writes its
``commit`` frame to the moment both have received the ``update`` that carries the
round's reveal (``card_revealed``/``turn_order_decided`` events).  The clients open
their commitments when the server asks (``open_requested``), so this includes the
open round trip, as a player experiences it.  Rounds whose second commitment falls
in the window are counted.  Once connected, each client process tunes its garbage
collector as the server does (``server.collector``): with CPython's defaults the client
processes' own full collections (100–250 ms with 1,000 clients each) would be counted as
the server's latency.

Never part of the test run.  It only talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import resource
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol import messages as m  # noqa: E402
from protocol.client import Client  # noqa: E402
from server.collector import settle_for_serving  # noqa: E402
from server.config import Limits  # noqa: E402

REVEAL_EVENTS = frozenset({"card_revealed", "turn_order_decided"})
HOST = "127.0.0.1"
M = TypeVar("M", bound=m.Message)


# ----------------------------------------------------------------------------- clients


class Pacer:
    """A token bucket a little inside the server's (``messages_per_second``, burst)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.waits = 0
        self.waited = 0.0

    async def take(self, reserve: int = 0) -> None:
        """Wait until a frame may be sent, leaving ``reserve`` tokens for more urgent frames."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1 + reserve:
            delay = (1 + reserve - self.tokens) / self.rate
            self.waits += 1
            self.waited += delay
            await asyncio.sleep(delay)
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
        self.tokens -= 1


class BenchClient(Client):
    """A ``Client`` whose every frame goes through a pacer, and which remembers when it last
    wrote a frame.  One token is kept for the automatic ``open``, so that the rate limit
    delays moves and commits (before they are timed) but never an opening."""

    pacer: Pacer | None = None
    last_send: float = 0.0
    last_frame: float = 0.0

    async def send(self, msg: m.Message) -> int | None:
        if self.pacer is not None:
            await self.pacer.take(0 if isinstance(msg, m.Open) else 1)
        self.last_send = time.monotonic()
        return await super().send(msg)

    def abandon(self) -> None:
        self.writer.close()


@dataclass
class GameTimes:
    """Per game: when each seat wrote its k-th commit and received its k-th reveal."""

    commits: dict = field(default_factory=lambda: {"red": [], "blue": []})
    reveals: dict = field(default_factory=lambda: {"red": [], "blue": []})
    done: int = 0  # rounds already turned into samples


@dataclass
class Stats:
    acks_window: int = 0
    acks_total: int = 0
    latencies_ms: list = field(default_factory=list)
    games_started: int = 0
    games_completed: int = 0
    games_completed_window: int = 0
    games_abandoned: int = 0
    errors: Counter = field(default_factory=Counter)
    frames_in: int = 0
    paced_frames: int = 0
    paced_seconds: float = 0.0
    stalls: int = 0
    unrevealed: int = 0  # rounds committed in the window whose reveal had not reached both at the end
    connect_failures: int = 0
    cpu_seconds: float = 0.0


class Run:
    """The shared state of one client process."""

    def __init__(self, args: dict, stats: Stats) -> None:
        self.args = args
        self.stats = stats
        self.t0 = 0.0
        self.bound = float("inf")
        self.stopping = False
        self.budget = args["max_games"]  # games this process may still start (0: no limit)
        self.games: dict[int, GameTimes] = {}

    def in_window(self, t: float) -> bool:
        return self.t0 <= t <= self.bound

    def may_start(self) -> bool:
        if self.stopping or time.monotonic() >= self.bound:
            return False
        if self.args["max_games"]:
            if self.budget <= 0:
                return False
            self.budget -= 1
        return True

    def sample(self, game: int) -> None:
        times = self.games.get(game)
        if times is None:
            return
        c, r = times.commits, times.reveals
        n = min(len(c["red"]), len(c["blue"]), len(r["red"]), len(r["blue"]))
        while times.done < n:
            k = times.done
            second_commit = max(c["red"][k], c["blue"][k])
            if self.in_window(second_commit):
                both_revealed = max(r["red"][k], r["blue"][k])
                self.stats.latencies_ms.append((both_revealed - second_commit) * 1000)
            times.done += 1

    def count_unrevealed(self) -> None:
        for times in self.games.values():
            c = times.commits
            for k in range(times.done, min(len(c["red"]), len(c["blue"]))):
                if self.in_window(max(c["red"][k], c["blue"][k])):
                    self.stats.unrevealed += 1


THINKING = -1  # a move is being thought about (``--think``)


class _Mover:
    """One player's side of one game: what it has asked and what it may do next."""

    def __init__(self, c: BenchClient, game: int, times: GameTimes, run: Run, rng: random.Random) -> None:
        self.c = c
        self.game = game
        self.times = times
        self.run = run
        self.rng = rng
        self.seat: str | None = None
        self.inflight: int | None = None  # request id of our move, commit or sync (or THINKING)
        self.inflight_commit = False
        self.min_version = 0  # act only on views at least this recent (after our last ack)
        self.thinking: asyncio.Task | None = None
        self.answers: dict[int | None, m.Ack | m.Error] = {}  # answers that came before we knew the request id

    async def answered(self, msg: m.Ack | m.Error) -> None:
        if msg.reply_to != self.inflight:
            if self.inflight == THINKING:
                self.answers[msg.reply_to] = msg
            return
        if isinstance(msg, m.Ack):
            self.inflight = None
            self.min_version = msg.version
            return
        if self.inflight_commit:
            self.c.seals.pop(self.game, None)  # refused: that seal is void, commit afresh
        self.inflight_commit = False
        self.inflight = await self.c.send(m.Sync(game=self.game))
        self.min_version = 0

    async def decide(self, view: dict, commitments: dict[str, str]) -> None:
        decision = view.get("decision")
        if decision is None:
            return
        assert self.seat is not None  # a decision is a seated player's
        if decision["kind"] == "commit":
            if commitments[self.seat] != "none" or self.c.has_sealed(self.game):
                return
            hand = list(decision["hand"])
            self.rng.shuffle(hand)
            move = ("commit", hand)
        else:
            move = (decision["kind"], self.rng.choice(decision["squares"]))
        think = self.run.args["think"] / 1000
        if not think:
            await self._play(move)
            return
        self.inflight = THINKING
        self.thinking = asyncio.create_task(self._think(move, think * (0.5 + self.rng.random())))

    async def _think(self, move: tuple, seconds: float) -> None:
        """Frames keep being read (and commitments opened) while a player thinks."""
        await asyncio.sleep(seconds)
        self.answers.clear()
        await self._play(move)
        early = self.answers.pop(self.inflight, None)
        self.answers.clear()
        if early is not None:
            await self.answered(early)

    async def _play(self, move: tuple) -> None:
        kind, detail = move
        if kind == "commit":
            self.inflight = await self.c.commit(self.game, detail)
            self.inflight_commit = True
            self.times.commits[self.seat].append(self.c.last_send)
            self.run.sample(self.game)
        else:
            cls = m.Place if kind == "place" else m.Remove
            self.inflight = await self.c.send(cls(game=self.game, temple=detail[0], square=detail[1]))
            self.inflight_commit = False


class Slot:
    """Two clients that play game after game against each other."""

    def __init__(self, run: Run, index: int, host: BenchClient, guest: BenchClient, seed: int) -> None:
        self.run = run
        self.index = index
        self.host = host
        self.guest = guest
        self.rng = random.Random(seed)
        self.tables: asyncio.Queue[int | None] = asyncio.Queue()
        self.current: int | None = None  # game in progress
        self.finished_by: set[str] = set()

    async def play(self) -> None:
        ramp = self.run.args["ramp"]
        if ramp:  # stagger the first games evenly over the ramp
            await asyncio.sleep(ramp * self.index / self.run.args["games"])
        try:
            async with asyncio.TaskGroup() as group:  # one side failing ends the other
                group.create_task(self._player(self.host, True))
                group.create_task(self._player(self.guest, False))
        except* (ConnectionError, OSError, asyncio.IncompleteReadError):
            if self.current is not None:
                self.run.stats.games_abandoned += 1
                self.current = None

    async def _player(self, c: BenchClient, is_host: bool) -> None:
        run = self.run
        while True:
            if is_host:
                if not run.may_start():
                    await self.tables.put(None)
                    return
                await c.send(m.CreateTable(clock=run.args["clock"]))
                created = await self._until(c, m.TableCreated)
                game = created.table
                await self.tables.put(game)
                self.current = game
                self.finished_by = set()
                run.stats.games_started += 1
                run.games[game] = GameTimes()
            else:
                table = await self.tables.get()
                if table is None:
                    return
                game = table
                await c.send(m.JoinTable(table=game))
            await self._game(c, game)

    async def _until(self, c: BenchClient, kind: type[M]) -> M:
        while True:
            msg = await self._recv(c)
            if isinstance(msg, kind):
                return msg
            if isinstance(msg, m.Error):
                self.run.stats.errors[msg.code] += 1
                raise ConnectionError(f"{msg.code}: {msg.message}")

    async def _recv(self, c: BenchClient) -> m.Message:
        msg = await c.recv(None)
        c.last_frame = time.monotonic()
        self.run.stats.frames_in += 1
        if isinstance(msg, m.Bye):
            raise ConnectionError(f"bye: {msg.code}")
        return msg

    async def _game(self, c: BenchClient, game: int) -> None:
        run, stats = self.run, self.run.stats
        me = _Mover(c, game, run.games[game], run, self.rng)
        try:
            while True:
                msg = await self._recv(c)
                now = c.last_frame
                if isinstance(msg, (m.Ack, m.Error)):
                    if isinstance(msg, m.Ack):
                        stats.acks_total += 1
                        if run.in_window(now):
                            stats.acks_window += 1
                    else:
                        stats.errors[msg.code] += 1
                    if msg.reply_to is not None:
                        await me.answered(msg)
                    continue
                if not isinstance(msg, (m.GameState, m.Update)) or msg.game != game:
                    continue
                if isinstance(msg, m.GameState):
                    me.seat = msg.seat
                    if msg.reply_to is not None and msg.reply_to == me.inflight:
                        me.inflight = None
                elif me.seat is not None and len(me.times.reveals[me.seat]) < len(me.times.commits[me.seat]) \
                        and any(e.get("type") in REVEAL_EVENTS for e in msg.events):
                    # the first reveal after our commit (later turns of the round reveal more cards)
                    me.times.reveals[me.seat].append(now)
                    run.sample(game)
                if msg.view.get("winner"):
                    self._finished(game, me.seat, now)
                    return
                if me.inflight is None and msg.version >= me.min_version and me.seat is not None:
                    await me.decide(msg.view, m.commitments_of(msg))
        finally:
            if me.thinking is not None:
                me.thinking.cancel()

    def _finished(self, game: int, seat: str | None, now: float) -> None:
        self.finished_by.add(seat or "?")
        if len(self.finished_by) == 2 and self.current == game:
            self.current = None
            self.run.stats.games_completed += 1
            if self.run.in_window(now):
                self.run.stats.games_completed_window += 1
            self.run.games.pop(game, None)


async def _connect(run: Run, name: str, slot: int, limit: asyncio.Semaphore) -> BenchClient:
    """A client of game slot ``slot``, from the loopback address of its slot (``--addresses``)."""
    source = f"127.0.0.{1 + slot % run.args['addresses']}"
    async with limit:
        c = await BenchClient.connect(HOST, run.args["port"], name=name, kind="bot", lobby=False, timeout=30,
                                      local_addr=(source, 0))
    limits = c.welcome.limits if c.welcome else {}
    rate = float(limits.get("messages_per_second", 20.0))
    # the server's burst is not announced; its default is 60 frames
    c.pacer = Pacer(rate * 0.9, max(1, int(run.args["burst"])))
    c.last_frame = time.monotonic()
    return c


async def _watchdog(run: Run, slots: list[Slot]) -> None:
    """Abandon a game whose clients have heard nothing for ``--stall`` seconds."""
    while True:
        await asyncio.sleep(1)
        now = time.monotonic()
        for slot in slots:
            if slot.current is None:
                continue
            if min(now - slot.host.last_frame, now - slot.guest.last_frame) > run.args["stall"]:
                run.stats.stalls += 1
                slot.host.abandon()
                slot.guest.abandon()


async def client_main(args: dict, slot_ids: list[int], ready, go, results) -> None:
    stats = Stats()
    run = Run(args, stats)
    if args["max_games"]:
        run.budget = args["max_games"] // args["client_procs"] + (
            1 if args["worker"] < args["max_games"] % args["client_procs"] else 0)
    limit = asyncio.Semaphore(64)
    clients = []
    for i in slot_ids:
        clients.append(_connect(run, f"h{i}", i, limit))
        clients.append(_connect(run, f"g{i}", i, limit))
    connected = await asyncio.gather(*clients, return_exceptions=True)
    slots = []
    for k, i in enumerate(slot_ids):
        host, guest = connected[2 * k], connected[2 * k + 1]
        if isinstance(host, BaseException) or isinstance(guest, BaseException):
            stats.connect_failures += 1
            for c in (host, guest):
                if isinstance(c, BenchClient):
                    await c.close()
            continue
        slots.append(Slot(run, i, host, guest, seed=args["seed"] * 1_000_003 + i))
    settle_for_serving()  # the server's collector policy: this instrument's own pauses stay out of its figures
    ready.put(len(slots))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    run.t0 = time.monotonic()
    run.bound = run.t0 + args["seconds"]
    cpu0 = _own_cpu()
    watchdog = asyncio.create_task(_watchdog(run, slots))
    tasks = [asyncio.create_task(slot.play()) for slot in slots]
    await asyncio.sleep(max(0.0, run.bound - time.monotonic()))
    run.stopping = True
    stats.cpu_seconds = _own_cpu() - cpu0
    _done, pending = await asyncio.wait(tasks, timeout=args["drain"]) if tasks else (set(), set())
    for slot in slots:
        if slot.current is not None:
            stats.games_abandoned += 1
            slot.current = None
        slot.host.abandon()
        slot.guest.abandon()
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    watchdog.cancel()
    run.count_unrevealed()
    for c in (c for slot in slots for c in (slot.host, slot.guest)):
        if c.pacer is not None:
            stats.paced_frames += c.pacer.waits
            stats.paced_seconds += c.pacer.waited
    results.put(stats)


def client_process(args: dict, slot_ids: list[int], ready, go, results) -> None:
    try:
        asyncio.run(client_main(args, slot_ids, ready, go, results))
    except BaseException as exc:  # the parent must not wait forever
        ready.put(0)
        results.put(exc)
        raise


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ----------------------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def proc_cpu_seconds(pid: int) -> tuple[float, float]:
    """The process's CPU time so far: in user mode, and in the kernel (system calls: its sockets, its database)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")  # utime, stime


def machine_busy_seconds() -> float:
    """CPU-seconds the whole machine spent busy (or stolen), summed over cores."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def proc_status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


#: The clients of this benchmark connect from few addresses (one by default): allow each what one
#: address had before the per-address limits shrank (1000 connections), so that runs compare with
#: earlier ones.
ONE_ADDRESS_FOR_ALL = ("--max-connections-per-address", "1000", "--max-games-per-address", "1000")


def server_options(games: int) -> tuple[str, ...]:
    """The server's options for ``games`` games: ``ONE_ADDRESS_FOR_ALL``, and room for all their
    clients if they are more than the server's default ``max_connections``."""
    needed = 2 * games + 10
    more = ("--max-connections", str(needed)) if needed > Limits().max_connections else ()
    return (*ONE_ADDRESS_FOR_ALL, *more)


def start_server(db: Path, log: Path, profile: str | None, root: Path = ROOT,
                 options: Sequence[str] = ()) -> tuple[subprocess.Popen, int]:
    """``aton-server`` from the tree ``root`` on a free loopback port, with its default
    settings but for ``options`` (more command-line arguments)."""
    for _ in range(5):
        port = free_port()
        cmd = [sys.executable]
        if profile:
            cmd += ["-m", "cProfile", "-o", profile]
        cmd += ["-m", "server.cli", "--host", HOST, "--port", str(port), "--db", str(db), "--log-level", "warning",
                *options]
        proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=log.open("ab"), text=True)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.startswith("listening on"):
            return proc, port
        proc.wait(10)
    raise SystemExit(f"the server did not start; see {log}")


def stop_server(proc: subprocess.Popen) -> int:
    proc.send_signal(2)  # SIGINT: stops cleanly
    try:
        return proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


# ----------------------------------------------------------------------------- main


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))  # nearest rank
    return ordered[k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="concurrent games (default 300)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measurement window (default 60)")
    parser.add_argument("--drain", type=float, default=10.0,
                        help="seconds games in progress get to finish after the window (default 10)")
    parser.add_argument("--max-games", type=int, default=0, help="games started in all (default: no limit)")
    parser.add_argument("--client-procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument("--addresses", type=int, default=1,
                        help="loopback addresses the clients connect from, 127.0.0.1 and on, game slots spread "
                             "over them (default 1; the server allows 1000 connections per address here)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean think time in ms before each decision (default 0: none)")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="start the first games evenly over this many seconds of the window (default 0)")
    parser.add_argument("--clock", default="normal", choices=m.CLOCKS)
    parser.add_argument("--burst", type=int, default=50, help="client-side pacer burst (server allows 60)")
    parser.add_argument("--stall", type=float, default=30.0, help="abandon a game silent this long (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--event-loop", choices=("uvloop", "asyncio"), default=None,
                        help="the server's event loop (default: the server's default)")
    parser.add_argument("--profile-server", metavar="OUT", help="run the server under cProfile, stats to OUT")
    parser.add_argument("--py-spy", metavar="OUT",
                        help="sample the server with py-spy during the window (collapsed stacks to OUT)")
    parser.add_argument("--py-spy-bin", default="py-spy", help="the py-spy executable (default: from PATH)")
    a = parser.parse_args()
    if a.games < 1 or a.client_procs < 1 or a.seconds <= 0 or not 1 <= a.addresses <= 254:
        parser.error("--games, --client-procs and --seconds must be positive, --addresses from 1 to 254")
    procs = min(a.client_procs, a.games)

    command = "$ python " + " ".join(shlex.quote(x) for x in [os.path.relpath(sys.argv[0], Path.cwd()), *sys.argv[1:]])
    with tempfile.TemporaryDirectory(prefix="aton-bench-") as tmp:
        db, log = Path(tmp) / "bench.db", Path(tmp) / "server.log"
        loop = ("--event-loop", a.event_loop) if a.event_loop else ()
        server, port = start_server(db, log, a.profile_server, options=(*server_options(a.games), *loop))
        try:
            args = {**vars(a), "port": port, "client_procs": procs}
            ctx = mp.get_context("spawn")
            ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
            workers = []
            for w in range(procs):
                slot_ids = list(range(w, a.games, procs))
                p = ctx.Process(target=client_process, args=({**args, "worker": w}, slot_ids, ready, go, results))
                p.start()
                workers.append(p)
            t_connect = time.monotonic()
            slots_ready = sum(ready.get() for _ in workers)
            connect_s = time.monotonic() - t_connect
            rss_before = proc_status_kb(server.pid, "VmRSS")
            (user0, system0), busy0 = proc_cpu_seconds(server.pid), machine_busy_seconds()
            spy = None
            if a.py_spy:
                spy = subprocess.Popen([a.py_spy_bin, "record", "--pid", str(server.pid), "--rate", "250",
                                        "--duration", str(max(1, int(a.seconds))), "--format", "raw",
                                        "--output", a.py_spy, "--nonblocking"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            go.set()
            time.sleep(a.seconds)
            user1, system1 = proc_cpu_seconds(server.pid)
            server_user, server_system = user1 - user0, system1 - system0
            server_cpu = server_user + server_system
            machine_busy = machine_busy_seconds() - busy0
            parts = [results.get() for _ in workers]
            for p in workers:
                p.join(30)
            if spy is not None:
                spy.wait(30)
            peak_kb = proc_status_kb(server.pid, "VmHWM")
            rss_end = proc_status_kb(server.pid, "VmRSS")
        finally:
            code = stop_server(server)
        warnings = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    failed = [p for p in parts if not isinstance(p, Stats)]
    if failed:
        raise SystemExit(f"a client process failed: {failed[0]!r}")

    total = Stats()
    for s in parts:
        for name in ("acks_window", "acks_total", "games_started", "games_completed", "games_completed_window",
                     "games_abandoned", "frames_in", "paced_frames", "paced_seconds", "stalls", "unrevealed",
                     "connect_failures", "cpu_seconds"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
        total.latencies_ms.extend(s.latencies_ms)
        total.errors.update(s.errors)
    lat = total.latencies_ms
    p50, p99 = percentile(lat, 50), percentile(lat, 99)

    print(command)
    print(f"{a.games} concurrent games ({slots_ready} seated, {2 * slots_ready} clients in {procs} client "
          f"process{'es' if procs > 1 else ''}), {a.seconds:g} s window, think time {a.think:g} ms, "
          f"ramp {a.ramp:g} s, "
          f"clock {a.clock}; connecting took {connect_s:.1f} s")
    print(f"games completed: {total.games_completed_window} in the window "
          f"({total.games_completed_window / a.seconds:.1f}/s); {total.games_completed} in all of "
          f"{total.games_started} started, {total.games_abandoned} abandoned at the bound")
    print(f"moves per second: {total.acks_window / a.seconds:,.0f} accepted (acks) "
          f"({total.acks_window:,} acks in the window)")
    if lat:
        print(f"second commitment -> reveal at both players: p50 {p50:.1f} ms, p99 {p99:.1f} ms "
              f"(max {max(lat):.1f} ms, mean {statistics.fmean(lat):.1f} ms, {len(lat):,} rounds"
              + (f"; {total.unrevealed} more never revealed before the end" if total.unrevealed else "") + ")")
    else:
        print("second commitment -> reveal at both players: no round completed in the window")
    print(f"server peak RSS: {peak_kb / 1024:.1f} MB (VmHWM; {rss_before / 1024:.1f} MB after connecting, "
          f"{rss_end / 1024:.1f} MB at the end)")
    print(f"CPU in the window: server {100 * server_cpu / a.seconds:.0f}% of one core, clients "
          f"{100 * total.cpu_seconds / a.seconds:.0f}% of one core in all ({os.cpu_count()} cores); "
          f"server CPU per accepted move {1000 * server_cpu / max(1, total.acks_window):.3f} ms "
          f"({1000 * server_user / max(1, total.acks_window):.3f} user, "
          f"{1000 * server_system / max(1, total.acks_window):.3f} system)")
    others = max(0.0, machine_busy - server_cpu - total.cpu_seconds)
    print(f"other processes on the machine: {100 * others / a.seconds:.0f}% of one core"
          + ("  <-- the machine was not quiet: figures are pessimistic" if others > 0.1 * a.seconds else ""))
    errors = ", ".join(f"{k} x{v}" for k, v in total.errors.most_common()) or "none"
    print(f"errors from the server: {errors}; frames delayed by the client pacer: {total.paced_frames:,} "
          f"({total.paced_seconds:.1f} s in all); stalled games: {total.stalls}; "
          f"failed slots: {total.connect_failures}")
    if warnings:
        print(f"server log: {len(warnings)} line(s), last: {warnings[-1]}")
    if code != 0:
        print(f"server exit status: {code}")
    met = slots_ready >= 300 and lat and p99 < 50
    print(f"target (300 concurrent games, p99 < 50 ms): {'met' if met else 'not met'}")


if __name__ == "__main__":
    main()
