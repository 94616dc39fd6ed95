"""``aton-record/1``: a JSON document that fully describes a game (see docs/records.md).

A record holds the seed, optionally the starting decks (top card first), every
move in order and free-form ``meta``.  ``replay`` rebuilds the game from it; a
record may end mid-game.  A game the arbiter ended (on time, abandoned) ends with
no move: ``meta.result`` says so, and ``replay`` ends the game there as it did.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import SQUARES_PER_TEMPLE, TEMPLES
from .cards import check_deck
from .errors import IllegalMove, RecordError
from .events import Event
from .game import GameState, new_game
from .moves import Move, move_from_dict
from .options import DEFAULT_RULES, Rules
from .outcome import Outcome
from .players import BLUE, PLAYERS, RED, Player, name_of

FORMAT = "aton-record/1"


@dataclass
class GameRecord:
    seed: int
    decks: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # red's, blue's; top card first
    moves: list[tuple[Player, Move]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # free-form JSON
    rules: Rules = DEFAULT_RULES

    @property
    def result(self) -> Outcome | None:
        """How the game ended, as ``meta.result`` says (None: it does not say)."""
        return _result_of(self.meta)

    def add(self, player: Player, move: Move) -> None:
        self.moves.append((player, move))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": FORMAT, "seed": self.seed}
        if self.decks is not None:
            data["decks"] = {str(p): list(self.decks[p]) for p in PLAYERS}
        data["moves"] = [{"player": str(p), **m.to_dict()} for p, m in self.moves]
        meta = dict(self.meta)
        if self.rules != DEFAULT_RULES:
            meta["rules"] = self.rules.to_dict()
        data["meta"] = meta
        return data

    @classmethod
    def from_dict(cls, data: object) -> GameRecord:
        """Parse and validate a record's structure (not yet the legality of its moves)."""
        if not isinstance(data, dict):
            raise RecordError("a record must be a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"format must be {FORMAT!r}, got {data.get('format')!r}")
        seed = data.get("seed")
        if type(seed) is not int:
            raise RecordError(f"seed must be an integer, got {seed!r}")
        decks = data.get("decks")
        if decks is not None:
            if not isinstance(decks, dict) or set(decks) != {str(p) for p in PLAYERS}:
                raise RecordError("decks must be an object with exactly the keys 'red' and 'blue'")
            checked = []
            for p in PLAYERS:
                try:
                    checked.append(check_deck(decks[str(p)]))
                except ValueError as exc:
                    raise RecordError(f"decks.{p}: {exc}") from None
            decks = (checked[RED], checked[BLUE])
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("meta must be an object")
        rules = DEFAULT_RULES
        if "rules" in meta:
            try:
                rules = Rules.from_dict(meta["rules"])
            except (TypeError, ValueError) as exc:
                raise RecordError(f"meta.rules: {exc}") from None
        raw_moves = data.get("moves", [])
        if not isinstance(raw_moves, list):
            raise RecordError("moves must be a list")
        moves = []
        for i, entry in enumerate(raw_moves):
            try:
                if not isinstance(entry, dict):
                    raise ValueError("a move must be an object")
                player = Player.parse(entry.get("player"))
                moves.append((player, move_from_dict(entry)))
            except ValueError as exc:
                raise RecordError(str(exc), move_index=i) from None
        _result_of(meta)  # checked here, with the rest of the structure
        return cls(seed=seed, decks=decks, moves=moves, meta=dict(meta), rules=rules)


def _result_of(meta: dict[str, Any]) -> Outcome | None:
    """``meta.result``'s winner and reason (the rest of it is free-form); RecordError when it
    is neither null nor a result."""
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
    """One step of a replay: the move played (None at the start, and for the end the arbiter
    decided), who played it, and the events it caused.  ``state`` is the game after the step:
    the same object for every step, moved on by the next one (copy it to keep it)."""

    player: Player | None
    move: Move | None
    events: tuple[Event, ...]
    state: GameState


def steps(record: GameRecord) -> Iterator[Step]:
    """``record`` replayed one step at a time: the start (the opening draw), each move, and
    the forfeit that ``meta.result`` records when the arbiter ended the game (time, abandoned).
    RecordError, raised when the replay gets there, names the first illegal move, or says how
    ``meta.result`` contradicts the moves."""
    state, opening = new_game(record.seed, record.decks, record.rules)
    yield Step(None, None, tuple(opening), state)
    for i, (player, move) in enumerate(record.moves):
        events: list[Event] = []
        try:
            state.play(player, move, events)
        except IllegalMove as exc:
            raise RecordError(f"{player} {move.to_dict()['move']}: {exc}", move_index=i) from None
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
    """The state after every move of ``record`` (and the arbiter's end it records): see ``steps``."""
    for step in steps(record):
        state = step.state
    return state


def _told(outcome: Outcome) -> str:
    """An outcome in a sentence: 'red won (time)', 'a draw (round_limit)'."""
    who = "a draw" if outcome.winner is None else f"{outcome.winner} won"
    return f"{who} ({outcome.termination})"


def summary(state: GameState) -> dict[str, object]:
    """The machine-readable summary of a position printed by ``aton replay --json``."""
    def both(values: Sequence[object]) -> dict[str, object]:
        return {str(p): values[p] for p in PLAYERS}

    outcome = state.outcome()
    return {
        "round": state.round,
        "phase": state.phase.value,
        "scores": both(state.scores),
        "supply": both(state.supply),
        "dead": both(state.dead),
        "temples": [[name_of(state.owner(t, s)) for s in range(SQUARES_PER_TEMPLE)] for t in TEMPLES],
        "exchange_used": both(state.exchange_used),
        **({"winner": None, "reason": None} if outcome is None else outcome.to_dict()),
    }
