"""The web gateway's refusals and limits (issue 16, "Bad input and limits"), against the real
gateway on loopback with aiohttp's client: the game's page and nothing else, bounded requests and
WebSocket messages, sessions in all and per address, input rate, idleness, and a client that
gets nothing of the server's environment; the operator's bans."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import aiohttp
import pytest
from aiohttp import WSCloseCode, WSMsgType

from aton_tui.cli import vouched
from protocol import handoff
from server.cli import main as server_main

from ..manual_clock import ManualClock
from .conftest import WebStack, until


async def drawn(ws: aiohttp.ClientWebSocketResponse, text: str = "lobby", timeout: float = 30.0) -> str:
    """What the client drew on the WebSocket until ``text`` is among it."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        if message.type != WSMsgType.BINARY:
            raise AssertionError(f"{text!r} never drawn; got {message.type} {message.data!r:.200}")
        seen += message.data
    return seen.decode("utf-8", "replace")


async def closed(ws: aiohttp.ClientWebSocketResponse, timeout: float = 20.0) -> tuple[int | None, bytes]:
    """Read until the server closes the WebSocket: the close code, and the text it sent before."""
    text = b""
    while True:
        message = await ws.receive(timeout=timeout)
        if message.type == WSMsgType.BINARY:
            text += message.data
        elif message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING, WSMsgType.ERROR):
            return ws.close_code, text


async def closed_after(stack: WebStack, http: aiohttp.ClientSession, *messages: str) -> int | None:
    """A new session's close code after it sent ``messages`` once its client drew the lobby."""
    async with http.ws_connect(stack.url + "/ws", origin=stack.url) as ws:
        await drawn(ws)
        for message in messages:
            await ws.send_str(message)
        code, _ = await closed(ws)
    return code


async def test_every_path_but_the_games_is_refused(web_stack: WebStack, http: aiohttp.ClientSession):
    for path in ("/", "/static/js/textual.js", "/static/css/xterm.css"):
        async with http.get(web_stack.url + path) as response:
            assert response.status == 200, path
    for path in ("/static/", "/static/js/", "/static/images/background.png", "/static/../server.py",
                 "/download/abc", "/templates/app_index.html", "/etc/passwd", "/ws/x/y", "/favicon.ico",
                 "/%2e%2e/%2e%2e/etc/passwd", "/static/js/textual.js/.."):
        async with http.get(web_stack.url + path) as response:
            assert response.status == 404, path
    async with http.post(web_stack.url + "/", data=b"x") as response:
        assert response.status == 405
    assert not web_stack.gateway.sessions


async def test_requests_are_bounded(web_stack_factory, http: aiohttp.ClientSession):
    stack = await web_stack_factory(request_line_bytes=1024, request_headers=20)
    async with http.get(stack.url + "/", headers={"X-Long": "a" * 2000}) as response:
        assert response.status == 400
    async with http.get(stack.url + "/?" + "q" * 2000) as response:
        assert response.status in (400, 414)
    async with http.get(stack.url + "/", headers={f"X-{i}": "1" for i in range(40)}) as response:
        assert response.status == 400
    async with http.get(stack.url + "/") as response:  # and the gateway serves on
        assert response.status == 200


async def test_a_websocket_from_another_sites_page_is_refused(web_stack: WebStack, http: aiohttp.ClientSession):
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await http.ws_connect(web_stack.url + "/ws", origin="http://evil.example")
    assert refused.value.status == 403
    assert not web_stack.gateway.sessions


async def test_the_client_gets_its_own_environment_and_nothing_of_the_servers(
        web_stack: WebStack, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ATON_TEST_SECRET", "hunter2")  # in the server's environment, before the session starts
    async with http.ws_connect(web_stack.url + "/ws?width=100&height=30", origin=web_stack.url) as ws:
        await drawn(ws)
        session = await web_stack.session()
        assert session.service is not None and session.service.pid is not None and session.home is not None
        environ = Path(f"/proc/{session.service.pid}/environ").read_bytes()
        env = dict(entry.split("=", 1) for entry in environ.decode().split("\0") if entry)
        assert "hunter2" not in environ.decode() and "ATON_TEST_SECRET" not in env
        assert env["HOME"] == session.home != os.environ.get("HOME")
        assert env[handoff.HOSTED_VARIABLE] == handoff.HOSTED_BY_WEB
        assert env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
        allowed = {"PATH", "PYTHONPATH", "LANG", "LC_ALL", "PYTHONIOENCODING", "HOME", "XDG_CONFIG_HOME",
                   "XDG_DATA_HOME", "XDG_CACHE_HOME", "TMPDIR", "TERM", handoff.RESUME_VARIABLE,
                   handoff.HOSTED_VARIABLE, "TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM",
                   "TERM_PROGRAM_VERSION", "COLUMNS", "ROWS", handoff.ASSERTION_VARIABLE, handoff.SESSION_KEY_VARIABLE,
                   handoff.KEPT_GAMES_VARIABLE}
        assert set(env) <= allowed, set(env) - allowed
        assert handoff.KEPT_GAMES_VARIABLE not in env  # a guest: no seat to take back at a next login
        proof = vouched(env)  # the gateway's assertion of a guest
        assert proof is not None and proof.fingerprint == ""
        assert Path(f"/proc/{session.service.pid}/cwd").resolve() == Path(session.home).resolve()
        assert os.getpgid(session.service.pid) == session.service.pid  # a process group of its own
        pid, home = session.service.pid, session.home
    await web_stack.settled()
    assert not Path(home).exists()
    await until(lambda: True if not Path(f"/proc/{pid}").exists() else None, 10, "the client outlived its session")


async def test_sessions_at_once_per_address_and_in_all(web_stack_factory, http: aiohttp.ClientSession):
    for limits, refusal in (({"max_sessions": 5, "max_per_address": 1}, b"Too many games open from your address"),
                            ({"max_sessions": 1, "max_per_address": 5}, b"The server is full")):
        stack = await web_stack_factory(**limits)
        async with http.ws_connect(stack.url + "/ws", origin=stack.url) as first:
            await drawn(first)
            async with http.ws_connect(stack.url + "/ws", origin=stack.url) as second:
                code, text = await closed(second)
            assert code == WSCloseCode.TRY_AGAIN_LATER and refusal in text
            assert stack.server.metrics.registry.get_sample_value("aton_sessions", {"kind": "web"}) == 1
        await stack.settled()


async def test_bad_messages_oversized_messages_and_too_much_input_end_only_their_session(
        web_stack_factory, http: aiohttp.ClientSession):
    stack = await web_stack_factory(message_bytes=2048, input_rate=100, input_burst=400)
    async with http.ws_connect(stack.url + "/ws", origin=stack.url) as ws:
        await drawn(ws)
        await ws.send_str(json.dumps(["resize", {"width": "wide", "height": -3}]))  # ignored
        await ws.send_str(json.dumps(["focus"]))
        await ws.send_str(json.dumps(["blur"]))
        await ws.send_str(json.dumps(["ping", "x"]))
        while (message := await ws.receive(timeout=10)).type == WSMsgType.BINARY:
            pass  # (the client's drawing)
        assert message.type == WSMsgType.TEXT and json.loads(message.data) == ["pong", "x"]
        await ws.send_str("x" * 4096)
        code, _ = await closed(ws)
    assert code == WSCloseCode.MESSAGE_TOO_BIG
    assert await closed_after(stack, http, "{not json") == WSCloseCode.UNSUPPORTED_DATA
    too_much = json.dumps(["stdin", "?" * 200])
    assert await closed_after(stack, http, too_much, too_much, too_much) == WSCloseCode.POLICY_VIOLATION
    await stack.settled()
    async with http.get(stack.url + "/") as response:  # the gateway serves on
        assert response.status == 200


async def test_an_idle_session_is_closed(web_stack_factory, http: aiohttp.ClientSession):
    clock = ManualClock()
    stack = await web_stack_factory(clock=clock, idle_timeout=600.0)
    async with http.ws_connect(stack.url + "/ws", origin=stack.url) as ws:
        await drawn(ws)
        await stack.session()
        clock.advance(300)
        await ws.send_str(json.dumps(["stdin", "?"]))  # a key press: the time starts again
        await until(lambda: True if stack.gateway.clock.now() - next(iter(stack.gateway.sessions)).last_input < 1
                    else None, 10, "the key press was not seen")
        clock.advance(599)
        assert stack.gateway.sessions and not ws.closed
        clock.advance(2)
        code, _ = await closed(ws)
    assert code == WSCloseCode.GOING_AWAY
    await stack.settled()


async def test_a_banned_address_is_refused_and_a_ban_closes_a_session_in_play(web_stack: WebStack,
                                                                              http: aiohttp.ClientSession):
    db = web_stack.server.config.db_path
    async with http.ws_connect(web_stack.url + "/ws", origin=web_stack.url) as ws:
        await drawn(ws)
        assert server_main(["admin", "ban", "127.0.0.1", "--reason", "flooding", "--db", db]) == 0
        code, _ = await closed(ws)  # within the server's polling time
    assert code == WSCloseCode.POLICY_VIOLATION and ws.close_code == WSCloseCode.POLICY_VIOLATION
    async with http.ws_connect(web_stack.url + "/ws", origin=web_stack.url) as ws:
        code, text = await closed(ws)
    assert code == WSCloseCode.POLICY_VIOLATION and b"You are banned from this server (reason: flooding)" in text
    await web_stack.settled()
