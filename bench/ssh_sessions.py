"""SSH gateway benchmark: 1, 10 and 50 concurrent SSH sessions on loopback.

    python bench/ssh_sessions.py [--sessions 1,10,50] [--presses 5] [--timeout S] [--no-fork-server]

Starts ``aton-server --port 0 --ssh-port 0`` as a subprocess (temporary database
and data directory; game server and gateway in that one process, as in
production), waits until its fork server has imported the client (with
``--no-fork-server`` there is none: each client is a new interpreter), then, for each
count N, opens N SSH connections at once (asyncssh client, one ed25519 key each, a PTY
of 100x30, TERM xterm-256color) and prints:

- time to first frame: from the start of the SSH connection to the first output
  that contains the lobby's top bar ("lobby of"), p50/p95/max over the N sessions;
  and to the first output byte at all;
- key-to-redraw latency: with all N sessions in the lobby, every session presses F2
  (the light/dark theme switch: the whole screen is repainted) at the same moment,
  ``--presses`` times, waiting for quiet in between; time from the key's write to
  the first output after it, p50/p95 over all presses;
- memory: the server process's PSS/RSS before and with the N sessions (its growth
  divided by N is the gateway's own cost of a session), the clients' PSS/RSS
  (/proc/PID/smaps_rollup; PSS shares each shared page among its users, so a forked
  client's PSS already counts its share of the pages it still shares with the fork
  server), and the fork server's own PSS, divided among the N sessions in the total.

The SSH clients run in this process, so their CPU use competes with the server's; on
a 2-core machine the first-frame times of 10 and 50 sessions are dominated by the
CPU each game client needs to start.  Only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

from protocol.handoff import CLIENT_MODULE, CLIENT_NAME, FORKSERVER_NAME

ROOT = Path(__file__).resolve().parent.parent
LOBBY = b"lobby of"
F2 = b"\x1bOQ"


def memory(pid: int) -> tuple[int, int]:
    """(PSS, RSS) in KiB of one process."""
    values = smaps(pid)
    return values["Pss"], values["Rss"]


def private(pid: int) -> int:
    """KiB only this process maps (USS): what it costs beyond the pages it shares."""
    values = smaps(pid)
    return values["Private_Clean"] + values["Private_Dirty"]


def smaps(pid: int) -> dict[str, int]:
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            values[name] = int(rest.split()[0])
    return values


def children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    except FileNotFoundError:
        pass
    return found


def identity(pid: int) -> tuple[bytes, bytes]:
    """(command line, name) of a process."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes(), Path(f"/proc/{pid}/comm").read_bytes().strip()
    except (FileNotFoundError, ProcessLookupError):
        return b"", b""


def fork_servers(pid: int) -> list[int]:
    return [child for child in children(pid) if identity(child)[1] == FORKSERVER_NAME]


def client_children(pid: int) -> list[int]:
    """The server's game clients: its own children (spawned) and its fork server's (forked)."""
    def is_client(p: int) -> bool:
        cmdline, name = identity(p)
        return CLIENT_MODULE.encode() in cmdline or name == CLIENT_NAME

    found = [child for child in children(pid) if is_client(child)]
    for server in fork_servers(pid):
        found += [child for child in children(server) if is_client(child)]
    return found


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


async def fork_server_warm(server_pid: int, timeout: float = 60.0) -> int | None:
    """Wait until the server's fork server (if any) has done its imports: its CPU time stops growing."""
    end = time.monotonic() + timeout
    last, steady = -1, 0
    while time.monotonic() < end:
        servers = fork_servers(server_pid)
        if servers:
            ticks = cpu_ticks(servers[0])
            steady = steady + 1 if ticks == last else 0
            last = ticks
            if steady >= 5:
                return servers[0]
        await asyncio.sleep(0.1)
    return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    return (f"p50 {1000 * statistics.median(values):7.0f} ms  p95 {1000 * pct(values, 0.95):7.0f} ms  "
            f"max {1000 * max(values):7.0f} ms")


class Screen(asyncssh.SSHClientSession):
    def __init__(self) -> None:
        self.output = bytearray()
        self.last_output = 0.0
        self.first_byte: float | None = None
        self.first_lobby: float | None = None
        self.got = asyncio.Event()

    def data_received(self, data: bytes, datatype) -> None:
        now = time.monotonic()
        self.output += data
        self.last_output = now
        if self.first_byte is None:
            self.first_byte = now
        if self.first_lobby is None and LOBBY in self.output:
            self.first_lobby = now
        self.got.set()


async def open_session(port: int, index: int, key: asyncssh.SSHKey):
    started = time.monotonic()
    conn = await asyncssh.connect("127.0.0.1", port, username=f"bench{index}", client_keys=[key],
                                  known_hosts=None, agent_path=None, config=None)
    chan, screen = await conn.create_session(Screen, term_type="xterm-256color", term_size=(100, 30),
                                             encoding=None)
    return started, conn, chan, screen


async def quiet(screens: list[Screen], for_seconds: float = 0.4, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(time.monotonic() - s.last_output >= for_seconds for s in screens):
            return
        await asyncio.sleep(0.05)


async def run_count(server_pid: int, port: int, n: int, presses: int, timeout: float) -> dict:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(n)]
    base_pss, base_rss = memory(server_pid)
    opened = await asyncio.gather(*(open_session(port, i, k) for i, k in enumerate(keys)))
    screens = [s for _, _, _, s in opened]
    end = time.monotonic() + timeout
    while any(s.first_lobby is None for s in screens) and time.monotonic() < end:
        await asyncio.sleep(0.02)
    missing = sum(s.first_lobby is None for s in screens)
    firsts = [s.first_lobby - started for started, _, _, s in opened if s.first_lobby is not None]
    bytes_first = [s.first_byte - started for started, _, _, s in opened if s.first_byte is not None]
    await quiet(screens, 1.0)
    pss, rss = memory(server_pid)
    clients = client_children(server_pid)
    child_mem = [memory(pid) for pid in clients]
    child_uss = [private(pid) for pid in clients]
    forkserver_pss = sum(memory(pid)[0] for pid in fork_servers(server_pid))
    latencies: list[float] = []
    for _ in range(presses):
        await quiet(screens)
        for s in screens:
            s.got.clear()
        sent = time.monotonic()
        for _, _, chan, _ in opened:
            chan.write(F2)

        async def first_output(screen: Screen) -> float | None:
            try:
                await asyncio.wait_for(screen.got.wait(), 10)
            except TimeoutError:
                return None
            return screen.last_output if screen.first_byte else None

        arrivals = await asyncio.gather(*(first_output(s) for s in screens))
        latencies += [a - sent for a in arrivals if a is not None]
    for _, conn, _, _ in opened:
        conn.close()
    await asyncio.gather(*(conn.wait_closed() for _, conn, _, _ in opened))
    end = time.monotonic() + 15
    while client_children(server_pid) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    return {
        "n": n, "missing": missing, "first": firsts, "first_byte": bytes_first, "latency": latencies,
        "server_growth": ((pss - base_pss) / n, (rss - base_rss) / n),
        "children": len(clients),
        "forkserver_pss": forkserver_pss,
        "child_pss": statistics.mean(p for p, _ in child_mem) if child_mem else 0,
        "child_rss": statistics.mean(r for _, r in child_mem) if child_mem else 0,
        "child_uss": statistics.mean(child_uss) if child_uss else 0,
        "left_behind": len(client_children(server_pid)),
    }


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="aton-ssh-bench-") as tmp:
        limits = ["--ssh-max-sessions", "500", "--ssh-max-per-address", "500", "--ssh-max-unauthenticated", "500",
                  "--ssh-max-unauthenticated-per-address", "500", "--ssh-login-timeout", "120"]
        cmd = [sys.executable, "-m", "server.cli", "--port", "0", "--ssh-port", "0", "--db", f"{tmp}/aton.db",
               "--log-level", "warning", *limits]
        if args.no_fork_server:
            cmd.append("--ssh-no-fork-server")
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        try:
            proc.stdout.readline()
            port = int(proc.stdout.readline().rsplit(":", 1)[1])
            forkserver = None if args.no_fork_server else await fork_server_warm(proc.pid)
            print(f"$ {shlex.join([sys.executable, *sys.argv])}")
            print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at the start; "
                  f"server pid {proc.pid}, idle PSS/RSS {memory(proc.pid)[0] / 1024:.1f}/"
                  f"{memory(proc.pid)[1] / 1024:.1f} MiB")
            if forkserver:
                print(f"fork server pid {forkserver}, PSS/RSS {memory(forkserver)[0] / 1024:.1f}/"
                      f"{memory(forkserver)[1] / 1024:.1f} MiB before any session")
            else:
                print("no fork server: each session's client is a new interpreter")
            for n in args.sessions:
                r = await run_count(proc.pid, port, n, args.presses, args.timeout)
                print(f"\n{n} session(s){'  (' + str(r['missing']) + ' without a lobby)' if r['missing'] else ''}")
                print(f"  first frame (lobby)  {ms(r['first'])}")
                print(f"  first output byte    {ms(r['first_byte'])}")
                print(f"  key to redraw (F2)   {ms(r['latency'])}  ({len(r['latency'])} presses)")
                share = r["forkserver_pss"] / n
                print(f"  memory per session   children PSS {r['child_pss'] / 1024:.1f} MiB / RSS "
                      f"{r['child_rss'] / 1024:.1f} MiB / private {r['child_uss'] / 1024:.1f} MiB "
                      f"(mean of {r['children']}); server growth PSS "
                      f"{r['server_growth'][0] / 1024:.2f} MiB / RSS {r['server_growth'][1] / 1024:.2f} MiB")
                if r["forkserver_pss"]:
                    print(f"                       fork server PSS {r['forkserver_pss'] / 1024:.1f} MiB "
                          f"({share / 1024:.2f} MiB a session)")
                print(f"  total per session    PSS {(r['child_pss'] + share + r['server_growth'][0]) / 1024:.1f} MiB; "
                      f"children left after closing: {r['left_behind']}")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1,10,50", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for every first frame")
    parser.add_argument("--no-fork-server", action="store_true",
                        help="run the server with --ssh-no-fork-server: each client a new interpreter")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
