"""The aton-server command: start, stop on a signal, export records that aton replay accepts."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import sys

import pytest

from aton_tui.cli import main as aton_main
from server.config import Limits
from server.event_loop import event_loops

from .players import matched_pair
from .test_crash_safety import ROOT, ServerProcess


def test_it_says_where_it_listens_and_stops_cleanly_on_sigint(tmp_path):
    db = tmp_path / "new" / "dir" / "aton.db"  # a missing directory is created
    server = ServerProcess(str(db), log_level="info")
    server.proc.send_signal(signal.SIGINT)
    assert server.proc.wait(timeout=10) == 0
    assert db.exists()
    assert server.proc.stderr is not None
    log = server.proc.stderr.read()
    assert " INFO    server.collector: garbage collector: " in log  # settled once started (server.collector)
    assert " INFO    server.event_loop: event loop: uvloop " in log  # (the default; asyncio's if asked for)
    assert " INFO    server.cli: stopped cleanly" in log


@pytest.mark.parametrize("loop", event_loops())
def test_a_whole_game_is_played_on_each_event_loop(tmp_path, loop):
    server = ServerProcess(str(tmp_path / "aton.db"), log_level="info", extra=("--event-loop", loop))

    async def play() -> dict:
        red, blue = await matched_pair(server.port)
        await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
        await red.close()
        await blue.close()
        return red.view

    final = asyncio.run(play())
    assert final["phase"] == "over"
    assert server.terminate() == 0
    assert server.proc.stderr is not None
    log = server.proc.stderr.read()
    assert f"server.event_loop: event loop: {'uvloop' if loop == 'uvloop' else 'asyncio'}" in log
    assert "game 1 ended" in log and "stopped cleanly" in log


def test_a_busy_port_is_a_clear_error(tmp_path):
    first = ServerProcess(str(tmp_path / "a.db"))
    try:
        second = subprocess.run(
            [sys.executable, "-m", "server.cli", "--port", str(first.port), "--db", str(tmp_path / "b.db")],
            cwd=ROOT, capture_output=True, text=True, timeout=20)
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1:{first.port}" in second.stderr
    finally:
        first.terminate()


def test_export_writes_records_that_replay_to_the_final_state(tmp_path, capsys):
    db = str(tmp_path / "games.db")
    server = ServerProcess(db)

    async def play_two_games() -> list[dict | None]:
        finals: list[dict | None] = []
        for seed in (1, 2):
            red, blue = await matched_pair(server.port)
            if seed == 2:  # the second game is left unfinished: it is exported too
                def far_enough(recorder):
                    return recorder.version > 30

                await asyncio.gather(red.play(random.Random(seed), stop=far_enough),
                                     blue.play(random.Random(seed + 10), stop=far_enough))
                finals.append(None)
            else:
                await asyncio.gather(red.play(random.Random(seed)), blue.play(random.Random(seed + 10)))
                finals.append(red.view)
            await red.close()
            await blue.close()
        return finals

    finals = asyncio.run(play_two_games())
    assert server.terminate() == 0
    out = tmp_path / "records"
    done = subprocess.run([sys.executable, "-m", "server.cli", "export", "--db", db, "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"exported 2 game(s) to {out}"
    finished = json.loads((out / "game-1.json").read_text())
    final = finals[0]
    assert final is not None and finished["format"] == "aton-record/1"
    assert finished["meta"]["result"]["winner"] == final["winner"]
    capsys.readouterr()
    assert aton_main(["replay", str(out / "game-1.json"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["winner"] == final["winner"]
    assert summary["scores"] == {"red": final["red"]["score"], "blue": final["blue"]["score"]}
    assert summary["temples"] == [list(row) for row in final["temples"]]
    assert aton_main(["replay", str(out / "game-2.json"), "--json"]) == 0
    unfinished = json.loads(capsys.readouterr().out)
    assert unfinished["winner"] is None
    assert json.loads((out / "game-2.json").read_text())["meta"]["status"] == "playing"


def test_limit_flags_and_the_ssh_gateways_address():
    from server.cli import build_parser, limits

    plain = limits(build_parser().parse_args(["--max-connections-per-address", "7", "--max-games-per-session", "3"]))
    assert (plain.max_connections_per_address, plain.max_games_per_session, plain.exempt_addresses) == (7, 3, ())
    with_ssh = limits(build_parser().parse_args(["--host", "0.0.0.0", "--ssh-port", "0"]))
    assert with_ssh.exempt_addresses == ("127.0.0.1",)  # where the gateway's clients connect from
    assert with_ssh.max_connections_per_address == Limits().max_connections_per_address


def test_a_load_balancer_that_is_not_an_address_is_a_clear_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "server.cli", "--db", str(tmp_path / "a.db"), "--ssh-port", "0",
                           "--ssh-proxy-from", "10.0.0.5,haproxy"], cwd=ROOT, capture_output=True, text=True,
                          timeout=20)
    assert done.returncode == 2
    assert "argument --ssh-proxy-from: 'haproxy' is not an address or a network" in done.stderr
