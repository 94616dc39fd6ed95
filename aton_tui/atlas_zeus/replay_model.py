"""A recorded game of Atlas & Zeus, step by step, as its replay viewer shows it.

``ZeusReplayModel`` replays an ``atlas-zeus-record/1`` once (``atlas_zeus.record.steps``:
``GameState.play`` from ``new_game(seed, options)``) and keeps the state after each step: the
start (the opening draw), then each move of the record.  It answers what the viewer draws at
a step, for a perspective: the view (``atlas_zeus.views.view``: red's, blue's, a spectator's,
or everything — both hands and every face-down card — once the game is over) and the log
lines of that step, narrated as that side read them.

A record whose moves stop replaying keeps the steps before the bad move and the error that
names it (``error``), so the viewer can show both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from atlas_zeus import events as Z
from atlas_zeus.errors import RecordError
from atlas_zeus.game import GameState
from atlas_zeus.moves import Move
from atlas_zeus.players import BLUE, RED, Player
from atlas_zeus.record import GameRecord, steps
from atlas_zeus.views import View, view

from ..narrate import player_name
from ..replay_model import Perspective, SteppedRecord, replayed
from .words import narrate


@dataclass(frozen=True)
class ZeusStep:
    """The game after one step: the start (``move`` None, ``number`` 0), a move of the record
    (``number`` n: the n-th move), or the end the arbiter decided (``move`` None)."""

    number: int
    player: Player | None
    move: Move | None
    events: tuple[Z.Event, ...]
    state: GameState


def clan_of(perspective: Perspective) -> Player | None:
    """The clan whose knowledge ``perspective`` shows (None: a spectator's, or everything)."""
    seat = perspective.seat
    return None if seat is None else Player.parse(str(seat))


def everything(state: GameState) -> View:
    """The view that hides nothing: both hands and every card on the track, face down or not."""
    red, blue = view(state, RED), view(state, BLUE)
    track = tuple(mine if mine.card is not None else theirs for mine, theirs in zip(red.track, blue.track, strict=True))
    return replace(view(state, None), players=(red.player(RED), blue.player(BLUE)), track=track)


class ZeusReplayModel(SteppedRecord[ZeusStep]):
    """Every step of an Atlas & Zeus record, with the views and log lines of each."""

    record: GameRecord
    error: RecordError | None

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record, *replayed(steps(record), len(record.moves), ZeusStep, RecordError))

    def view(self, index: int, perspective: Perspective) -> View:
        """What ``perspective`` knew after step ``index``."""
        state = self.steps[index].state
        if perspective is Perspective.EVERYTHING:
            return everything(state)
        return view(state, clan_of(perspective))

    def lines(self, index: int, perspective: Perspective) -> list[str]:
        """Step ``index`` told as ``perspective`` read it in the live game's log (at least one line)."""
        step = self.steps[index]
        clan = clan_of(perspective)
        told = step.events if perspective is Perspective.EVERYTHING else [e.for_viewer(clan) for e in step.events]
        lines = list(narrate(told, clan))
        if not lines and step.player is not None and step.move is not None:  # a choice told later (Volcano)
            details = ", ".join(f"{key} {value}" for key, value in step.move.to_dict().items() if key != "kind")
            lines = [f"{player_name(step.player)} chooses: {step.move.kind}{f' ({details})' if details else ''}."]
        return lines or ["The game begins."]
