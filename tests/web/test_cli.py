"""``aton-server --web-port``: the page served by the real command, each browser's client with
an environment of its own (nothing of the server's), a clean stop that takes the clients with
it, a clear error for a busy port, the flags and their documentation."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp

from protocol import gateway_assertions
from protocol import messages as m
from protocol.client import Client
from server.cli import build_parser, web_config, web_page_elsewhere
from server.cli import main as server_main
from server.config import WebLimits

from ..ssh.terminal import clients_of
from ..ssh.test_cli import run_on_a_busy_port
from ..ssh.test_gateways_apart import gateway_key
from .conftest import until
from .test_limits import drawn

ROOT = Path(__file__).resolve().parents[2]


async def test_the_server_serves_the_page_keeps_its_environment_to_itself_and_stops_cleanly(tmp_path):
    env = {**os.environ, "ATON_TEST_SECRET": "hunter2"}
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--web-port", "0",
                             "--db", str(tmp_path / "aton.db")], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first, second = proc.stdout.readline(), proc.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:") and second.startswith("web on http://127.0.0.1:"), \
            first + second
        url = second.split()[-1].rstrip("/")
        async with aiohttp.ClientSession() as http:
            async with http.get(url + "/") as page:
                assert page.status == 200 and "textual.js" in await page.text()
            async with http.ws_connect(url + "/ws", origin=url) as ws:
                await drawn(ws)
                [pid] = await until(lambda: clients_of(proc.pid) or None, 10, "no client process")
                environ = Path(f"/proc/{pid}/environ").read_bytes()
                assert b"hunter2" not in environ and b"ATON_TEST_SECRET" not in environ
                await stops_cleanly(proc, ws, pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_busy_web_port_is_a_clear_error(tmp_path):
    done, port = run_on_a_busy_port(tmp_path, "--web-port")
    assert done.returncode == 1
    assert f"aton-server: cannot listen on 127.0.0.1:{port}" in done.stderr


def test_the_web_flags_set_the_limits():
    args = build_parser().parse_args(["--web-port", "0", "--web-host", "::1", "--web-max-per-address", "2",
                                      "--web-idle-timeout", "90", "--web-input-rate", "100",
                                      "--web-public-url", "https://aton.example.org"])
    config = web_config(args)
    assert config is not None and (config.host, config.port, config.public_url) == ("::1", 0,
                                                                                    "https://aton.example.org")
    limits = config.limits
    assert (limits.max_per_address, limits.idle_timeout, limits.input_rate, limits.input_burst) == (2, 90, 100, 800)
    assert web_config(build_parser().parse_args([])) is None


def test_every_web_limit_is_documented():
    hosting = (ROOT / "docs" / "hosting.md").read_text()
    section = hosting[hosting.index("### Web limits"):]
    for field in dataclasses.fields(WebLimits):
        assert f"`{field.name}`" in section, f"docs/hosting.md does not describe WebLimits.{field.name}"


def test_a_gateway_serves_ssh_the_web_page_or_both_and_says_so_when_given_neither(capsys):
    assert server_main(["gateway", "--arbiter", "127.0.0.1:2866"]) == 2
    assert "--ssh-port or --web-port is required" in capsys.readouterr().err


def test_an_arbiter_whose_page_is_served_elsewhere_makes_links_to_it():
    """``--web-public-url`` without ``--web-port``: the codes live here, the page with gateways apart."""
    codes = web_page_elsewhere(build_parser().parse_args(["--web-public-url", "https://play.example.org/",
                                                          "--web-login-code-seconds", "120"]))
    assert codes is not None
    issued = codes.issue("SHA256:" + "A" * 43, "alice")
    assert issued.link == f"https://play.example.org/?code={issued.code}" and issued.seconds == 120
    assert web_page_elsewhere(build_parser().parse_args(["--web-port", "8080"])) is None  # the page is here
    assert web_page_elsewhere(build_parser().parse_args([])) is None  # no page at all


async def test_a_web_gateway_apart_plays_a_guest_against_its_arbiter_and_stops_cleanly(tmp_path):
    """``aton-server gateway --web-port`` alone: a guest's browser session through it reaches the
    arbiter (a process too, trusting the gateway's key), and SIGTERM ends it and its client."""
    data_dir = tmp_path / "gateway"
    trusted = tmp_path / "trusted"
    trusted.write_text(gateway_assertions.raw_key_line(gateway_key(data_dir)) + " web\n")
    arbiter = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", "0", "--db", str(tmp_path / "aton.db"),
                                "--trusted-gateways", str(trusted)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    gateway = None
    try:
        assert arbiter.stdout is not None
        port = int(arbiter.stdout.readline().rsplit(":", 1)[1])
        gateway = subprocess.Popen([sys.executable, "-m", "server.cli", "gateway", "--arbiter", f"127.0.0.1:{port}",
                                    "--web-port", "0", "--data-dir", str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE,
                                   text=True)
        assert gateway.stdout is not None
        first, second = gateway.stdout.readline(), gateway.stdout.readline()
        assert first.startswith("web on http://127.0.0.1:") and "the arbiter must trust it" in second, first + second
        url = first.split()[-1].rstrip("/")
        async with aiohttp.ClientSession() as http, http.ws_connect(url + "/ws", origin=url) as ws:
            await drawn(ws, "lobby of")
            assert any(name.startswith("~guest-") for name in await players_at(port))  # the arbiter has the guest
            [pid] = await until(lambda: clients_of(gateway.pid) or None, 10, "no client process")
            await stops_cleanly(gateway, ws, pid)
    finally:
        for proc in (gateway, arbiter):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(15)


async def stops_cleanly(proc: subprocess.Popen, ws: aiohttp.ClientWebSocketResponse, client: int) -> None:
    """SIGTERM to the process serving the page: it closes the browser's WebSocket, ends with status 0,
    and the browser's client process has ended and been reaped."""
    proc.send_signal(signal.SIGTERM)
    message = await ws.receive(timeout=15)
    while message.type == aiohttp.WSMsgType.BINARY:
        message = await ws.receive(timeout=15)
    assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert await asyncio.get_running_loop().run_in_executor(None, proc.wait, 15) == 0
    assert not os.path.exists(f"/proc/{client}")


async def players_at(port: int) -> list[str]:
    """The players in the lobby of the game server on ``port``, as a client sees them there."""
    client = await Client.connect("127.0.0.1", port, name="onlooker", lobby=True)
    try:
        frame = await client.recv(10)
        while not isinstance(frame, m.Lobby):  # (what the server says before its snapshot)
            frame = await client.recv(10)
        return [player["name"] for player in frame.players]
    finally:
        await client.close()
