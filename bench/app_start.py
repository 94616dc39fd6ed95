"""What a game client costs to start in an app host: N apps logging in at once, CPU per app.

    python bench/app_start.py [--apps 10] [--profile FILE]

Starts ``aton-server --port 0`` as a subprocess (temporary database, default settings), then
runs N ``AtonApp``s in this process the way an app host runs them (``aton_tui.app_host``:
the same process-wide set-up, each app built by ``client_app`` from the gateway's arguments
and drawn by a ``ChannelDriver`` on a socket pair of its own, 100x30), all started at once,
and prints this process's CPU time until every app has drawn its lobby (the output holds
its top bar, "lobby of") and in the second after, when the lobby's updates for the others'
arrivals are drawn: per app, the client's share of ``bench/ssh_sessions.py``'s "CPU per
login" without the SSH gateway and the server.  ``--profile FILE`` writes a cProfile of it
(read it with ``python -m pstats FILE``).  Only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import gc
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from textual.app import App

from aton_tui import app_host
from aton_tui.app import AtonApp
from aton_tui.channel_driver import ChannelDriver
from aton_tui.forkserver import warm_up
from aton_tui.shared_styles import share_styles

ROOT = Path(__file__).resolve().parent.parent
LOBBY = b"lobby of"
SIZE = (100, 30)
SETTLE = 1.0  # seconds after the last first frame that still count (the lobby's updates drawn)


class Drawn:
    """One app's socket pair: the app draws on one end, this reads the other until the lobby shows."""

    def __init__(self, started: float) -> None:
        self.app_end, self.ours = socket.socketpair()
        self.ours.setblocking(False)
        self.started = started
        self.output = bytearray()
        self.first: float | None = None
        self.last = started  # when the app last drew (time.monotonic())

    def read(self) -> None:
        try:
            data = self.ours.recv(1 << 16)
        except BlockingIOError:
            return
        self.output += data
        self.last = time.monotonic()
        if self.first is None and LOBBY in self.output:
            self.first = time.monotonic() - self.started


HostedApps = list[tuple[App, "asyncio.Task[None]"]]


def host_apps(port: int, names: list[str], started: float,
              redraw_delay: float | None = None) -> tuple[HostedApps, list[Drawn]]:
    """Start an ``AtonApp`` for each name against the server at ``port``, as an app host does
    (``redraw_delay``: the lobby's, as a host of that many apps sets it); the apps and their screens."""
    loop = asyncio.get_running_loop()
    apps, screens = [], []
    for name in names:
        screen = Drawn(started)
        env = {"TERM": "xterm-256color", "ATON_HOSTED": "ssh"}
        app = app_host.client_app(["connect", f"127.0.0.1:{port}", f"--name={name}"], env)
        app_host.adapt_console(app, env)
        if redraw_delay is not None and isinstance(app, AtonApp):
            app.lobby_redraw_delay = redraw_delay
        app.driver_class = functools.partial(  # type: ignore[assignment]  # as the app host binds it
            ChannelDriver, fd=screen.app_end.fileno(), pending_output_max=1 << 20,
            terminal_size=lambda: SIZE, on_overflow=lambda: None)
        loop.add_reader(screen.ours, screen.read)
        apps.append((app, loop.create_task(app.run_async())))
        screens.append(screen)
    return apps, screens


async def end_apps(apps: HostedApps, screens: list[Drawn]) -> None:
    for app, _ in apps:
        app.exit()
    await asyncio.gather(*(task for _, task in apps), return_exceptions=True)
    loop = asyncio.get_running_loop()
    for screen in screens:
        loop.remove_reader(screen.ours)
        screen.ours.close()
        screen.app_end.close()


@contextlib.contextmanager
def served(*server_options: str) -> Iterator[int]:
    """``aton-server --port 0`` as a subprocess (temporary database), and this process set up as an
    app host sets itself up; the server's port."""
    with tempfile.TemporaryDirectory(prefix="aton-bench-apps-") as tmp:
        server = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--db", f"{tmp}/aton.db",
                                   "--log-level", "warning", *server_options],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        try:
            port = int(server.stdout.readline().rsplit(":", 1)[1])
            app_host.isolate()  # the app host's own set-up, then its imports frozen as it does
            share_styles()
            warm_up()
            gc.collect()
            gc.freeze()
            yield port
        finally:
            server.terminate()
            server.wait(timeout=30)


async def start_apps(port: int, count: int) -> None:
    started, cpu = time.monotonic(), time.process_time()
    apps, screens = host_apps(port, [f"bench{n}" for n in range(count)], started)
    while any(screen.first is None for screen in screens):
        await asyncio.sleep(0.01)
    to_first, all_drawn = time.process_time() - cpu, time.monotonic() - started
    await asyncio.sleep(SETTLE)
    settled = time.process_time() - cpu
    firsts = sorted(screen.first for screen in screens if screen.first is not None)
    print(f"{count} apps at once: every lobby drawn after {all_drawn:.2f} s "
          f"(p50 {firsts[len(firsts) // 2]:.2f} s); CPU {to_first:.2f} s to the last first frame "
          f"({to_first / count:.3f} s an app), {settled:.2f} s with the second after ({settled / count:.3f} s an app)")
    await end_apps(apps, screens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--profile", type=Path, default=None, metavar="FILE", help="write a cProfile here")
    args = parser.parse_args()
    with served() as port:
        profile = cProfile.Profile() if args.profile else None
        if profile is not None:
            profile.enable()
        asyncio.run(start_apps(port, args.apps))
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)


if __name__ == "__main__":
    main()
