"""Hosted bots under load: how long a player's bot waits for its first decision while
another player's many bot games keep the server's bot workers busy.

    python bench/hosted_bots.py [--flood 10,30,60] [--level hard] [--clock normal] [--root DIR]

For each N of ``--flood``, a fresh ``aton-server`` runs as a subprocess (the code of the
tree DIR, by default this one, with its default settings and a temporary database) on
127.0.0.1; its limits on games at once, which would refuse the flood, are raised to N + 1.
One connection starts N games against a LEVEL bot at once and plays none of them.  Once
its N game states have arrived, another player starts one game against a LEVEL bot.
Printed for each N: the seconds from that player's ``game_state`` to its bot's first
decision (its exchange or commitment, or the time-out that replaced it), and the seconds
from the first request of the flood until the last of its bots had decided.

To measure before a change, point ``--root`` at a checkout of the older commit
(``git worktree add /tmp/before COMMIT``): the clients are this tree's, the server is DIR's.

Never part of the test run.  It only talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_load import HOST, ROOT, start_server, stop_server

from protocol import messages as m
from protocol.client import Client

HUMAN_SEAT, BOT_SEAT = "red", "blue"
#: the bot's first move (it may exchange its hand before it commits), or the time-out that replaced it
FIRST_DECISION = frozenset({"exchanged", "committed", "timeout"})


def bot_decided(msg: m.Message) -> str | None:
    """The event's type if this frame carries the bot's first decision."""
    if isinstance(msg, m.Update):
        for event in msg.events:
            if event["type"] in FIRST_DECISION and event.get("player") == BOT_SEAT:
                return str(event["type"])
    return None


async def flood(port: int, games: int, level: str, clock: str, started: asyncio.Event,
                limit: float) -> tuple[float, int]:
    """Start ``games`` bot games on one connection; (seconds until every bot decided, time-outs)."""
    client = await Client.connect(HOST, port, name="flood", kind="human", lobby=False)
    t0 = time.monotonic()
    for _ in range(games):
        await client.send(m.PlayBot(level=level, clock=clock, seat=HUMAN_SEAT))
    states = 0
    decided: dict[int, str] = {}
    while len(decided) < games:
        msg = await client.recv(limit)
        if isinstance(msg, m.Error):
            raise SystemExit(f"the server refused the flood: {msg.message}")
        if isinstance(msg, m.GameState):
            states += 1
            if states == games:
                started.set()
        outcome = bot_decided(msg)
        if isinstance(msg, m.Update) and outcome is not None:
            decided.setdefault(msg.game, outcome)
    elapsed = time.monotonic() - t0
    await client.close()
    return elapsed, sum(outcome == "timeout" for outcome in decided.values())


async def other_player(port: int, level: str, clock: str, limit: float) -> tuple[float, str]:
    """One game against a bot; (seconds until the bot's first decision, its kind)."""
    client = await Client.connect(HOST, port, name="pat", kind="human", lobby=False)
    await client.send(m.PlayBot(level=level, clock=clock, seat=HUMAN_SEAT))
    await client.expect(m.GameState, limit)
    t0 = time.monotonic()
    while (outcome := bot_decided(await client.recv(limit))) is None:
        pass
    elapsed = time.monotonic() - t0
    await client.close()
    return elapsed, outcome


async def measure(port: int, games: int, level: str, clock: str) -> tuple[float, str, float, int]:
    limit = 600.0
    started = asyncio.Event()
    flooding = asyncio.ensure_future(flood(port, games, level, clock, started, limit))
    await asyncio.wait({flooding, asyncio.ensure_future(started.wait())}, return_when=asyncio.FIRST_COMPLETED)
    if flooding.done():
        flooding.result()  # the flood failed before it was under way: say why
    wait, outcome = await other_player(port, level, clock, limit)
    last, timeouts = await flooding
    return wait, outcome, last, timeouts


def room_for(games: int, root: Path) -> list[str]:
    """Arguments that let one session and its address have ``games`` + 1 games going (none for
    a tree from before those limits, which had none)."""
    usage = subprocess.run([sys.executable, "-m", "server.cli", "--help"], cwd=root, capture_output=True, text=True)
    if "--max-games-per-session" not in usage.stdout:
        return []
    return ["--max-games-per-session", str(games + 1), "--max-games-per-address", str(games + 1)]


def tree_commit(root: Path) -> str:
    result = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    return result.stdout.strip()[:72] or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", default="10,30,60", help="numbers of flooding games, one run each")
    parser.add_argument("--level", default="hard")
    parser.add_argument("--clock", default="normal")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree whose server runs (default: this one)")
    args = parser.parse_args()
    counts = [int(n) for n in args.flood.split(",")]
    print("$ python bench/hosted_bots.py " + shlex.join(["--flood", args.flood, "--level", args.level,
                                                          "--clock", args.clock, "--root", str(args.root)]))
    print(f"server: {tree_commit(args.root)}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    print(f"{'flood':>5}  {'other bot: 1st decision':>24}  {'flood: last 1st decision':>24}  flood time-outs")
    with tempfile.TemporaryDirectory() as tmp:
        for games in counts:
            db, log = Path(tmp) / f"aton-{games}.db", Path(tmp) / "server.log"
            server, port = start_server(db, log, profile=None, root=args.root, options=room_for(games, args.root))
            try:
                wait, outcome, last, timeouts = asyncio.run(measure(port, games, args.level, args.clock))
            finally:
                stop_server(server)
            note = " (timed out)" if outcome == "timeout" else ""
            print(f"{games:>5}  {wait:>22.2f} s{note}  {last:>22.2f} s  {timeouts:>15}")


if __name__ == "__main__":
    main()
