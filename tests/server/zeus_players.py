"""Scripted Atlas & Zeus clients for the server tests: each answers the decision of its own view
with the ``random`` strategy of ``bots.atlas_zeus`` (which reads the view alone), seals its
programming (``commit`` with its slots; the client opens it when asked) or, under Open hand,
sends it in the clear, and records every frame it receives (``Recorder``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from atlas_zeus.views import View
from bots.atlas_zeus import strategy_named
from protocol import messages as m
from protocol.client import Client

from .players import Recorder

GAME = "atlas-zeus"


class ZeusPlayer(Recorder):
    """A player of Atlas & Zeus; ``seed`` seeds its strategy."""

    def __init__(self, client: Client, seed: int = 0) -> None:
        super().__init__(client)
        self.strategy = strategy_named("random", seed)
        self._requests: set[int] = set()  # the requests this player sent for its decisions
        #: a decision of ours was acknowledged: the next view is the one after it, even with the
        #: version it had (a move may cause no event: a Volcano's choice of island, until its flee)
        self._answered = False

    async def recv(self, timeout: float = 10) -> m.Message:
        msg = await super().recv(timeout)
        if isinstance(msg, (m.Ack, m.Error)) and msg.reply_to in self._requests:
            self._requests.discard(msg.reply_to)
            self._answered = isinstance(msg, m.Ack)
        elif isinstance(msg, (m.GameState, m.Update)) and self._answered:
            self._answered = False
            self.acted_on = -1
        return msg

    @classmethod
    async def join(cls, port: int, name: str, seed: int, **kwargs: Any) -> ZeusPlayer:
        """A client of its own account (``Recorder.connect``) playing with a strategy seeded ``seed``."""
        return cls((await Recorder.connect(port, name, **kwargs)).client, seed)

    @property
    def over(self) -> bool:
        return self._view is not None and self._view.get("outcome") is not None

    def my_decision(self) -> dict | None:
        view = self._view
        if self.acted_on == self.version or view is None or view.get("outcome") is not None:
            return None
        decision = view["decision"]
        if decision is None:
            return None
        if decision["kind"] == "program" and (self.commitments.get(self.seat) != "none"
                                              or self.client.has_sealed(self.game)):
            return None
        return decision

    def choose(self) -> dict:
        """The move the strategy chooses for the decision of the latest view."""
        move: dict = self.strategy.choose(View.from_dict(self.view)).to_dict()
        return move

    async def act(self, rng: object = None) -> bool:
        """Answer the decision due, if any; True if a move was sent."""
        decision = self.my_decision()
        if decision is None:
            return False
        self.acted_on = self.version
        move = self.choose()
        if move["kind"] == "program" and not self.view["players"][self.seat]["open_hand"]:
            request = await self.client.commit_program(self.game, move["cards"])
        else:
            request = await self.send(m.Act(game=self.game, move=move))
        assert request is not None
        self.sent[request] = move
        self._requests.add(request)
        return True

    async def play(self, rng: object = None, stop=lambda recorder: False, timeout: float = 20) -> None:
        """Play until the game is over or ``stop(self)`` is true."""
        while not self.over and not stop(self):
            await self.act()
            try:
                await self.recv(timeout)
            except TimeoutError:
                raise AssertionError(f"{self.seat} waited {timeout} s for a frame: {self.stalled()}") from None

    def stalled(self) -> str:
        """What this player saw last (for a test that waits in vain)."""
        view = self._view or {}
        decision = view.get("decision")
        return (f"phase {view.get('phase')}, pending {view.get('pending')}, decision "
                f"{None if decision is None else decision['kind']}, commitments {self.commitments}, "
                f"clocks {self._clocks}, acted on {self.acted_on} of {self.version}, "
                f"sealed {self.client.has_sealed(self.game)}, last events "
                f"{[e['type'] for e in self.events()[-8:]]}, errors {self.errors()}")


async def zeus_pair(port: int, seeds: tuple[int, int] = (1, 2)) -> tuple[ZeusPlayer, ZeusPlayer]:
    """Two players seated at one Atlas & Zeus game through a public table, ordered red, blue."""
    a = await ZeusPlayer.join(port, "athena", seeds[0], kind="bot", lobby=False)
    b = await ZeusPlayer.join(port, "hermes", seeds[1], kind="bot", lobby=False)
    await a.send(m.CreateTable(game=GAME))
    table = await a.expect(m.TableCreated)
    assert table.game == GAME
    await b.send(m.JoinTable(table=table.table))
    await asyncio.gather(a.expect(m.GameState), b.expect(m.GameState))
    return (a, b) if a.seat == "red" else (b, a)


async def play_until_dropped(player: ZeusPlayer) -> None:
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, OSError):
        await player.play()
