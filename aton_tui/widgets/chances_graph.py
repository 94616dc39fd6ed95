"""The graph of the winning chances over a game: red's chance, 0–100 %, against the steps.

``ChancesGraph`` is a plotext plot (textual-plotext): a line of red's winning chance
after each analysed move, the 50 % line (an even game), the step the viewer shows as
an upright line, and each judged decision as a point in its judgement's colour.  The
x axis is the replay's steps, labelled with the rounds.  A click posts
``ChancesGraph.Picked`` with the step of the nearest judged decision (or of the
nearest move when none is near).  All colours come from the stylesheet's component
classes, so the graph follows the theme.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual.events import Click
from textual_plotext import PlotextPlot

from bots.analysis import Judgement

from .step_picked import StepPicked
from .symbols import JUDGEMENT_SYMBOL

#: the y axis's labels: plotext pads them to one width, the canvas's left margin; the canvas
#: then goes to the widget's right edge (no frame on that side)
PERCENT_TICKS = ((0, "0%"), (50, "50%"), (100, "100%"))
LEFT = max(len(label) for _, label in PERCENT_TICKS) + 1  # the labels and the axis's "┤"
TICK_ROOM = 9  # columns per round label on the x axis ("round 12" and a space)
NEAR = 2  # a click this many columns from a judged decision picks it


@dataclass(frozen=True)
class ChancePoint:
    """Red's winning chance (0..1) after the move of ``step``, and its decision's judgement
    (None: not judged an inaccuracy or worse)."""

    step: int
    red: float
    judgement: Judgement | None = None


class ChancesGraph(PlotextPlot):
    COMPONENT_CLASSES = {
        "chances--line", "chances--even", "chances--now", "chances--inaccuracy", "chances--mistake",
        "chances--blunder",
    }

    class Picked(StepPicked):
        """A point of the graph (near ``step``) was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.points: Sequence[ChancePoint] = ()
        self.rounds: Sequence[tuple[int, int]] = ()  # (step, round) where each round starts
        self.last = 1  # the last step: the x axis goes from 0 to it
        self.current = 0

    def draw(self, points: Sequence[ChancePoint], rounds: Sequence[tuple[int, int]], last: int) -> None:
        """The chances to show, where the rounds start, and the last step of the game."""
        self.points, self.rounds, self.last = points, rounds, max(1, last)
        self.refresh()

    def show(self, current: int) -> None:
        """Mark step ``current`` (the one the viewer shows)."""
        if current != self.current:
            self.current = current
            self.refresh()

    def legend(self) -> Text:
        """What the graph shows, in its colours (a line above it)."""
        text = Text()
        text.append("── ", self.get_component_rich_style("chances--line"))
        text.append("Red's winning chance  ")
        for judgement, symbol in JUDGEMENT_SYMBOL.items():
            text.append("● ", self.get_component_rich_style(f"chances--{judgement}"))
            text.append(f"{symbol} {judgement}  ")
        text.append("│ ", self.get_component_rich_style("chances--now"))
        text.append("now")
        return text

    # ------------------------------------------------------------------ drawing

    def render(self) -> RenderResult:
        plt = self.plt
        plt.clear_data()
        plt.xaxes(True, False)  # no frame above and on the right: a row and a column more for the line
        plt.yaxes(True, False)
        plt.xlim(0, self.last)
        plt.ylim(0, 100)
        plt.yticks([value for value, _ in PERCENT_TICKS], [label for _, label in PERCENT_TICKS])
        ticks, labels = self._round_ticks()
        plt.xticks(ticks, labels)
        plt.hline(50, self._colour("chances--even"))
        plt.vline(self.current, self._colour("chances--now"))
        if self.points:
            steps = [point.step for point in self.points]
            plt.plot(steps, [100 * point.red for point in self.points], marker="braille",
                     color=self._colour("chances--line"))
            for judgement in Judgement:
                judged = [point for point in self.points if point.judgement == judgement]
                if judged:
                    plt.scatter([point.step for point in judged], [100 * point.red for point in judged],
                                marker="●", color=self._colour(f"chances--{judgement}"))
        return super().render()

    def _round_ticks(self) -> tuple[list[float], list[str]]:
        """Round labels at the steps where rounds start, as many as fit the width."""
        room = max(1, (self.size.width - LEFT) // TICK_ROOM)
        every = max(1, -(-len(self.rounds) // room))
        shown = list(self.rounds)[::every]
        return [float(step) for step, _ in shown], [f"round {number}" if i == 0 else str(number)
                                             for i, (_, number) in enumerate(shown)]

    def _colour(self, component: str) -> tuple[int, int, int]:
        style: Style = self.get_component_rich_style(component)
        colour = style.color
        if colour is None:
            return (128, 128, 128)
        triplet = colour.get_truecolor()
        return (triplet.red, triplet.green, triplet.blue)

    # ------------------------------------------------------------------ clicks

    def step_at(self, x: int) -> int | None:
        """The step a click at column ``x`` of the widget picks: the nearest judged decision
        within ``NEAR`` columns, else the nearest step (None: outside the canvas)."""
        canvas = self.size.width - LEFT
        if canvas < 2 or not LEFT <= x < LEFT + canvas:
            return None
        per_column = self.last / (canvas - 1)
        step = round((x - LEFT) * per_column)
        judged = [point.step for point in self.points if point.judgement is not None]
        if judged:
            nearest = min(judged, key=lambda s: abs(s - step))
            if abs(nearest - step) <= NEAR * per_column:
                return nearest
        return step

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)
        step = None if at is None else self.step_at(at.x)
        if step is not None:
            event.stop()
            self.post_message(self.Picked(step))
