"""SSH gateway benchmark: 1, 10, 50 and 500 concurrent SSH sessions on loopback, each way of running them.

    python bench/ssh_sessions.py [--ways fork,inprocess] [--sessions 1,10,50,500] [--presses 20]
                                 [--app-hosts N] [--timeout S] [--no-fork-server] [--gateways N]

For each way (``aton-server --ssh-sessions fork|inprocess``) it starts ``aton-server --port 0
--ssh-port 0`` as a subprocess (temporary database; game server and gateway in that one
process, as in production), waits until its helpers (the fork server, or the app hosts)
have done their imports, then, for each count N, opens N SSH connections at once (asyncssh
client, one ed25519 key each, a PTY of 100x30, TERM xterm-256color) and prints:

- first frame: from the start of the SSH connection to the first output that contains
  the lobby's top bar ("lobby of"), p50/p99/max over the N sessions (``--batch``, below);
- key to redraw: with the N sessions connected and idle, one active session presses a key
  ``--presses`` times, waiting for quiet in between; time from the key's write to the first
  output after it, p50/p99.  The key (``--key``): Tab (the focus moves on in the lobby:
  about 12 KB of screen redrawn), or F2 (the light/dark theme: every style recomputed, the
  whole screen repainted);
- memory: the PSS (/proc/PID/smaps_rollup: each shared page divided among its users) of
  everything that serves them — the server process (game server and gateway), its helper
  processes and, the fork way, every session's client — with the N sessions connected and
  idle, and its growth over the same before they came divided by N: what a session costs;
- CPU per login: the CPU time of all those processes from the first connection until
  every session is in its lobby and the screens are quiet, divided by N (the lobby's
  updates for the players arriving included; the benchmark's own SSH clients not).
  Quiet: no output for a second — the inprocess way, for longer than an app host's
  longest wait before it draws a lobby's update, which grows with its apps
  (``aton_tui.app.lobby_redraw_delay``: 5 s for 100 apps).

The SSH clients run in this process, so their CPU competes with the server's on the same
machine.  More sessions than ``--batch`` (50) log in a batch at a time, each batch when the
one before is in its lobby: 500 at once on a small machine measure the lobby's updates
(each login changes the players list of every client in the lobby), not the sessions'
cost.  Only 127.0.0.1.

``--gateways N`` runs the gateways apart from the arbiter instead: ``aton-server --port 0``
(no SSH of its own, trusting the gateways' keys) and N ``aton-server gateway`` processes in
front of it, the sessions spread over them in turn (as round-robin DNS would); memory and CPU
are then those of the arbiter, every gateway and everything below them.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from aton_tui.app import lobby_redraw_delay
from protocol.gateway_assertions import public_raw, raw_key_line
from protocol.handoff import APP_HOST_NAME, CLIENT_MODULE, CLIENT_NAME, FORKSERVER_NAME
from server.config import SESSION_WAYS, SSHConfig
from server.gateway_keys import GATEWAY_KEY_FILE, load_or_create_gateway_key

ROOT = Path(__file__).resolve().parent.parent
LOBBY = b"lobby of"
KEYS = {"tab": b"\t", "f2": b"\x1bOQ"}
TICKS = os.sysconf("SC_CLK_TCK")
HELPER_NAMES = (FORKSERVER_NAME, APP_HOST_NAME)


def pss(pid: int) -> int:
    """KiB of PSS of one process (0 once it has gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


def identity(pid: int) -> tuple[bytes, bytes]:
    """(command line, name) of a process."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes(), Path(f"/proc/{pid}/comm").read_bytes().strip()
    except (FileNotFoundError, ProcessLookupError):
        return b"", b""


def helpers(server: int) -> list[int]:
    """The server's fork server or app hosts."""
    return [child for child in children(server) if identity(child)[1] in HELPER_NAMES]


def clients(server: int) -> list[int]:
    """The server's game client processes (the fork way): its own children and its fork server's."""
    def is_client(p: int) -> bool:
        cmdline, name = identity(p)
        return CLIENT_MODULE.encode() in cmdline or name == CLIENT_NAME

    found = [child for child in children(server) if is_client(child)]
    for helper in helpers(server):
        found += [child for child in children(helper) if is_client(child)]
    return found


def serving(roots: list[int]) -> list[int]:
    """Every process that serves the sessions: the server processes (``roots``: the arbiter with its
    gateway, or the arbiter and the gateways apart), their helpers and their clients."""
    return [pid for root in roots for pid in (root, *helpers(root), *clients(root))]


def clients_of(roots: list[int]) -> list[int]:
    return [pid for root in roots for pid in clients(root)]


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


class CpuMeter:
    """CPU time of the serving processes since ``start``, clients that have ended included."""

    def __init__(self, roots: list[int]) -> None:
        self.roots = roots
        self.seen: dict[int, float] = {}
        self.start = {pid: cpu_seconds(pid) for pid in serving(roots)}

    def sample(self) -> None:
        for pid in serving(self.roots):
            self.seen[pid] = max(self.seen.get(pid, 0.0), cpu_seconds(pid))

    def used(self) -> float:
        self.sample()
        return sum(seconds - self.start.get(pid, 0.0) for pid, seconds in self.seen.items())


async def helpers_warm(roots: list[int], timeout: float = 90.0) -> list[int]:
    """Wait until the servers' helpers have done their imports: their CPU time stops growing."""
    end = time.monotonic() + timeout
    last, steady = -1.0, 0
    while time.monotonic() < end:
        found = [pid for root in roots for pid in helpers(root)]
        if len({root for root in roots if helpers(root)}) == len(roots):
            ticks = sum(cpu_seconds(pid) for pid in found)
            steady = steady + 1 if ticks == last else 0
            last = ticks
            if steady >= 5:
                return found
        await asyncio.sleep(0.1)
    return [pid for root in roots for pid in helpers(root)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    if not values:
        return "none"
    return (f"p50 {1000 * statistics.median(values):6.0f} ms  p99 {1000 * pct(values, 0.99):6.0f} ms  "
            f"max {1000 * max(values):6.0f} ms")


class Screen(asyncssh.SSHClientSession):
    def __init__(self) -> None:
        self.output = bytearray()
        self.last_output = 0.0
        self.first_lobby: float | None = None
        self.got = asyncio.Event()

    def data_received(self, data: bytes, datatype) -> None:
        now = time.monotonic()
        self.output += data
        self.last_output = now
        if self.first_lobby is None and LOBBY in self.output:
            self.first_lobby = now
        self.got.set()


@dataclass
class Opened:
    started: float
    conn: asyncssh.SSHClientConnection
    chan: asyncssh.SSHClientChannel
    screen: Screen


async def open_session(port: int, index: int, key: asyncssh.SSHKey) -> Opened:
    started = time.monotonic()
    conn = await asyncssh.connect("127.0.0.1", port, username=f"bench{index}", client_keys=[key],
                                  known_hosts=None, agent_path=None, config=None)
    chan, screen = await conn.create_session(Screen, term_type="xterm-256color", term_size=(100, 30),
                                             encoding=None)
    assert isinstance(screen, Screen)
    return Opened(started, conn, chan, screen)


async def quiet(screens: list[Screen], for_seconds: float = 0.4, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(time.monotonic() - s.last_output >= for_seconds for s in screens):
            return
        await asyncio.sleep(0.05)


async def key_to_redraw(active: Opened, key: bytes, presses: int) -> list[float]:
    """One session presses ``key`` ``presses`` times; the time to the first output after each."""
    latencies = []
    for _ in range(presses):
        await quiet([active.screen], 0.3)
        active.screen.got.clear()
        sent = time.monotonic()
        try:
            active.chan.write(key)
        except BrokenPipeError:  # the session has ended: what it measured so far
            break
        try:
            await asyncio.wait_for(active.screen.got.wait(), 10)
        except TimeoutError:
            continue
        latencies.append(active.screen.last_output - sent)
    return latencies


def settle_seconds(way: str, n: int, args: argparse.Namespace) -> float:
    """How long every screen must have been quiet before ``n`` sessions count as idle: longer than
    the longest wait of an app host's lobby redraws (``aton_tui.app.lobby_redraw_delay``), which
    grows with the apps each host draws."""
    if way != "inprocess":
        return 1.0
    hosts = args.app_hosts * max(1, args.gateways)
    return max(1.0, lobby_redraw_delay(math.ceil(n / hosts)) + 0.5)


async def run_count(roots: list[int], ports: list[int], n: int, args: argparse.Namespace, settle: float) -> dict:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(n)]
    memory_before = sum(pss(pid) for pid in serving(roots))
    meter = CpuMeter(roots)
    opened: list[Opened] = []
    end = time.monotonic() + args.timeout
    for first in range(0, n, args.batch):  # a batch at once, the next when all of it is in its lobby
        batch = await asyncio.gather(*(open_session(ports[i % len(ports)], i, keys[i])
                                       for i in range(first, min(n, first + args.batch))))
        opened += batch
        while any(o.screen.first_lobby is None for o in batch) and time.monotonic() < end:
            meter.sample()
            await asyncio.sleep(0.05)
    screens = [o.screen for o in opened]
    firsts = [o.screen.first_lobby - o.started for o in opened if o.screen.first_lobby is not None]
    await quiet(screens, settle, args.timeout)
    cpu = meter.used()
    processes = serving(roots)
    memory = sum(pss(pid) for pid in processes)
    latencies = await key_to_redraw(opened[0], KEYS[args.key], args.presses)
    for o in opened:
        o.conn.close()
    await asyncio.gather(*(o.conn.wait_closed() for o in opened))
    end = time.monotonic() + 30
    while clients_of(roots) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    return {
        "missing": n - len(firsts), "first": firsts, "latency": latencies, "cpu": cpu / n,
        "memory": memory, "per_session": (memory - memory_before) / n, "processes": len(processes),
        "left_behind": len(clients_of(roots)),
    }


def ssh_options(way: str, args: argparse.Namespace) -> list[str]:
    """The SSH gateway's options: limits out of the way, and the way its sessions run."""
    most = str(max(args.sessions))
    limits = ["--ssh-max-sessions", most, "--ssh-max-per-address", most, "--ssh-max-unauthenticated", most,
              "--ssh-max-unauthenticated-per-address", most, "--ssh-reserved-logins", "0", "--ssh-login-timeout", "300"]
    options = ["--ssh-port", "0", "--ssh-sessions", way, "--ssh-app-hosts", str(args.app_hosts), *limits]
    return [*options, "--ssh-no-fork-server"] if args.no_fork_server else options


SERVER = [sys.executable, "-m", "server.cli", "--log-level", "warning"]


def start_servers(tmp: str, way: str, args: argparse.Namespace) -> tuple[list[subprocess.Popen], list[int]]:
    """The arbiter with its SSH gateway, or (``--gateways N``) the arbiter and N gateways apart from it:
    the processes, the arbiter's first, and the SSH ports."""
    def started(cmd: list[str]) -> tuple[subprocess.Popen, str]:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        return proc, proc.stdout.readline()

    if not args.gateways:
        arbiter, _ = started([*SERVER, "--port", "0", "--db", f"{tmp}/aton.db", *ssh_options(way, args)])
        assert arbiter.stdout is not None
        return [arbiter], [int(arbiter.stdout.readline().rsplit(":", 1)[1])]
    trusted = Path(tmp) / "trusted_gateways"
    for n in range(args.gateways):  # each gateway's key, made before it starts, as its first start would
        key = load_or_create_gateway_key(Path(tmp) / f"gateway{n}" / GATEWAY_KEY_FILE)
        with trusted.open("a") as lines:
            lines.write(f"{raw_key_line(public_raw(key))} gateway{n}\n")
    arbiter, line = started([*SERVER, "--port", "0", "--db", f"{tmp}/aton.db", "--trusted-gateways", str(trusted),
                             "--gateway-address", "127.0.0.1"])
    arbiter_port = line.rsplit(":", 1)[1].strip()
    gateways = [started([*SERVER, "gateway", "--arbiter", f"127.0.0.1:{arbiter_port}", "--data-dir",
                         f"{tmp}/gateway{n}", *ssh_options(way, args)]) for n in range(args.gateways)]
    return [arbiter, *(proc for proc, _ in gateways)], [int(line.rsplit(":", 1)[1]) for _, line in gateways]


async def run_way(way: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="aton-ssh-bench-") as tmp:
        procs, ports = start_servers(tmp, way, args)
        roots = [proc.pid for proc in procs]
        try:
            gateways = roots[1:] or roots
            found = await helpers_warm(gateways) if way == "inprocess" or not args.no_fork_server else []
            idle = sum(pss(pid) for pid in serving(roots))
            apart = f"; {args.gateways} gateway(s) apart from the arbiter" if args.gateways else ""
            print(f"\n== --ssh-sessions {way}{apart}: cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}; "
                  f"server(s) {roots} and {len(found)} helper(s), PSS {idle / 1024:.0f} MiB before any session")
            for n in args.sessions:
                r = await run_count(roots, ports, n, args, settle_seconds(way, n, args))
                missing = f"  ({r['missing']} without a lobby in {args.timeout:g} s)" if r["missing"] else ""
                batches = f" in batches of {args.batch}" if n > args.batch else " at once"
                print(f"{n} session(s){batches}{missing}, load average {os.getloadavg()[0]:.1f} after")
                print(f"  first frame (lobby)   {ms(r['first'])}")
                print(f"  key to redraw ({args.key:3})  {ms(r['latency'])}  (one active session, "
                      f"{len(r['latency'])} presses)")
                print(f"  memory                {r['memory'] / 1024:.0f} MiB PSS in all ({r['processes']} processes), "
                      f"{r['per_session'] / 1024:.2f} MiB a session")
                print(f"  CPU per login         {r['cpu']:.3f} s; client processes left after closing: "
                      f"{r['left_behind']}")
        finally:
            for proc in reversed(procs):
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)


async def main_async(args: argparse.Namespace) -> None:
    print(f"$ {shlex.join([sys.executable, *sys.argv])}")
    for way in args.ways:
        await run_way(way, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ways", default=",".join(SESSION_WAYS), type=lambda s: s.split(","),
                        help=f"of {', '.join(SESSION_WAYS)} (default: all)")
    parser.add_argument("--sessions", default="1,10,50,500", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--batch", type=int, default=50, help="sessions that log in at once, at most (default 50)")
    parser.add_argument("--key", choices=sorted(KEYS), default="tab", help="the active session's key (default tab)")
    parser.add_argument("--app-hosts", type=int, default=SSHConfig.app_hosts,
                        help=f"app host processes for inprocess (default {SSHConfig.app_hosts})")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every first frame")
    parser.add_argument("--gateways", type=int, default=0, metavar="N",
                        help="run N SSH gateways apart from the arbiter (aton-server gateway) instead of its own")
    parser.add_argument("--no-fork-server", action="store_true",
                        help="the fork way with --ssh-no-fork-server: each client a new interpreter")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
