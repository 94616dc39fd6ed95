"""The client's connection: it comes back by itself, with its seat and its sealed commitment."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

from aton.game import Phase
from aton_tui.session import Received, Session, Status
from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client
from protocol.game_frames import GameStateFrame, UpdateFrame

R = TypeVar("R", bound=Received)


async def until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


class Player:
    """A Session and everything it reported (a game's frames decoded, as the session hands them over)."""

    def __init__(self, port: int, name: str) -> None:
        self.frames: list[Received] = []
        self.statuses: list[Status] = []
        self.session = Session("127.0.0.1", port, name, on_frame=self.frames.append,
                               on_status=self.statuses.append, retry_delays=(0.05, 0.1))
        self.task = asyncio.create_task(self.session.run())

    def last(self, kind: type[R]) -> R | None:
        return next((f for f in reversed(self.frames) if isinstance(f, kind)), None)

    def states(self) -> list[str]:
        return [s.state for s in self.statuses]

    async def close(self) -> None:
        await self.session.close()
        await asyncio.wait_for(self.task, 5)


async def bob_plays(client: Client) -> None:
    """The other player: commits whatever it holds, places and removes on the first legal square."""
    while True:
        msg = await client.recv(10)
        if not isinstance(msg, (m.GameState, m.Update)) or msg.view.get("winner"):
            continue
        decision, seat = msg.view["decision"], msg.view["viewer"]
        if decision is None:
            continue
        if decision["kind"] == "commit":
            if m.commitments_of(msg)[seat] == "none" and not client.has_sealed(msg.game):
                await client.commit(msg.game, decision["hand"])
        else:
            temple, square = decision["squares"][0]
            kind = m.Place if decision["kind"] == "place" else m.Remove
            await client.send(kind(game=msg.game, temple=temple, square=square))


async def test_a_broken_connection_is_resumed_and_a_sealed_commitment_still_opens(server):
    ada = Player(server.port, "ada")
    await until(lambda: ada.session.connected)
    await ada.session.send(m.CreateTable(clock="relaxed"))
    await until(lambda: ada.last(m.TableCreated))
    table = ada.last(m.TableCreated)
    assert table is not None
    bob = await Client.connect("127.0.0.1", server.port, name="bob", proof=AccountKey.generate())
    await bob.send(m.JoinTable(table=table.table))
    await until(lambda: ada.last(GameStateFrame))
    state = ada.last(GameStateFrame)
    assert state is not None and state.seat is not None and state.view.decision is not None
    seat = state.seat

    await ada.session.commit(state.game, state.view.decision.hand)
    await until(lambda: (u := ada.last(UpdateFrame)) and u.commitments[seat] == "sealed")
    token = ada.session.resume
    assert ada.session.client is not None
    ada.session.client.writer.transport.abort()  # the network breaks
    await until(lambda: ada.states()[-1] == "connected" and "lost" in ada.states())
    assert ada.session.resume == token

    bobs_game = asyncio.create_task(bob_plays(bob))  # bob commits now: both seals must be opened
    await until(lambda: (u := ada.last(UpdateFrame)) and u.view.round == 1 and u.view.phase is not Phase.COMMIT)
    update = ada.last(UpdateFrame)
    assert update is not None and all(c is not None for c in update.view.player(seat).cartouches[:2])
    bobs_game.cancel()
    await bob.close()
    await ada.close()
    assert ada.states()[-1] == "closed"


async def test_an_unreachable_server_is_reported_and_retried(unused_tcp_port):
    ada = Player(unused_tcp_port, "ada")
    await until(lambda: ada.states().count("lost") >= 2)
    assert "cannot reach" in ada.statuses[-1].detail or ada.statuses[-1].attempt >= 1
    await ada.close()


async def test_a_token_the_server_does_not_know_gives_way_to_a_new_session(server):
    """A saved token from a server that has since lost its data (or from another server)."""
    statuses: list[Status] = []
    session = Session("127.0.0.1", server.port, "ada", on_frame=lambda frame: None, on_status=statuses.append,
                      resume="a-token-this-server-never-issued")
    task = asyncio.create_task(session.run())
    try:
        await until(lambda: session.connected)
        assert session.resume != "a-token-this-server-never-issued" and server.tokens.recognises(session.resume)
        assert "failed" not in [s.state for s in statuses]
    finally:
        await session.close()
        await asyncio.wait_for(task, 5)
