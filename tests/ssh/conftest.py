"""Fixtures: a game server with its SSH gateway on loopback (see terminal.py)."""

from __future__ import annotations

import pytest

from server.clock import Clock
from server.config import SSHConfig, SSHLimits

from .terminal import Stack


@pytest.fixture
async def stack_factory(tmp_path):
    stacks: list[Stack] = []

    async def make(guests: bool = True, fork_server: bool = True, clock: Clock | None = None,
                   server_clock: Clock | None = None, **limits) -> Stack:
        config = SSHConfig(guests=guests, fork_server=fork_server, limits=SSHLimits(**limits))
        stack = await Stack(tmp_path / f"s{len(stacks)}", config, clock, server_clock).start()
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        await stack.stop()


@pytest.fixture
async def stack(stack_factory):
    return await stack_factory()
