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
import functools
import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aton_tui import app_host
from aton_tui.app import AtonApp, lobby_redraw_delay
from aton_tui.channel_driver import ChannelDriver
from aton_tui.forkserver import warm_up
from protocol.client import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_start import SIZE, Drawn  # (a benchmark beside this one)

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
    started = time.monotonic()
    apps, screens = [], []
    for n in range(args.apps):
        screen = Drawn(started)
        env = {"TERM": "xterm-256color", "ATON_HOSTED": "ssh"}
        app = app_host.client_app(["connect", f"127.0.0.1:{port}", f"--name=idle{n:03d}"], env)
        app_host.adapt_console(app, env)
        if isinstance(app, AtonApp) and not args.unpaced:
            app.lobby_redraw_delay = lobby_redraw_delay(args.apps)  # as the app host spaces them
        app.driver_class = functools.partial(  # type: ignore[assignment]  # as the app host binds it
            ChannelDriver, fd=screen.app_end.fileno(), pending_output_max=1 << 20,
            terminal_size=lambda: SIZE, on_overflow=lambda: None)
        loop.add_reader(screen.ours, screen.read)
        apps.append((app, loop.create_task(app.run_async())))
        screens.append(screen)
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
    for app, _ in apps:
        app.exit()
    await asyncio.gather(*(task for _, task in apps), return_exceptions=True)
    for screen in screens:
        loop.remove_reader(screen.ours)
        screen.ours.close()
        screen.app_end.close()


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
    with tempfile.TemporaryDirectory(prefix="aton-lobby-churn-") as tmp:
        server = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--db", f"{tmp}/aton.db",
                                   "--log-level", "warning", "--max-connections-per-address", "100000"],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        try:
            port = int(server.stdout.readline().rsplit(":", 1)[1])
            app_host.isolate()  # the app host's own set-up, then its imports frozen as it does
            app_host.share_parsed_stylesheets()
            warm_up()
            gc.collect()
            gc.freeze()
            asyncio.run(churn(port, args))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
