"""Fixed games of Atlas & Zeus for snapshots: frames as a server would send them to red, no server.

``ScriptedAZ`` plays a seeded game with seeded choices on the engine (``atlas_zeus``) and
records, for red, the first ``game_state`` and one ``update`` per decision, numbered as the
arbiter numbers them (a programming red must still make shows blue's slots sealed, as the
arbiter shows them).  ``AZFramesApp`` is the real client fed those frames, clocks frozen.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from atlas_zeus.game import GameState, new_game
from atlas_zeus.players import BLUE, RED
from atlas_zeus.views import view
from aton.players import BLUE as ATON_BLUE
from aton.players import RED as ATON_RED
from aton_tui.app import AtonApp, Frame, Launch, StatusChanged
from aton_tui.session import Status
from protocol.game_frames import Numbered, SeatClock, Seated, ZeusStateFrame, ZeusUpdateFrame

from .conftest import quiet_settings
from .scripted import FROZEN_NOW, RecordingSession

GAME = 21
PLAYERS = {ATON_RED: Seated("Ada", "human", True), ATON_BLUE: Seated("Bot (greedy)", "bot", True)}
OPTIONS = {"game": "atlas-zeus", "clock": "normal", "private": True,
           "time_control": {"commit": 90, "open": 15, "move": 30, "grace": 60, "max_strikes": 3}}


class ScriptedAZ:
    def __init__(self, seed: int = 3, choices: int = 5) -> None:
        self.state: GameState = new_game(seed)
        self.rng = random.Random(choices)
        self.version = 0
        self.updates: list[ZeusUpdateFrame] = []
        self.first = self.game_state()

    def _clocks(self) -> dict:
        pending = set(self.state.pending())
        return {aton: SeatClock(84_000 if seat in pending else None, "move" if seat in pending else None, 0)
                for aton, seat in ((ATON_RED, RED), (ATON_BLUE, BLUE))}

    def _sealed(self) -> dict:
        """Blue's programming sealed while red has still to program (blue had the initiative)."""
        state = self.state
        if state.phase == "program" and state.initiative is BLUE and state.programmed[BLUE] \
                and not state.programmed[RED]:
            return {ATON_BLUE: "sealed"}
        return {}

    def game_state(self) -> ZeusStateFrame:
        commitments = {ATON_RED: "none", ATON_BLUE: "none", **self._sealed()}
        return ZeusStateFrame(game=GAME, version=self.version, seat=ATON_RED, players=PLAYERS, options=OPTIONS,
                              view=view(self.state, RED), commitments=commitments,
                              clocks=self._clocks(), log=())

    def _publish(self, events: list) -> None:
        numbered = tuple(Numbered(self.version + 1 + i, e.for_viewer(RED)) for i, e in enumerate(events))
        self.version += len(events)
        commitments = {ATON_RED: "none", ATON_BLUE: "none", **self._sealed()}
        self.updates.append(ZeusUpdateFrame(game=GAME, version=self.version, events=numbered,
                                        view=view(self.state, RED),
                                        commitments=commitments,
                                        clocks=self._clocks()))

    def step(self) -> None:
        """The player to move chooses with the seeded choices."""
        player = self.state.pending()[0]
        moves = sorted(self.state.legal_moves(player), key=lambda move: json.dumps(move.to_dict()))  # any order
        events: list = []
        self.state.play(player, self.rng.choice(moves), events)
        self._publish(events)

    def play_until(self, done: Callable[[ScriptedAZ], bool], limit: int = 600) -> None:
        for _ in range(limit):
            if done(self) or self.state.is_over:
                return
            self.step()
        raise AssertionError("the scripted game did not reach the wanted point")

    @property
    def frames(self) -> list[ZeusStateFrame | ZeusUpdateFrame]:
        return [self.first, *self.updates]


def red_to(kind: str, round_at_least: int = 1) -> Callable[[ScriptedAZ], bool]:
    """Done when red must decide ``kind`` ("program", "harpoon", …) in that round or later."""
    def done(script: ScriptedAZ) -> bool:
        state = script.state
        return state.round >= round_at_least and RED in state.pending() and state.decision_kind(RED) == kind
    return done


class AZFramesApp(AtonApp):
    """The client fed fixed frames of Atlas & Zeus instead of a connection; time stands still."""

    def __init__(self, frames: list[ZeusStateFrame | ZeusUpdateFrame], **settings) -> None:
        super().__init__(Launch(name="Ada"), quiet_settings(**settings),
                         clock=lambda: FROZEN_NOW, wall_clock=lambda: 1_700_000_000.0)
        self.frames = frames
        self.recording = RecordingSession()
        self.session = self.recording

    async def _run(self) -> None:
        self.post_message(StatusChanged(Status("connected", "scripted")))
        for frame in self.frames:
            self.post_message(Frame(frame))
