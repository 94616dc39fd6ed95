"""``atlas-zeus-record/1``: a JSON document that fully describes a game of Atlas & Zeus.

A record holds the seed, the options (only when they are not the defaults), every decision
in order (``{"player": "red", "kind": …, …the move's fields}``; each decision's round follows
from replaying) and free-form ``meta``.  ``replay`` rebuilds the game; a record may end
mid-game.  A game the arbiter ended (time, abandoned) ends with no move: ``meta.result`` says
so, and ``replay`` ends the game there as it did.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalMove, RecordError
from .events import Event
from .game import GameState, new_game
from .moves import Move, move_from_dict
from .options import DEFAULT_OPTIONS, Options
from .outcome import Outcome
from .players import PLAYERS, Player

FORMAT = "atlas-zeus-record/1"
#: The game's name, as tables and ``game_state.options["game"]`` say it.
GAME = "atlas-zeus"


@dataclass
class GameRecord:
    seed: int
    options: Options = DEFAULT_OPTIONS
    moves: list[tuple[Player, Move]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # free-form JSON

    @property
    def result(self) -> Outcome | None:
        """How the game ended, as ``meta.result`` says (None: it does not say)."""
        return _result_of(self.meta)

    def add(self, player: Player, move: Move) -> None:
        self.moves.append((player, move))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": FORMAT, "seed": self.seed}
        if self.options != DEFAULT_OPTIONS:
            data["options"] = self.options.to_dict()
        data["moves"] = [{"player": str(p), **m.to_dict()} for p, m in self.moves]
        data["meta"] = dict(self.meta)
        return data

    @classmethod
    def from_dict(cls, data: object) -> GameRecord:
        """Parse and check a record's structure (not yet the legality of its moves)."""
        if not isinstance(data, dict):
            raise RecordError("a record must be a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"format must be {FORMAT!r}, got {data.get('format')!r}")
        seed = data.get("seed")
        if type(seed) is not int:
            raise RecordError(f"seed must be an integer, got {seed!r}")
        options = DEFAULT_OPTIONS
        if "options" in data:
            if not isinstance(data["options"], dict):
                raise RecordError("options must be an object")
            try:
                options = Options.from_dict(data["options"])
            except (TypeError, ValueError) as exc:
                raise RecordError(f"options: {exc}") from None
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("meta must be an object")
        raw_moves = data.get("moves", [])
        if not isinstance(raw_moves, list):
            raise RecordError("moves must be a list")
        moves = []
        for i, entry in enumerate(raw_moves):
            try:
                if not isinstance(entry, dict):
                    raise ValueError("a move must be an object")
                moves.append((Player.parse(entry.get("player")), move_from_dict(entry)))
            except ValueError as exc:
                raise RecordError(str(exc), move_index=i) from None
        _result_of(meta)  # checked with the rest of the structure
        return cls(seed=seed, options=options, moves=moves, meta=dict(meta))


def _result_of(meta: dict[str, Any]) -> Outcome | None:
    result = meta.get("result")
    if result is None:
        return None
    if not isinstance(result, dict):
        raise RecordError("meta.result must be an object or null")
    try:
        return Outcome.from_dict(result)
    except ValueError as exc:
        raise RecordError(f"meta.result: {exc}") from None


@dataclass(frozen=True)
class Step:
    """One step of a replay: the move (None at the start and for the arbiter's end), who
    played it, its events, and the state after it (the same object each step: copy to keep)."""

    player: Player | None
    move: Move | None
    events: tuple[Event, ...]
    state: GameState


def steps(record: GameRecord) -> Iterator[Step]:
    """``record`` replayed one step at a time.  RecordError, raised when the replay gets there,
    names the first illegal move or says how ``meta.result`` contradicts the moves."""
    opening: list[Event] = []
    state = new_game(record.seed, record.options, opening)
    yield Step(None, None, tuple(opening), state)
    for i, (player, move) in enumerate(record.moves):
        events: list[Event] = []
        try:
            state.play(player, move, events)
        except IllegalMove as exc:
            raise RecordError(f"{player} {move.kind} in round {state.round}: {exc}", move_index=i) from None
        yield Step(player, move, tuple(events), state)
    result = record.result
    if result is not None and state.outcome() is None and result.termination.is_arbiter_decided:
        if result.winner is None:
            raise RecordError(f"meta.result: a game lost on {result.termination} has a winner, not a draw")
        events = []
        state.forfeit(result.winner.other, result.termination, events)
        yield Step(None, None, tuple(events), state)
    if result is not None and state.outcome() != result:
        ended = state.outcome()
        moves_say = "leave the game unfinished" if ended is None else f"end it as {_told(ended)}"
        raise RecordError(f"meta.result says the game ended as {_told(result)}, but its moves {moves_say}")


def replay(record: GameRecord) -> GameState:
    """The state after every move of ``record`` (and the arbiter's end it records)."""
    for step in steps(record):
        state = step.state
    return state


def _told(outcome: Outcome) -> str:
    who = "a draw" if outcome.winner is None else f"{outcome.winner} won"
    return f"{who} ({outcome.termination})"


def summary(state: GameState) -> dict[str, object]:
    """The machine-readable summary of a position (``aton replay --json`` on such a record)."""
    outcome = state.outcome()
    return {
        "game": GAME,
        "round": state.round,
        "phase": state.phase.value,
        "ring": list(state.ring),
        "flood": state.flood,
        "alive": {str(p): state.alive(p) for p in PLAYERS},
        "pending": [str(p) for p in state.pending()],
        **({"winner": None, "reason": None} if outcome is None else outcome.to_dict()),
    }
