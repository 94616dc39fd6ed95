"""Fixed games for snapshots: frames as a server would send them to red, with no server.

``ScriptedGame`` plays a seeded game with seeded choices through the server's own
game wrapper (``server.games.AtonGame``) and records, for red, the first
``game_state`` and one ``update`` per move, numbered as the arbiter numbers them.
``FramesApp`` is the real client fed those frames instead of a connection, with
its clocks frozen, so every screenshot is the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from aton.moves import RESIGN, Commit, Place, Remove
from aton.players import BLUE, RED, Player
from aton_tui.app import AtonApp, Frame, Launch, StatusChanged
from aton_tui.session import Status
from protocol import messages as m
from protocol.game_frames import typed
from server.clock import Clock
from server.games import AtonGame

from .conftest import quiet_settings

ME = RED  # the receiver of every frame
SEAT = str(ME)
PLAYERS = {"red": {"name": "Ada", "kind": "human", "connected": True},
           "blue": {"name": "Bot (normal)", "kind": "bot", "connected": True}}
OPTIONS = {"clock": "normal", "private": True,
           "time_control": {"commit": 90, "open": 15, "move": 30, "grace": 60, "max_strikes": 3}}
FROZEN_NOW = 1000.0


class ScriptedGame:
    def __init__(self, seed: int = 7, choices: int = 11) -> None:
        self.game = AtonGame(seed)
        self.rng = random.Random(choices)
        self.version = 0
        self.first = self.game_state()
        self.updates: list[m.Update] = []

    @staticmethod
    def _commitments(sealed: tuple[str, ...] = ()) -> dict:
        return {s: "sealed" if s in sealed else "none" for s in ("red", "blue")}

    def _clocks(self) -> dict:
        pending = {str(seat) for seat in self.game.pending()}
        kind = "commit" if self.game.sealed else "move"
        return {s: {"remaining_ms": 84_000 if s in pending else None, "for": kind if s in pending else None,
                    "strikes": 0} for s in ("red", "blue")}

    def game_state(self, sealed: tuple[str, ...] = ()) -> m.GameState:
        """The whole game as red sees it now (``sealed``: the seats whose commitment waits)."""
        return m.GameState(game=12, version=self.version, seat=SEAT, players=PLAYERS, options=OPTIONS,
                           view=self.game.view(ME), clocks=self._clocks(), commitments=self._commitments(sealed))

    def _publish(self, events: list[dict], sealed: tuple[str, ...] = ()) -> None:
        numbered = tuple({**e, "version": self.version + 1 + i} for i, e in enumerate(events))
        self.version += len(events)
        self.updates.append(m.Update(game=12, version=self.version, events=numbered, view=self.game.view(ME),
                                     clocks=self._clocks(), commitments=self._commitments(sealed)))

    def blue_seals(self) -> None:
        """The arbiter announces blue's sealed commitment (not applied yet)."""
        self._publish([{"type": "committed", "player": "blue"}], sealed=("blue",))

    def blue_says(self, text: str) -> None:
        self._publish([{"type": "chat", "player": "blue", "name": PLAYERS["blue"]["name"], "text": text}])

    def _cards(self, seat: Player) -> tuple[int, int, int, int]:
        cards = list(self.game.view(seat)["decision"]["hand"])
        self.rng.shuffle(cards)
        c1, c2, c3, c4 = cards
        return c1, c2, c3, c4

    def commit_round(self) -> None:
        """Red seals too; both commitments are opened and played (blue's first, as sealed)."""
        red = self._cards(RED)
        events = self.game.play(BLUE, Commit(self._cards(BLUE)))
        events += self.game.play(RED, Commit(red))
        self._publish([{"type": "committed", "player": "red"}, {"type": "open_requested"},
                       *self.game.events_for(events, [ME])[ME]])

    def move(self, seat: Player) -> None:
        """``seat`` chooses a square with the seeded choices."""
        decision = self.game.view(seat)["decision"]
        temple, square = self.rng.choice(decision["squares"])
        move = (Place if decision["kind"] == "place" else Remove)(temple, square)
        self._publish(self.game.events_for(self.game.play(seat, move), [ME])[ME])

    def resign(self, seat: Player) -> None:
        self._publish(self.game.events_for(self.game.play(seat, RESIGN), [ME])[ME])

    def play_until(self, done: Callable[[ScriptedGame], bool], limit: int = 400) -> None:
        """Play decision by decision until ``done`` (checked before each one)."""
        for _ in range(limit):
            if done(self) or self.game.is_over:
                return
            if self.game.sealed:
                self.blue_seals()
                self.commit_round()
            else:
                self.move(self.game.pending()[0])
        raise AssertionError("the scripted game did not reach the wanted point")

    @property
    def frames(self) -> list[m.Message]:
        return [self.first, *self.updates]


def red_to(kind: str, round_at_least: int = 1) -> Callable[[ScriptedGame], bool]:
    """Done when red must decide ``kind`` ("commit", "remove", "place") in that round or later."""
    def done(script: ScriptedGame) -> bool:
        view = script.game.view(ME)
        return view["round"] >= round_at_least and (view["decision"] or {}).get("kind") == kind
    return done


def just_scored(script: ScriptedGame) -> bool:
    """Done right after the update that holds a scoring round."""
    return any(e.get("type") == "category_scored" for u in script.updates[-1:] for e in u.events)


class RecordingSession:
    """Stands in for the connection: it keeps what the client sends."""

    welcome = None  # no server: nothing was said on connecting

    def __init__(self) -> None:
        self.sent: list = []

    async def send(self, msg: m.Message) -> int:
        self.sent.append(msg)
        return len(self.sent)

    async def commit(self, game: int, cards: tuple[int, ...]) -> int:
        self.sent.append(("commit", game, tuple(cards)))
        return len(self.sent)

    def sealed(self, game: int) -> None:
        return None

    async def act(self, game: int, move: dict) -> int:
        self.sent.append(("act", game, move))
        return len(self.sent)

    async def program(self, game: int, move: dict) -> int:
        self.sent.append(("program", game, move))
        return len(self.sent)

    async def run(self) -> None:
        pass

    async def close(self) -> None:
        pass


class FramesApp(AtonApp):
    """The client fed fixed frames instead of a connection; time stands still."""

    def __init__(self, frames: list[m.Message], pacing: Clock | None = None, **settings) -> None:
        super().__init__(Launch(name="Ada"), quiet_settings(**settings),
                         clock=lambda: FROZEN_NOW, wall_clock=lambda: 1_700_000_000.0, pacing=pacing)
        self.frames = frames
        self.recording = RecordingSession()
        self.session = self.recording

    async def _run(self) -> None:
        self.post_message(StatusChanged(Status("connected", "scripted")))
        for frame in self.frames:
            self.post_message(Frame(typed(frame)))  # decoded as the session decodes what it reads


def blue_opens_a_round(script: ScriptedGame, round_at_least: int = 2) -> m.GameState:
    """Play on to a round that blue plays first, and through blue's turn up to red's first
    decision in it.  Returns the game state red had when blue had sealed and red had not yet:
    the updates after it (``frames_after``) hold the reveals and all of blue's turn."""
    for _ in range(30):
        script.play_until(red_to("commit", round_at_least))
        script.blue_seals()
        state = script.game_state(sealed=("blue",))
        script.commit_round()
        order = next(e for e in script.updates[-1].events if e["type"] == "turn_order_decided")
        if order["first"] == "blue":
            script.play_until(lambda s: s.game.pending() == (RED,))
            return state
    raise AssertionError("no round that blue plays first")


def frames_after(script: ScriptedGame, state: m.GameState) -> list[m.Message]:
    """``state``, then the updates that came after it."""
    return [state, *(u for u in script.updates if u.version > state.version)]
