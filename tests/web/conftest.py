"""Fixtures: a game server with its web gateway on loopback, in the test's event loop; a real
browser (``browser.py``), whose calls block, run in a thread (``run``)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import pytest

from server.app import ArbiterServer
from server.clock import Clock
from server.config import FORKED_SESSIONS, Limits, ServerConfig, SSHConfig, WebConfig, WebLimits
from server.kept_games import kept_games_in
from server.ssh import SSHGateway
from server.web import WebGateway
from server.web.gateway import BrowserSession

from .browser import Browser

T = TypeVar("T")

#: Where a test also keeps its screenshots, to be looked at (default: only in its temporary directory).
SCREENSHOTS = os.environ.get("ATON_TEST_SCREENSHOTS")


@dataclass
class WebStack:
    server: ArbiterServer
    gateway: WebGateway
    ssh: SSHGateway | None = None  # the SSH gateway beside it, if asked for (its commands only: no fork server)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway.port}"

    async def stop(self) -> None:
        if self.ssh is not None:
            await self.ssh.stop()
        await self.gateway.stop()
        await self.server.stop()

    async def session(self, timeout: float = 20.0) -> BrowserSession:
        """The one session whose client has started (waiting for it, with a bound)."""
        return await until(lambda: next((s for s in self.gateway.sessions if s.service and s.service.pid), None),
                           timeout, "no session's client started")

    async def settled(self, timeout: float = 10.0) -> None:
        """Wait until the gateway holds no session (every client ended)."""
        await until(lambda: None if self.gateway.sessions else True, timeout, "sessions remain")


async def until(probe: Callable[[], T | None], timeout: float, what: str) -> T:
    """``probe()``'s first value that is not None, polled every 20 ms for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value is not None:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(what)


@pytest.fixture
async def web_stack_factory(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[WebStack]]]:
    stacks: list[WebStack] = []

    async def make(clock: Clock | None = None, ssh: bool = False, **limits: Any) -> WebStack:
        db = str(tmp_path / f"aton{len(stacks)}.db")
        # as aton-server --web-port sets it: the gateway's clients come from its own address
        server = ArbiterServer(ServerConfig(port=0, db_path=db, game_seed=1,
                                            limits=Limits(exempt_addresses=("127.0.0.1",))))
        await server.start()
        gateway = WebGateway(WebConfig(port=0, limits=WebLimits(**limits)), "127.0.0.1", server.port, server.tokens,
                             server.gateway_signer, moderation=server.moderation, metrics=server.metrics, clock=clock,
                             kept_games=kept_games_in(server.data_dir))  # (as aton-server --web-port has it)
        await gateway.start()
        server.web_logins = gateway.logins
        stack = WebStack(server, gateway)
        if ssh:
            stack.ssh = SSHGateway(SSHConfig(port=0, data_dir=str(tmp_path), sessions=FORKED_SESSIONS,
                                             fork_server=False), "127.0.0.1",
                                   server.port, db, server.tokens, server.gateway_signer, history=server.history,
                                   moderation=server.moderation, web_logins=server.web_logins)
            await stack.ssh.start()
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        await stack.stop()


@pytest.fixture
async def web_stack(web_stack_factory: Callable[..., Awaitable[WebStack]]) -> WebStack:
    return await web_stack_factory()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def run(call: Any, *args: Any) -> Any:
    """A blocking call of the browser's, in a thread: the servers go on meanwhile."""
    return await asyncio.to_thread(partial(call, *args))


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    started = await run(Browser)
    yield started
    await run(started.quit)


def screenshot(browser: Browser, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"web-{name}.png"
    browser.screenshot(path)
    if SCREENSHOTS:
        browser.screenshot(Path(SCREENSHOTS) / path.name)
    return path
