"""The lesson's game, played by the engine inside the client: no server, no clock, no database.

``GuidedGame`` starts a game on the lesson's decks (``lesson.DECKS``) and follows its script
(``lesson.STEPS``): the learner's moves are checked against the step at hand (``correction``
says what was expected instead, and nothing is played), the bot's are played as soon as
they are due.  It speaks the frames a game screen reads from a server — a
``GameStateFrame`` to start, an ``UpdateFrame`` per move — as the learner (Red) would
receive them, with the arbiter's "committed" announcements, so the lesson is shown by the
real game screen and its widgets.

Why not a table on the in-process server: the lesson needs fixed decks, a scripted bot and
no clock, and must not be saved, resumed or listed as a game; the engine behind the frames
the screen already reads gives all that with one small class, and no network option exists
that could start a game on chosen decks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from aton import events as E
from aton.game import GameState, new_game
from aton.moves import Move, Place, Remove
from aton.players import PLAYERS, Player
from aton.views import View, view
from protocol import events as A
from protocol.game_frames import GameEvent, GameStateFrame, Numbered, Seated, UpdateFrame

from .lesson import DECKS, LEARNER, STEPS, TEACHER, TEACHER_NAME, Step, correction

#: The lesson's game number (it is no server's game).
LESSON_GAME = 0
#: The lesson's seed: it is never used (the decks are fixed and nobody shuffles in five rounds),
#: but a game record needs one.
LESSON_SEED = 0
#: Nobody seals on a server here: every seat's commitment is "none" in the frames.
NO_SEALS = {p: "none" for p in PLAYERS}


class ScriptBroken(Exception):
    """The script asks for a move the engine does not allow: the lesson and the rules disagree."""


class GuidedGame:
    def __init__(self, learner_name: str, steps: tuple[Step, ...] = STEPS,
                 decks: tuple[tuple[int, ...], tuple[int, ...]] = DECKS) -> None:
        self.players = {LEARNER: Seated(learner_name, "human", True), TEACHER: Seated(TEACHER_NAME, "bot", True)}
        self.steps = steps
        self.state: GameState
        self.state, opening = new_game(LESSON_SEED, decks)
        self.index = 0  # the step at hand
        self.played: list[Move] = []  # the moves of that step played so far
        self.version = 0
        self.log: list[Numbered] = []
        self._number(opening)
        self._play_the_bot()

    # ------------------------------------------------------------------ where the lesson stands

    @property
    def step(self) -> Step | None:
        """The learner's step at hand (None: the script is played to its end)."""
        return self.steps[self.index] if self.index < len(self.steps) else None

    @property
    def expected(self) -> tuple[Move, ...]:
        """The moves of the step at hand still to play (any of them may come next)."""
        step = self.step
        if step is None:
            return ()
        left = list(step.moves)
        for move in self.played:
            left.remove(move)
        return tuple(left)

    @property
    def expected_squares(self) -> tuple[tuple[int, int], ...]:
        """The (temple, square) of each removal or placement the step at hand still expects."""
        return tuple((move.temple, move.square) for move in self.expected if isinstance(move, (Place, Remove)))

    @property
    def finished(self) -> bool:
        """Nothing is left to play (the last step may be words only)."""
        return not self.expected

    def correction(self, move: Move) -> str | None:
        """None if ``move`` is one the step expects; else what to say instead (nothing is played)."""
        expected = self.expected
        return None if move in expected else correction(expected or (move,))

    # ------------------------------------------------------------------ frames

    def game_state(self) -> GameStateFrame:
        return GameStateFrame(game=LESSON_GAME, version=self.version, seat=LEARNER, players=dict(self.players),
                              options={}, view=self._view(), commitments=dict(NO_SEALS), clocks={},
                              log=tuple(self.log))

    def _view(self) -> View:
        """The learner's view; the exchange is not offered (the lesson's cards are fixed)."""
        seen = view(self.state, LEARNER)
        if seen.decision is None or not seen.decision.can_exchange:
            return seen
        return replace(seen, decision=replace(seen.decision, can_exchange=False))

    def play(self, move: Move) -> UpdateFrame:
        """The learner's ``move`` (one ``correction`` accepted), and the bot's moves due after it."""
        if self.correction(move) is not None:
            raise ValueError(f"{move} is not a move of this step of the lesson")
        start = len(self.log)
        self._apply(LEARNER, move)
        self.played.append(move)
        if not self.expected:
            self._next_step()
        self._play_the_bot()
        return UpdateFrame(game=LESSON_GAME, version=self.version, events=tuple(self.log[start:]),
                           view=self._view(), commitments=dict(NO_SEALS), clocks={})

    def _next_step(self) -> None:
        self.index += 1
        self.played = []

    def _play_the_bot(self) -> None:
        while (step := self.step) is not None and step.player is TEACHER:
            for move in step.moves:
                self._apply(TEACHER, move)
            self._next_step()

    def _apply(self, player: Player, move: Move) -> None:
        if player not in self.state.pending() or move not in self.state.legal_moves(player):
            raise ScriptBroken(f"step {self.index + 1}: {player} cannot play {move} now "
                               f"({self.state.phase}, {self.state.pending()} to move)")
        events: list[E.Event] = []
        self.state.play(player, move, events)
        self._number(events)

    def _number(self, events: Iterable[E.Event]) -> None:
        for event in as_received(events):
            self.version += 1
            self.log.append(Numbered(self.version, event))


def as_received(events: Iterable[E.Event]) -> list[GameEvent]:
    """The engine's events as the learner receives them from a server: the opponent's drawn cards
    hidden, each commitment announced by the arbiter, and the opening of both once both are in."""
    received: list[GameEvent] = []
    for event in events:
        if isinstance(event, E.Committed):
            received.append(A.Committed(event.player))
            continue
        if isinstance(event, E.CardRevealed) and event.cartouche == 1 and not isinstance(received[-1], E.CardRevealed):
            received.append(A.OpenRequested())  # before the first of the two cartouche 1 cards turned up
        received.append(event.for_viewer(LEARNER))
    return received
