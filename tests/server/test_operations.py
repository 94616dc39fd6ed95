"""Operations (issue 16, point 4): the metrics and the health check over real HTTP on loopback,
while real clients play; the endpoint's refusals; the log (one line per login, game start and
game end, as text or JSON) and the rotated log file of the server inside ``aton``."""

from __future__ import annotations

import asyncio
import json
import logging
import logging.handlers
import random
import shlex
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from aton_tui.local_server import log_to_file
from server.app import ArbiterServer
from server.cli import build_parser
from server.config import LogFileSettings, MetricsSettings, ServerConfig
from server.logging_setup import configure, rotating_file
from server.metrics import reason_label
from server.ops_http import OpsEndpoint

from ..manual_clock import ManualClock
from .players import matched_pair
from .test_crash_safety import ROOT, ServerProcess


def get(url: str) -> tuple[int, str]:
    """A real HTTP GET: its status and body."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def scrape(url: str) -> dict[str, float]:
    """Every sample of the metrics at ``url``: 'name{label="value"}' (or 'name') -> value."""
    status, text = await asyncio.to_thread(get, url)
    assert status == 200, text
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def metrics_server(tmp_path, *extra: str) -> tuple[ServerProcess, str]:
    """``aton-server --metrics-port 0`` as a child process, and the base URL of its metrics."""
    server = ServerProcess(str(tmp_path / "aton.db"), log_level="info", extra=("--metrics-port", "0", *extra))
    assert server.proc.stdout is not None
    line = server.proc.stdout.readline()
    assert line.startswith("metrics on http://127.0.0.1:") and line.endswith("/metrics\n"), line
    return server, line.split()[-1].removesuffix("/metrics")


async def test_the_counters_move_during_a_game_as_curl_sees_them(tmp_path):
    server, base = metrics_server(tmp_path)
    try:
        assert await asyncio.to_thread(get, base + "/healthz") == (200, "ok\n")
        idle = await scrape(base + "/metrics")
        assert idle["aton_games_running"] == 0 and idle["aton_moves_total"] == 0
        assert idle["aton_connections"] == 0 and idle['aton_sessions{kind="tcp"}'] == 0
        red, blue = await matched_pair(server.port)
        rngs = (random.Random(1), random.Random(2))
        await asyncio.gather(red.play(rngs[0], stop=lambda r: r.version > 30),
                             blue.play(rngs[1], stop=lambda r: r.version > 30))
        playing = await scrape(base + "/metrics")
        assert playing["aton_games_running"] == 1
        assert playing["aton_connections"] == 2 and playing['aton_sessions{kind="tcp"}'] == 2
        assert playing["aton_moves_total"] > 0
        assert playing["aton_commit_reveal_seconds_count"] >= 1  # a round's openings were waited for
        assert playing["aton_db_commit_seconds_count"] >= 1
        await asyncio.gather(red.play(rngs[0]), blue.play(rngs[1]))
        over = await scrape(base + "/metrics")
        assert over["aton_games_running"] == 0
        assert over["aton_moves_total"] > playing["aton_moves_total"]
        assert over["aton_commit_reveal_seconds_count"] > playing["aton_commit_reveal_seconds_count"]
        assert over["aton_db_commit_seconds_count"] > playing["aton_db_commit_seconds_count"]
        await red.close()
        await blue.close()
    finally:
        assert server.terminate() == 0


def test_the_metrics_are_off_unless_a_port_is_given():
    args = build_parser().parse_args([])
    assert args.metrics_port is None and MetricsSettings().port is None
    assert args.metrics_host == "127.0.0.1"  # and then only on this machine, unless told otherwise


@pytest.fixture
async def endpoint(tmp_path):
    """A server and its endpoint in this process, with a short request time."""
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db")), clock=ManualClock())
    await server.start()
    ops = OpsEndpoint(server.metrics, server.health, MetricsSettings(port=0, request_seconds=0.5, request_bytes=1024))
    await ops.start()
    yield server, ops
    await ops.stop()
    await server.stop()


async def exchange(port: int, request: bytes) -> str:
    """Send ``request`` (as it is) and read the whole answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    answer = await reader.read()
    writer.close()
    return answer.decode("latin-1")


async def test_the_endpoint_answers_its_two_paths_and_refuses_the_rest(endpoint):
    server, ops = endpoint
    assert (await exchange(ops.port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")).startswith("HTTP/1.1 200 OK")
    for request, status in ((b"GET /etc/passwd HTTP/1.1\r\n\r\n", "404"), (b"GET / HTTP/1.1\r\n\r\n", "404"),
                            (b"POST /metrics HTTP/1.1\r\n\r\n", "405"), (b"\r\n\r\n", "404"),
                            (b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 2000 + b"\r\n\r\n", "431"),
                            (b"GET /metrics HTTP/1.1\r\n", "408")):  # never finished: the time runs out
        answer = await exchange(ops.port, request)
        assert answer.startswith(f"HTTP/1.1 {status} "), (request[:40], answer)
        assert "aton_" not in answer
    assert ops.open == 0
    assert (await exchange(ops.port, b"GET /healthz HTTP/1.1\r\n\r\n")).endswith("\r\n\r\nok\n")
    server.failed.set()  # as when the database refuses a write
    answer = await exchange(ops.port, b"GET /healthz HTTP/1.1\r\n\r\n")
    assert answer.startswith("HTTP/1.1 503 ") and answer.endswith("failing: the database refused a write\n")


async def test_requests_beyond_the_limit_at_once_are_refused(tmp_path):
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db")), clock=ManualClock())
    await server.start()
    ops = OpsEndpoint(server.metrics, server.health, MetricsSettings(port=0, max_connections=1, request_seconds=5))
    await ops.start()
    try:
        holder = socket.create_connection(("127.0.0.1", ops.port))  # sends nothing: holds the one place
        while ops.open == 0:
            await asyncio.sleep(0.01)
        answer = await exchange(ops.port, b"GET /metrics HTTP/1.1\r\n\r\n")
        assert answer.startswith("HTTP/1.1 503 ") and answer.endswith("too many requests at once\n")
        holder.close()
    finally:
        await ops.stop()
        await server.stop()


def test_refusal_reasons_are_short_labels():
    assert reason_label("too many logins in progress; try again in a moment") == "too_many_logins_in_progress"
    assert reason_label("the server is full; try again later") == "the_server_is_full"
    assert reason_label("no SSH version line") == "no_ssh_version_line"


async def test_one_json_line_per_login_game_start_and_game_end(tmp_path):
    server = ServerProcess(str(tmp_path / "aton.db"), log_level="info", extra=("--log-format", "json"))
    red, blue = await matched_pair(server.port)
    await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
    await red.close()
    await blue.close()
    assert server.terminate() == 0
    assert server.proc.stderr is not None
    lines = [json.loads(line) for line in server.proc.stderr.read().splitlines()]
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    events = [line for line in lines if "event" in line]
    assert [line["event"] for line in events] == ["login", "login", "game_start", "game_end"]
    assert {line["player"] for line in events[:2]} == {"alice", "bob"}
    accounts = {line["player"]: line["account"] for line in events[:2]}
    assert all(isinstance(account, int) for account in accounts.values())  # each proved an account
    for line in events[2:]:
        assert line["game"] == red.game and line["players"] == {"red": red.client.name, "blue": blue.client.name}
        assert line["accounts"] == {"red": accounts[red.client.name], "blue": accounts[blue.client.name]}
    assert events[3]["winner"] == red.view["winner"] and events[3]["message"].startswith(f"game {red.game} ended: ")


def test_asyncssh_says_only_warnings_unless_the_level_is_debug():
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure("info")
        assert logging.getLogger("asyncssh").getEffectiveLevel() == logging.WARNING
        assert logging.getLogger("asyncssh.connection").getEffectiveLevel() == logging.WARNING
        assert logging.getLogger("server.app").getEffectiveLevel() == logging.INFO
        configure("debug")
        assert logging.getLogger("asyncssh").getEffectiveLevel() == logging.DEBUG
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
        logging.getLogger("asyncssh").setLevel(logging.NOTSET)


def test_the_log_file_is_rotated(tmp_path):
    handler = rotating_file(tmp_path / "server.log", LogFileSettings(max_bytes=300, backups=2))
    log = logging.getLogger("test.rotation")
    log.addHandler(handler)
    log.propagate = False
    try:
        for n in range(40):
            log.warning("line %d of the log, long enough to fill the file quickly", n)
    finally:
        log.removeHandler(handler)
        handler.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.log", "server.log.1", "server.log.2"]
    assert all(p.stat().st_size <= 300 for p in tmp_path.iterdir())
    assert "line 39 " in (tmp_path / "server.log").read_text()


def test_the_server_inside_aton_logs_to_a_rotated_file(tmp_path):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        log_to_file(tmp_path / "server.log")
        [handler] = root.handlers
        assert isinstance(handler, logging.handlers.RotatingFileHandler)
        assert handler.maxBytes == LogFileSettings().max_bytes and handler.backupCount == LogFileSettings().backups
        handler.close()
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
        logging.getLogger("asyncssh").setLevel(logging.NOTSET)


def test_the_systemd_unit_ships_as_the_docs_show_it_and_its_command_is_valid():
    unit = (Path(ROOT) / "contrib" / "aton.service").read_text()
    assert f"```ini\n{unit}```" in (Path(ROOT) / "docs" / "hosting.md").read_text()
    [command] = [line for line in unit.replace("\\\n", " ").splitlines() if line.startswith("ExecStart=")]
    program, *arguments = shlex.split(command.removeprefix("ExecStart="))
    assert program == "/opt/aton/.venv/bin/aton-server"
    args = build_parser().parse_args(arguments)  # an option it does not know would exit here
    assert args.metrics_port == 9466 and args.metrics_host == "127.0.0.1" and args.ssh_port == 2222
