"""Bots hosted by the server: the opponent behind "play a bot".

A hosted bot is a participant of its room like a network client: it receives
the same frames (its own view only) and answers with moves.  Searching bots think
in a worker process so that a one-second search never stalls other games; cheap
ones answer inline.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING

from aton.views import View
from bots.strategy import LEVELS, make_strategy
from protocol import messages as m

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)

#: levels whose strategy searches: run in a worker process
SEARCHING = {level for level, (base, _) in LEVELS.items() if base == "mcts"}


def bot_name(level: str) -> str:
    """The name a hosted bot of ``level`` plays under, e.g. ``Bot (easy)``."""
    return f"Bot ({level})"


def decide(level: str, seed: int, view_data: dict) -> dict:
    """One decision of a ``level`` bot for a view (runs in a worker process or inline)."""
    strategy = make_strategy(level, seed=seed)
    view = View.from_dict({k: v for k, v in view_data.items() if k != "commitments"})
    return strategy.choose(view).to_dict()


class BotRunner:
    """Runs bot decisions: inline for cheap levels, in one worker process for searches."""

    def __init__(self) -> None:
        self._pool: Executor | None = None

    async def decide(self, level: str, seed: int, view_data: dict) -> dict:
        if level not in SEARCHING:
            return decide(level, seed, view_data)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return await asyncio.get_running_loop().run_in_executor(self._pool, decide, level, seed, view_data)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class HostedBot:
    """One bot seat.  It sees exactly the frames a client in that seat would get."""

    kind = "hosted"

    def __init__(self, level: str, runner: BotRunner, seed: int | None = None) -> None:
        self.level = level
        self.name = bot_name(level)
        self.runner = runner
        self.rng = random.Random(seed)
        self.room: "Room | None" = None
        self.seat = ""
        self._thinking_on: int | None = None  # the version a decision is being made for

    def sit(self, room: "Room", seat: str) -> None:
        self.room, self.seat = room, seat

    def deliver(self, message: m.Message) -> None:
        if isinstance(message, m.Update):
            for event in message.events:
                if event.get("type") == "rematch_offered" and event.get("player") != self.seat:
                    asyncio.get_running_loop().call_soon(self._accept_rematch)
        if isinstance(message, (m.GameState, m.Update)) and self._must_decide(message.view):
            if self._thinking_on != message.version:
                self._thinking_on = message.version
                asyncio.get_running_loop().create_task(self._think(message.version, message.view))

    def _must_decide(self, view: dict) -> bool:
        decision = view.get("decision")
        if decision is None or view.get("winner") is not None:
            return False
        return decision["kind"] != "commit" or view["commitments"][self.seat] == "none"

    async def _think(self, version: int, view: dict) -> None:
        room = self.room
        try:
            move = await self.runner.decide(self.level, self.rng.getrandbits(63), view)
        except Exception:
            log.exception("hosted bot %s in game %s failed to decide; it plays the default move",
                          self.level, room and room.game_id)
            move = None
        if room is None or room.version != version or room.game.is_over:
            return  # the game moved on meanwhile (a time-out, a resignation)
        try:
            self._play(room, move or room.game.default_move(self.seat))
        except Exception:
            log.exception("hosted bot %s in game %s made a refused move; it plays the default move",
                          self.level, room.game_id)
            self._play(room, room.game.default_move(self.seat))

    def _play(self, room: "Room", move: dict) -> None:
        if move["move"] == room.game.sealed_kind:
            room.seal_cards(self.seat, move["cards"])
        else:
            room.play_hosted(self.seat, move)

    def _accept_rematch(self) -> None:
        room = self.room
        if room is not None and room.game.is_over and self.seat not in room.rematch_offers:
            room.handle(self.seat, m.Rematch(game=room.game_id, accept=True), self)
