"""A game's analysis as the replay viewer reads it: marks, jumps, the graph, the better move.

``AnalysisModel`` puts each verdict of a ``bots.analysis.GameAnalysis`` at the replay
step of its move: step ``move_index + 1``, the position after the move played (where the
log tells the move, so its line carries the mark).  It answers what the viewer shows
there: the mark of a judged decision ("?!" an inaccuracy, "?" a mistake, "??" a blunder,
with the winning chance it gave away), the line naming the bot's preferred move, that
move's square or cards, and the points of the winning-chances graph.
"""

from __future__ import annotations

from aton.moves import Commit, Place, Remove
from aton.players import Player
from bots.analysis import DecisionAnalysis, GameAnalysis

from .narrate import move_words, player_name
from .widgets.chances_graph import ChancePoint
from .widgets.step_log import StepMark
from .widgets.symbols import JUDGEMENT_SYMBOL


def percent(chance: float) -> str:
    return f"{round(100 * chance)}%"


class AnalysisModel:
    """The verdicts of one analysis, by replay step."""

    def __init__(self, analysis: GameAnalysis) -> None:
        self.analysis = analysis
        self.by_step: dict[int, DecisionAnalysis] = {d.move_index + 1: d for d in analysis.decisions}

    def judged(self, step: int) -> DecisionAnalysis | None:
        """The decision whose move is step ``step``, if it was judged an inaccuracy or worse."""
        decision = self.by_step.get(step)
        return decision if decision is not None and decision.judgement is not None else None

    def marks(self) -> dict[int, StepMark]:
        """The mark of every judged decision, by step ("?? −21%", in its judgement's colour)."""
        return {step: StepMark(str(d.judgement), f"{JUDGEMENT_SYMBOL[d.judgement]} −{percent(d.loss)}")
                for step, d in self.by_step.items() if d.judgement is not None}

    def points(self) -> list[ChancePoint]:
        """The graph: red's winning chance after each analysed move, judged ones marked."""
        return [ChancePoint(move_index + 1, red, self.by_step[move_index + 1].judgement)
                for move_index, red in self.analysis.red_chances()]

    def next_judged(self, step: int, direction: int, side: Player | None) -> int | None:
        """The step of the next judged decision after ``step`` (``direction`` 1) or before it
        (-1), of ``side`` (None: of either player); None when there is none."""
        steps = sorted(s for s, d in self.by_step.items()
                       if d.judgement is not None and (side is None or d.player is side))
        ahead = [s for s in steps if s > step] if direction > 0 else [s for s in reversed(steps) if s < step]
        return ahead[0] if ahead else None

    @staticmethod
    def may_show_better(decision: DecisionAnalysis, seat: Player | None, everything: bool) -> bool:
        """Whether a side may see the better move: a square is public, but better cards are a
        permutation of the hand (or the hand exchanged), which only its player saw."""
        return everything or decision.player is seat or isinstance(decision.played, Place | Remove)

    def better_line(self, step: int, seat: Player | None, everything: bool) -> str | None:
        """At a judged decision: what it was and the bot's preferred move, with the chances
        ("?? Red's blunder. Better: temple 2, yellow square (62% → 41%)"),
        as side ``seat`` (None: a spectator) or ``everything`` may see it."""
        decision = self.judged(step)
        if decision is None or decision.judgement is None:
            return None
        judgement, who = decision.judgement, player_name(decision.player)
        head = f"{JUDGEMENT_SYMBOL[judgement]} {who}'s {judgement}."
        if not self.may_show_better(decision, seat, everything):
            return f"{head} The better cards are {who}'s secret: v shows them as {who} saw it."
        return (f"{head} Better: {move_words(decision.best)} "
                f"({percent(decision.chance_before)} → {percent(decision.chance_played)})")

    def better_square(self, step: int) -> tuple[int, int] | None:
        """The square the bot preferred at a judged removal or placement."""
        decision = self.judged(step)
        best = None if decision is None else decision.best
        return (best.temple, best.square) if isinstance(best, Place | Remove) else None

    def better_commit(self, step: int, seat: Player | None, everything: bool) -> tuple[int, int, int, int] | None:
        """The four cards the bot would have put at a judged commit, if ``seat`` may see them."""
        decision = self.judged(step)
        if decision is None or not self.may_show_better(decision, seat, everything):
            return None
        return decision.best.cards if isinstance(decision.best, Commit) else None
