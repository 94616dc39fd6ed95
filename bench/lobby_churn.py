"""What the lobby's churn costs a hosted client: players arriving while N apps sit in their lobby.

    python bench/lobby_churn.py [--apps 20] [--arrivals 300] [--rate 20] [--profile FILE]

Starts ``aton-server --port 0`` as a subprocess (temporary database, default settings: the
lobby's updates go out in batches every ``lobby_update_interval``), runs N ``AtonApp``s in this
process the way an app host runs them (as ``bench/app_start.py`` does: each drawn by a
``ChannelDriver`` on a socket pair of its own, 100x30), waits until every one shows its lobby
and has been quiet for a second, then has a second subprocess connect ``--arrivals`` players
(protocol clients, not subscribed to the lobby, kept connected) at ``--rate`` a second, and
prints this process's CPU time from the first arrival until every app has drawn the last of
them and been quiet for a second: per app and per arrival, with the bytes drawn.  That is an
app host's cost of each login for each session idle in its lobby, which at hundreds of
sessions is most of the app hosts' work (``bench/ssh_sessions.py --sessions 500``).
``--profile FILE`` writes a cProfile of the churn (``python -m pstats FILE``).  Only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import subprocess
import sys
import time
from pathlib import Path

from aton_tui.app import lobby_redraw_delay
from protocol.client import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_start import Drawn, end_apps, host_apps, served  # (a benchmark beside this one)

ROOT = Path(__file__).resolve().parent.parent
QUIET = 1.0  # seconds without output from any app: the churn has been drawn


async def arrive(port: int, count: int, rate: float) -> None:
    """The second subprocess: ``count`` players connect at ``rate`` a second and stay."""
    clients = []
    for n in range(count):
        clients.append(await Client.connect("127.0.0.1", port, name=f"arrival{n:04d}", lobby=False))
        await asyncio.sleep(1 / rate)
    print("arrived", flush=True)
    await asyncio.sleep(3600)


async def quiet(screens: list[Drawn], seconds: float) -> None:
    while time.monotonic() - max(screen.last for screen in screens) < seconds:
        await asyncio.sleep(0.05)


async def churn(port: int, args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    apps, screens = host_apps(port, [f"idle{n:03d}" for n in range(args.apps)], time.monotonic(),
                              None if args.unpaced else lobby_redraw_delay(args.apps))
    while any(screen.first is None for screen in screens):
        await asyncio.sleep(0.01)
    await quiet(screens, QUIET)
    drawn = sum(len(screen.output) for screen in screens)
    profile = cProfile.Profile() if args.profile else None
    arrivals = subprocess.Popen([sys.executable, __file__, "--arrive", str(port), "--arrivals", str(args.arrivals),
                                 "--rate", str(args.rate)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        if profile is not None:
            profile.enable()
        begun, cpu = time.monotonic(), time.process_time()
        assert arrivals.stdout is not None
        await loop.run_in_executor(None, arrivals.stdout.readline)  # every arrival connected
        arrived = time.monotonic() - begun
        await quiet(screens, QUIET)
        used = time.process_time() - cpu
        settled = time.monotonic() - begun - QUIET
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
    finally:
        arrivals.terminate()
        arrivals.wait(timeout=30)
    bytes_drawn = sum(len(screen.output) for screen in screens) - drawn
    per = args.apps * args.arrivals
    print(f"{args.arrivals} arrivals at {args.rate:g}/s ({arrived:.1f} s) while {args.apps} apps sit in their lobby: "
          f"drawn {settled:.1f} s after the first; CPU {used:.2f} s in all, {1000 * used / per:.2f} ms an app an "
          f"arrival; {bytes_drawn / per:.0f} bytes drawn an app an arrival")
    await end_apps(apps, screens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--arrivals", type=int, default=300)
    parser.add_argument("--rate", type=float, default=20.0, help="arrivals a second (default 20)")
    parser.add_argument("--unpaced", action="store_true",
                        help="every app redraws its lobby as a lone app would (not spaced by the app count)")
    parser.add_argument("--profile", type=Path, default=None, metavar="FILE", help="write a cProfile here")
    parser.add_argument("--arrive", type=int, default=None, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.arrive is not None:
        asyncio.run(arrive(args.arrive, args.arrivals, args.rate))
        return
    print("$ python bench/lobby_churn.py " + " ".join(sys.argv[1:]))
    with served("--max-connections-per-address", "100000") as port:
        asyncio.run(churn(port, args))


if __name__ == "__main__":
    main()
