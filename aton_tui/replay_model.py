"""A recorded game, step by step, as the replay viewer shows it.

``SteppedRecord`` is what the viewers of every game share: the steps of a record, where its
rounds start, which perspectives may be shown, and who played.

``ReplayModel`` replays an ``aton-record/1`` once (``aton.record.steps``) and keeps the
position after each step: the start (the opening draw), then each move of the record.
It answers what the screen draws at a step, for a chosen perspective: the view
(``aton.views``: red's, blue's, a spectator's, or everything once the game is over) and
the log lines of that step, narrated as that side read them in the live game.

A record whose moves stop replaying keeps the steps before the bad move and the
error that names it (``error``), so the viewer can show both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from aton import events as E
from aton.errors import RecordError
from aton.game import GameState
from aton.moves import Move
from aton.players import BLUE, RED, Player
from aton.record import GameRecord, steps
from aton.views import View, full_view, view
from protocol import events as A
from protocol.game_frames import GameEvent

from .narrate import narrate, player_name


class Perspective(StrEnum):
    """Whose knowledge the viewer shows."""

    RED = "red"
    BLUE = "blue"
    SPECTATOR = "spectator"
    EVERYTHING = "everything"  # both hands and every cartouche: a finished game only

    @property
    def seat(self) -> Player | None:
        """The seat whose knowledge this is (None: a spectator's, or everything)."""
        return RED if self is Perspective.RED else BLUE if self is Perspective.BLUE else None

    @property
    def label(self) -> str:
        if self.seat is not None:
            return f"as {player_name(self.seat)} saw it"
        return "as a spectator saw it" if self is Perspective.SPECTATOR else "everything shown"

    @classmethod
    def of(cls, seat: Player | None) -> Perspective:
        return cls.SPECTATOR if seat is None else cls(str(seat))


@dataclass(frozen=True)
class ReplayStep:
    """The game after one step: the start (``move`` None, ``number`` 0), a move of the record
    (``number`` n: the n-th move), or the end the arbiter decided (``move`` None)."""

    number: int
    player: Player | None
    move: Move | None
    events: tuple[E.Event, ...]
    state: GameState


class Recorded(Protocol):
    """A record of any game: its ``meta`` names the players."""

    @property
    def meta(self) -> Mapping[str, Any]: ...

    @property
    def moves(self) -> Sequence[object]: ...


class Position(Protocol):
    """A game's state after a step, as far as stepping through it needs."""

    @property
    def round(self) -> int: ...

    def outcome(self) -> object | None: ...


class Stepped(Protocol):
    @property
    def number(self) -> int: ...

    @property
    def state(self) -> Position: ...


StepT = TypeVar("StepT", bound=Stepped)


def replayed(record_steps: Iterable[Any], moves: int, step: Callable[..., StepT],
             errors: type[ValueError]) -> tuple[list[StepT], ValueError | None]:
    """A record's steps (its game's ``record.steps``: player, move, events, state) as ``step``
    values, each holding a copy of its state, up to a move that does not replay (``errors``), and
    that error.  ``moves``: how many the record holds (the arbiter's end is no move of it)."""
    kept: list[StepT] = []
    try:
        for number, taken in enumerate(record_steps):
            kept.append(step(min(number, moves), taken.player, taken.move, taken.events, taken.state.copy()))
    except errors as exc:
        return kept, exc
    return kept, None


def seat_name(record: Recorded, seat: object) -> str:
    """The player in ``seat`` (a seat of any game) as the record's ``meta.players`` names them (a
    server's record: an object with ``name``; a hand-written one may give the name alone), else
    "Red"/"Blue"."""
    players: Any = record.meta.get("players")
    entry = players.get(str(seat)) if isinstance(players, dict) else None
    name = entry.get("name") if isinstance(entry, dict) else entry
    return name[:24] if isinstance(name, str) and name.strip() else player_name(seat)


class SteppedRecord(Generic[StepT]):
    """The steps of a replayed record (the start first), and moving about them: the steps up to
    a move that does not replay, and the error that names it (``error``)."""

    def __init__(self, record: Recorded, steps: list[StepT], error: ValueError | None) -> None:
        self.record = record
        self.steps = steps
        self.error = error  # why the record stops replaying (None: it replays)
        self.round_starts = [i for i, step in enumerate(steps)
                             if i == 0 or step.state.round != steps[i - 1].state.round]

    @property
    def last(self) -> int:
        """The index of the last step."""
        return len(self.steps) - 1

    @property
    def finished(self) -> bool:
        """Whether the game is over at its last step (then nothing needs hiding any more)."""
        return self.steps[-1].state.outcome() is not None

    @property
    def perspectives(self) -> tuple[Perspective, ...]:
        """The perspectives this record may be shown from: everything once the game is over."""
        sides = (Perspective.RED, Perspective.BLUE, Perspective.SPECTATOR)
        return (*sides, Perspective.EVERYTHING) if self.finished else sides

    def name(self, seat: object) -> str:
        """The player in ``seat`` as the record names them (``seat_name``)."""
        return seat_name(self.record, seat)

    def round_of(self, index: int) -> int:
        return self.steps[index].state.round

    def place(self, index: int) -> str:
        """Where step ``index`` is in the record: "Move 12/79", or "Start (79 moves)"."""
        total, number = len(self.record.moves), self.steps[index].number
        return f"Move {number}/{total}" if number else f"Start ({total} moves)"

    def round_step(self, index: int, rounds: int) -> int:
        """The step that starts a round ``rounds`` away: back to the start of this round first
        (when not there yet), then of the ones before; forward to the next rounds' starts, or
        the last step."""
        starts = self.round_starts
        if rounds < 0:
            earlier = [s for s in starts if s < index]
            return earlier[max(0, len(earlier) + rounds)] if earlier else 0
        later = [s for s in starts if s > index]
        return later[rounds - 1] if len(later) >= rounds else self.last


class ReplayModel(SteppedRecord[ReplayStep]):
    """Every step of an Aton record, with the views and log lines of each."""

    record: GameRecord
    error: RecordError | None

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record, *replayed(steps(record), len(record.moves), ReplayStep, RecordError))

    # ------------------------------------------------------------------ one step

    def view(self, index: int, perspective: Perspective) -> View:
        """What ``perspective`` knew after step ``index``."""
        state = self.steps[index].state
        if perspective is Perspective.EVERYTHING:
            return full_view(state)
        return view(state, perspective.seat)

    def lines(self, index: int, perspective: Perspective) -> list[str]:
        """Step ``index`` told as ``perspective`` read it in the live game's log (at least one line)."""
        step = self.steps[index]
        seat = perspective.seat
        told = [self._as_told(event, perspective) for event in step.events]
        lines = list(narrate(told, seat))
        if not lines and step.player is not None and step.move is not None:
            lines = [f"{player_name(step.player)}: {step.move.to_dict()['move']}."]
        return lines or ["The game begins."]

    @staticmethod
    def _as_told(event: E.Event, perspective: Perspective) -> GameEvent:
        """The event as ``perspective`` received it.  A commit is told as the arbiter tells it
        in a live game ("Red has committed"): the engine's own event is nobody's line."""
        if isinstance(event, E.Committed):
            return A.Committed(event.player)
        return event if perspective is Perspective.EVERYTHING else event.for_viewer(perspective.seat)

    def who_moves(self, index: int) -> Player | None:
        """Who plays the move after step ``index`` (None: no move follows)."""
        following = index + 1
        return self.steps[following].player if following < len(self.steps) else None

