"""Post-game analysis: the search bot's verdict on every decision of a recorded game.

``analyse(record)`` replays an ``aton-record/1`` and, at each decision a player made with
more than one option, asks the search of ``bots.strategies.mcts`` two questions, from that
player's *view* at that moment (``aton.views.view``: never the opponent's hidden cards):

1. **Which option is best?**  Sequential halving over the options (every assignment of
   the hand and, while unused, the exchange; or every class of interchangeable squares),
   exactly as the bot searches, on half the budget.
2. **How much did the move played lose?**  The best option and the option played are
   played out on the same fresh determinizations (the other half of the budget), so
   their difference is measured on equal terms and without the optimism of the halving's
   winner.  When the move played scores at least as well, it *is* the best found.

The values are winning chances on a 0..1 scale (a draw counts half), estimated by the
bot's play-outs and heuristic.  The drop from the best option to the move played is
judged against ``THRESHOLDS`` (see docs/analysis.md for the figures behind them).

With a budget in iterations the analysis is reproducible: every decision searches with
its own random generator, derived from the seed and the move's index, so a decision's
analysis depends on nothing but what its player knew, the seed and the budget.

``save_beside`` / ``load_beside`` keep the result in a side file next to the record
(``game.json`` → ``game.analysis.json``); the record file itself is never touched.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from aton.game import COMMIT, GameState
from aton.moves import Move, move_from_dict
from aton.players import PLAYERS, RED, Player
from aton.record import GameRecord, steps
from aton.views import View, view

from .strategies.mcts import ArmsEvaluator, Budget, commit_arms, gc_paused, sequential_halving, square_arms
from .strategy import decision_of
from .tournament import derive_seed

__all__ = [
    "DEFAULT_ITERATIONS",
    "FORMAT",
    "SIDE_SUFFIX",
    "THRESHOLDS",
    "AnalysisCancelled",
    "AnalysisSettings",
    "DecisionAnalysis",
    "GameAnalysis",
    "Judgement",
    "PlayedDecision",
    "PlayerSummary",
    "analyse",
    "judge",
    "judge_decision",
    "load_beside",
    "played_decisions",
    "record_digest",
    "save_beside",
    "side_path",
]

#: The side file's format; a saved analysis of another format is computed afresh.
FORMAT = "aton-analysis/1"

#: Play-outs per judged decision when no budget is given: about 0.3 s of CPU per decision,
#: 20 s for a game of 7 rounds, 45 s for 15 (docs/analysis.md, bench/analysis.py).
DEFAULT_ITERATIONS = 2000

#: What the side file's name adds to the record's (without its ``.json``).
SIDE_SUFFIX = ".analysis.json"

#: How the opponent's commit is guessed when a commit's options are valued (not chosen): by
#: the one-ply look-ahead, a sensible player.  The bot's own choice among commits assumes a
#: random one (robust, docs/bots.md), which makes every commit look too good: the two
#: players' chances at the commits of one round added up to 1.28 on average against a
#: random opponent, 1.07 against the look-ahead (27 rounds of greedy games, docs/analysis.md).
VALUATION_OPP_MODEL = "lookahead"

#: Decimal places kept of a winning chance (the estimate's noise is far above them).
CHANCE_DIGITS = 4


class Judgement(StrEnum):
    """How bad a decision was, by the winning chances it gave away."""

    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


#: The smallest loss of winning chance (0..1) that earns each judgement, worst first.  The
#: steps of lichess (which judges the drop of the winning chance, 0.1/0.2/0.3 on its -1..1
#: scale); the smallest is several times the noise of a loss at the default budget
#: (docs/analysis.md).  Changing them changes what a saved analysis says: it is then
#: computed afresh (they are part of the side file).
THRESHOLDS: dict[Judgement, float] = {
    Judgement.BLUNDER: 0.15,
    Judgement.MISTAKE: 0.10,
    Judgement.INACCURACY: 0.05,
}


def judge(loss: float) -> Judgement | None:
    """The judgement a loss of winning chance earns (None: a good enough move)."""
    for judgement, threshold in THRESHOLDS.items():
        if loss >= threshold:
            return judgement
    return None


class AnalysisCancelled(Exception):
    """``analyse`` stopped because ``cancelled()`` said so."""


@dataclass(frozen=True)
class DecisionAnalysis:
    """The verdict on one decision.

    ``move_index`` is the move's 0-based index in ``record.moves``; the replay viewer
    (``aton_tui.replay_model``) shows the position *before* the decision at step
    ``move_index`` and the position after the move played at step ``move_index + 1``
    (its ``ReplayStep.number``: step 0 is the opening draw, step n follows the n-th move).

    ``kind`` is the played move's kind in the engine's words (``Move.to_dict()["move"]``):
    "commit", "exchange", "remove" or "place".  A commit and an exchange answer the same
    decision, whose options are every assignment of the hand and, while the token is
    unused, the exchange: ``played`` and ``best`` may be either.  At a removal or a
    placement ``best`` is the lowest legal square of the best class of interchangeable
    squares (same temple, same colour), and ``played`` is counted as its class.

    ``chance_before`` is the player's winning chance at the decision with the best option
    found, ``chance_played`` with the move played, both from what the player knew then.
    """

    move_index: int
    round: int
    player: Player
    kind: str
    played: Move
    best: Move
    chance_before: float
    chance_played: float

    @property
    def loss(self) -> float:
        """The winning chance the move played gave away (never below 0: when the move played
        measures better than the search's choice, it is the best found)."""
        return max(0.0, round(self.chance_before - self.chance_played, CHANCE_DIGITS))

    @property
    def judgement(self) -> Judgement | None:
        return judge(self.loss)

    @property
    def red_chance_after(self) -> float:
        """Red's winning chance after the move played, as the player who moved saw it
        (the point of the winning-chances graph at step ``move_index + 1``)."""
        return self.chance_played if self.player is RED else round(1.0 - self.chance_played, CHANCE_DIGITS)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``loss`` and ``judgement`` are written for readers, recomputed on reading)."""
        judgement = self.judgement
        return {
            "move_index": self.move_index,
            "round": self.round,
            "player": str(self.player),
            "kind": self.kind,
            "played": self.played.to_dict(),
            "best": self.best.to_dict(),
            "chance_before": self.chance_before,
            "chance_played": self.chance_played,
            "loss": self.loss,
            "judgement": None if judgement is None else str(judgement),
        }

    @classmethod
    def from_dict(cls, data: object) -> DecisionAnalysis:
        """Read the JSON form back; ValueError (or TypeError, KeyError) says it is not one."""
        if not isinstance(data, dict):
            raise ValueError("a decision must be an object")
        chances = data["chance_before"], data["chance_played"]
        if not all(isinstance(c, (int, float)) and 0.0 <= c <= 1.0 for c in chances):
            raise ValueError(f"winning chances must be numbers from 0 to 1, got {chances!r}")
        index, round_number = data["move_index"], data["round"]
        if type(index) is not int or type(round_number) is not int or index < 0:
            raise ValueError("move_index and round must be integers")
        return cls(
            move_index=index,
            round=round_number,
            player=Player.parse(data["player"]),
            kind=str(data["kind"]),
            played=move_from_dict(data["played"]),
            best=move_from_dict(data["best"]),
            chance_before=float(chances[0]),
            chance_played=float(chances[1]),
        )


@dataclass(frozen=True)
class AnalysisSettings:
    """The budget per decision — ``iterations`` play-outs (reproducible) or ``budget_ms``
    milliseconds (depends on the machine and its load) — and the seed of the search."""

    iterations: int | None = DEFAULT_ITERATIONS
    budget_ms: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if (self.iterations is None) == (self.budget_ms is None):
            raise ValueError("give a budget in iterations or in milliseconds, not both or neither")
        if self.iterations is not None and self.iterations < 4:
            raise ValueError(f"iterations must be at least 4, got {self.iterations}")
        if self.budget_ms is not None and not self.budget_ms > 0:
            raise ValueError(f"budget_ms must be positive, got {self.budget_ms}")

    def describe(self) -> str:
        """'2,000 play-outs per decision, seed 0' or '250 ms per decision, seed 0'."""
        budget = f"{self.iterations:,} play-outs" if self.iterations is not None else f"{self.budget_ms:g} ms"
        return f"{budget} per decision, seed {self.seed}"

    def to_dict(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "budget_ms": self.budget_ms, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: object) -> AnalysisSettings:
        if not isinstance(data, dict):
            raise ValueError("settings must be an object")
        iterations, budget_ms, seed = data["iterations"], data["budget_ms"], data["seed"]
        if iterations is not None and type(iterations) is not int:
            raise ValueError("iterations must be an integer or null")
        if budget_ms is not None and not isinstance(budget_ms, (int, float)):
            raise ValueError("budget_ms must be a number or null")
        if type(seed) is not int:
            raise ValueError("seed must be an integer")
        return cls(iterations, budget_ms, seed)


@dataclass(frozen=True)
class PlayerSummary:
    """One player's judged decisions: how many, how many of each judgement, the average loss."""

    decisions: int
    inaccuracies: int
    mistakes: int
    blunders: int
    average_loss: float

    def to_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "inaccuracies": self.inaccuracies, "mistakes": self.mistakes,
                "blunders": self.blunders, "average_loss": self.average_loss}


@dataclass(frozen=True)
class GameAnalysis:
    """The verdicts on every judged decision of one record (forced decisions and
    resignations are not judged, so they have none), with the settings that made them and
    ``record``, the digest of the game they belong to."""

    settings: AnalysisSettings
    record: str  # ``record_digest`` of the game analysed (a digest, not the record)
    decisions: tuple[DecisionAnalysis, ...]

    def red_chances(self) -> tuple[tuple[int, float], ...]:
        """The winning-chances graph: (move_index, red's chance after that move) per judged
        decision, in the order of the game."""
        return tuple((d.move_index, d.red_chance_after) for d in self.decisions)

    def summary(self) -> dict[Player, PlayerSummary]:
        """Per player: the counts of each judgement and the average loss."""
        result = {}
        for p in PLAYERS:
            own = [d for d in self.decisions if d.player is p]
            judged = [d.judgement for d in own]
            average = round(sum(d.loss for d in own) / len(own), CHANCE_DIGITS) if own else 0.0
            result[p] = PlayerSummary(len(own), judged.count(Judgement.INACCURACY),
                                      judged.count(Judgement.MISTAKE), judged.count(Judgement.BLUNDER), average)
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "record": self.record,
            "settings": self.settings.to_dict(),
            "thresholds": {str(j): t for j, t in THRESHOLDS.items()},
            "decisions": [d.to_dict() for d in self.decisions],
        }

    @classmethod
    def from_dict(cls, data: object) -> GameAnalysis:
        """Read the JSON form back.  ValueError when it is not one, or was made by another
        format or with other thresholds (its judgements would not be today's)."""
        if not isinstance(data, dict):
            raise ValueError("an analysis must be a JSON object")
        if data.get("format") != FORMAT:
            raise ValueError(f"format must be {FORMAT!r}, got {data.get('format')!r}")
        if data.get("thresholds") != {str(j): t for j, t in THRESHOLDS.items()}:
            raise ValueError("made with other thresholds")
        record = data.get("record")
        decisions = data.get("decisions")
        if not isinstance(record, str) or not isinstance(decisions, list):
            raise ValueError("an analysis needs 'record' (a digest) and 'decisions' (a list)")
        try:
            return cls(AnalysisSettings.from_dict(data.get("settings")), record,
                       tuple(DecisionAnalysis.from_dict(d) for d in decisions))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not an analysis: {exc!r}") from None


def record_digest(record: GameRecord) -> str:
    """'sha256:…' of the game in ``record``: its canonical JSON (sorted keys, no spaces)
    without ``meta``, apart from the rules.  Names, dates and results in ``meta`` do not
    change a decision, so editing them keeps the analysis."""
    game = record.to_dict()
    game["meta"] = {key: value for key, value in game["meta"].items() if key == "rules"}
    canonical = json.dumps(game, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------- analysing


@dataclass(frozen=True)
class PlayedDecision:
    """A decision of the record: the move played and its player's view just before it."""

    move_index: int
    player: Player
    move: Move
    view: View


def played_decisions(record: GameRecord) -> list[PlayedDecision]:
    """The decisions of ``record`` that may be judged: each move but a resignation, with its
    player's view (the record replays here: RecordError names its first bad move)."""
    found = []
    moves = record.moves
    for index, step in enumerate(steps(record)):
        if index < len(moves):
            player, move = moves[index]
            seen = view(_before_the_opponent_committed(step.state, player), player)
            if seen.decision is not None and move.to_dict()["move"] != "resign":
                found.append(PlayedDecision(index, player, move, seen))
    return found


def _before_the_opponent_committed(state: GameState, player: Player) -> GameState:
    """``state`` as it was before the opponent's commit of this round, when ``player`` has yet
    to commit: the commits are simultaneous, and the record's order of the two says nothing
    the player knew (the opponent's cards are face down either way).  So both commits of a
    round are judged alike, each against an opponent still to choose."""
    opponent = player.other
    cards = state.cartouches[opponent]
    if state.phase is not COMMIT or cards is None or state.cartouches[player] is not None:
        return state
    earlier = state.copy()
    earlier.cartouches[opponent] = None
    earlier.hands[opponent] = cards
    return earlier


def analyse(
    record: GameRecord,
    *,
    iterations: int | None = DEFAULT_ITERATIONS,
    budget_ms: float | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> GameAnalysis:
    """Judge every decision of ``record`` with more than one option (see the module doc).

    The budget per decision is ``iterations`` play-outs, or ``budget_ms`` milliseconds when
    that is given (it replaces ``iterations``).  ``progress(done, total)`` is called with 0 first,
    then after each decision; ``cancelled()`` is asked between play-outs, and when it says
    yes the analysis stops with AnalysisCancelled.  A record that does not replay raises
    RecordError (naming the move) before any search.
    """
    settings = AnalysisSettings(None if budget_ms is not None else iterations, budget_ms, seed)
    todo = played_decisions(record)
    judged: list[DecisionAnalysis] = []
    if progress is not None:
        progress(0, len(todo))
    for done, decision in enumerate(todo, 1):
        verdict = judge_decision(decision, record, settings, cancelled)
        if verdict is not None:
            judged.append(verdict)
        if progress is not None:
            progress(done, len(todo))
    return GameAnalysis(settings, record_digest(record), tuple(judged))


def judge_decision(decision: PlayedDecision, record: GameRecord, settings: AnalysisSettings,
                   cancelled: Callable[[], bool] | None = None) -> DecisionAnalysis | None:
    """The verdict on one decision of ``record`` (None: it had one option only); the same
    as ``analyse`` gives for it."""
    seen = decision.view
    rng = random.Random(derive_seed("analysis", settings.seed, decision.move_index))
    if decision_of(seen).kind == "commit":
        arms = commit_arms(seen, rng, rules=record.rules)
        valuing = commit_arms(seen, rng, opp_model=VALUATION_OPP_MODEL, rules=record.rules)
    else:
        arms = valuing = square_arms(seen, rng, rules=record.rules)
    played = arms.arm_of(decision.move)
    if len(arms.moves) == 1 or played is None:
        return None
    choose, value = arms.evaluate, valuing.evaluate
    if cancelled is not None:
        choose, value = _cancellable(choose, cancelled), _cancellable(value, cancelled)
    best, before, after = _best_and_played(len(arms.moves), choose, value, played, settings)
    return DecisionAnalysis(
        move_index=decision.move_index,
        round=seen.round,
        player=decision.player,
        kind=str(decision.move.to_dict()["move"]),
        played=decision.move,
        best=decision.move if best == played else arms.moves[best],
        chance_before=round(before, CHANCE_DIGITS),
        chance_played=round(after, CHANCE_DIGITS),
    )


def _cancellable(evaluate: ArmsEvaluator, cancelled: Callable[[], bool]) -> ArmsEvaluator:
    """``evaluate`` that first raises AnalysisCancelled when ``cancelled()`` says so."""

    def evaluate_or_stop(chosen: list[int], totals: list[float]) -> None:
        if cancelled():
            raise AnalysisCancelled()
        evaluate(chosen, totals)

    return evaluate_or_stop


def _best_and_played(n: int, choose: ArmsEvaluator, value: ArmsEvaluator, played: int,
                     settings: AnalysisSettings) -> tuple[int, float, float]:
    """(best arm, its value, the played arm's value): half the budget picks the best by
    sequential halving with ``choose``, the other half values the best and the played arm
    with ``value`` on the same samples.  When the played arm measures at least as well, it
    is the best."""
    if settings.iterations is not None:
        samples = max(1, settings.iterations // 4)
        choice = Budget(settings.iterations // 2)

        def more(count: int) -> bool:
            return count < samples
    else:
        assert settings.budget_ms is not None
        start, seconds = time.perf_counter(), settings.budget_ms / 1000.0
        choice = Budget(None, start, seconds / 2)

        def more(count: int) -> bool:
            return time.perf_counter() < start + seconds
    best = sequential_halving(n, choose, choice).best
    compared = [best] if best == played else [best, played]
    totals = [0.0] * n
    count = 0
    with gc_paused():
        while count == 0 or more(count):
            value(compared, totals)
            count += 1
    before, after = totals[best] / count, totals[played] / count
    if after >= before:
        return played, after, after
    return best, before, after


# ---------------------------------------------------------------------- the side file


def side_path(record_path: str | os.PathLike[str]) -> Path:
    """Where the analysis of the record at ``record_path`` is kept: ``game.json`` →
    ``game.analysis.json`` (any other name gets ``.analysis.json`` appended)."""
    path = Path(record_path)
    stem = path.stem if path.suffix == ".json" else path.name
    return path.with_name(stem + SIDE_SUFFIX)


def save_beside(record_path: str | os.PathLike[str], analysis: GameAnalysis, record: GameRecord) -> Path:
    """Write ``analysis`` of ``record`` into its side file (written whole, then renamed into
    place, so a reader never sees half of one).  OSError when it cannot be written."""
    if analysis.record != record_digest(record):
        raise ValueError("this analysis was made for another record")
    target = side_path(record_path)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(json.dumps(analysis.to_dict(), indent=1) + "\n", encoding="utf-8")
        os.replace(partial, target)
    except OSError:
        partial.unlink(missing_ok=True)
        raise
    return target


def load_beside(record_path: str | os.PathLike[str], record: GameRecord) -> GameAnalysis | None:
    """The analysis saved beside the record, or None: no side file, an unreadable one, one
    of another format or thresholds, or one made for another game than ``record``."""
    try:
        data = json.loads(side_path(record_path).read_text(encoding="utf-8"))
        analysis = GameAnalysis.from_dict(data)
    except (OSError, ValueError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None
    return analysis if analysis.record == record_digest(record) else None
