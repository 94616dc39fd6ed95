"""Bots hosted by the server: the opponent behind "play a bot".

A hosted bot is a participant of its room like a network client: it receives
the same frames (its own view only) and answers with moves.  It asks the
server's ``BotScheduler`` for each decision, which searches in a worker process,
in turn with the other games' bots and within the seat's clock.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING

from protocol import messages as m

from .accounts import bot_name
from .bot_scheduler import BotScheduler, Decision

if TYPE_CHECKING:
    from .room import GameSeat, Room

log = logging.getLogger(__name__)


class HostedBot:
    """One bot seat.  It sees exactly the frames a client in that seat would get."""

    kind = "hosted"

    def __init__(self, level: str, scheduler: BotScheduler, seed: int | None = None) -> None:
        self.level = level
        self.name = bot_name(level)
        self.scheduler = scheduler
        self.rng = random.Random(seed)
        self.room: Room | None = None
        self.seat: GameSeat | None = None
        self.decision: Decision | None = None  # the latest decision asked for
        self._asked_at: tuple[int, int] | None = None  # (game, move count) of the decision due; None: none is

    def sit(self, room: Room, seat: GameSeat) -> None:
        self.room, self.seat = room, seat

    def deliver(self, message: m.Message) -> None:
        if isinstance(message, m.Update):
            for event in message.events:
                if event.get("type") == "rematch_offered" and event.get("player") != str(self.seat):
                    asyncio.get_running_loop().call_soon(self._accept_rematch)
        if isinstance(message, (m.GameState, m.Update)):
            self._consider(message.view, m.commitments_of(message))

    def _consider(self, view: dict, commitments: dict[str, str]) -> None:
        """Ask for a decision when one is due and not asked for yet; withdraw one no longer due."""
        room = self.room
        if room is None or not self._must_decide(view, commitments):
            self._withdraw()
            return
        position = (room.game_id, room.move_count)
        if position == self._asked_at:
            return  # asked already: what happened since (a commitment, a chat line) changes nothing
        self._withdraw()
        self._asked_at = position
        self.decision = decision = self.scheduler.ask(room.game_id, self.level, self.rng.getrandbits(63), view,
                                                      deadline=room.seats[self.seat].deadline, kind=room.game.name)
        decision.answer.add_done_callback(lambda _: self._answered(decision, position))

    def _withdraw(self) -> None:
        """The decision asked for is due no more (or a newer one is): it will not be played."""
        self._asked_at = None
        if self.decision is not None:
            self.scheduler.withdraw(self.decision)

    def _must_decide(self, view: dict, commitments: dict[str, str]) -> bool:
        decision = view.get("decision")
        if decision is None or view.get("winner") is not None:
            return False
        return decision["kind"] != "commit" or commitments[str(self.seat)] == "none"

    def _answered(self, decision: Decision, position: tuple[int, int]) -> None:
        room = self.room
        if position != self._asked_at or decision.answer.cancelled() or room is None:
            return  # withdrawn: the game moved on meanwhile (a time-out, a resignation)
        error = decision.answer.exception()
        if error is not None:
            log.error("hosted bot %s in game %s failed to decide; it plays the default move",
                      self.level, room.game_id, exc_info=error)
        try:
            room.play_hosted(self.seat, room.game.default_move(self.seat) if error is not None
                             else room.game.decode_move(decision.answer.result()))
        except Exception:
            log.exception("hosted bot %s in game %s made a refused move; it plays the default move",
                          self.level, room.game_id)
            room.play_hosted(self.seat, room.game.default_move(self.seat))

    def _accept_rematch(self) -> None:
        room = self.room
        if room is not None and room.game.is_over and self.seat not in room.rematch_offers:
            room.handle(self.seat, m.Rematch(game=room.game_id, accept=True), self)
