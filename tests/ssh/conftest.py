"""Fixtures: a game server with its SSH gateway on loopback (see terminal.py).

Every test that makes a stack runs once for each way of running a session's client
(``SSHConfig.sessions``: forked processes, apps in app hosts); a test of one way's own
machinery says which with ``@pytest.mark.parametrize("ssh_sessions", [...])``."""

from __future__ import annotations

import pytest

from server.clock import Clock
from server.config import SESSION_WAYS, SSHConfig, SSHLimits

from .terminal import Stack


@pytest.fixture(params=SESSION_WAYS)
def ssh_sessions(request) -> str:
    """How the stacks of a test run their sessions' clients (``SSHConfig.sessions``)."""
    return request.param


@pytest.fixture
async def stack_factory(tmp_path, ssh_sessions):
    stacks: list[Stack] = []

    async def make(guests: bool = True, fork_server: bool = True, clock: Clock | None = None,
                   server_clock: Clock | None = None, proxy_from: tuple[str, ...] = (), **limits) -> Stack:
        config = SSHConfig(guests=guests, sessions=ssh_sessions, fork_server=fork_server, app_hosts=1,
                           proxy_from=proxy_from, limits=SSHLimits(**limits))
        stack = await Stack(tmp_path / f"s{len(stacks)}", config, clock, server_clock).start()
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        await stack.stop()


@pytest.fixture
async def stack(stack_factory):
    return await stack_factory()
