"""The lesson (``aton learn``): the real game screen, a guide beside it, and only the script's moves.

``LearnScreen`` is the game screen on a ``GuidedGame`` instead of a server: the board,
the players, the commit panel and the log are the ones of a real game.  The decision
line says the step's instruction, the guide below the cartouches why; a move the step
does not expect is not played, and the guide says gently what was expected (the cursor
rests on the square the step wants).  Escape or q leaves at once; the screen is
dismissed with ``"left"`` or, after the last step, ``"finished"``.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from aton.moves import Commit, Move, Place, Remove
from aton.players import RED
from aton.views import Decision, View
from bots.hints import Hint
from protocol import messages as m

from ..guided_game import GuidedGame
from ..hinting import HintFailed
from ..lesson import OFFER
from ..model import GameModel
from ..narrate import player_name
from ..widgets.board import Board
from ..widgets.commit_panel import CommitPanel
from ..widgets.symbols import SEAT_SYMBOL
from .client_screen import ClientScreen
from .game import GameScreen

#: How the screen ends: left before the end, or played to the end.
LEFT, FINISHED = "left", "finished"


class LearnScreen(GameScreen):
    BINDINGS = [
        Binding("escape,q", "leave", "Leave", tooltip="leave the lesson at once"),
        Binding("ctrl+l", "leave", "Leave", show=False, tooltip="leave the lesson at once"),
        # a subclass's key replaces every binding of that key: Enter keeps its two game meanings
        Binding("enter", "seal", "Seal", tooltip="seal your four cartouches"),
        Binding("enter", "choose", "Choose", tooltip="remove from, or place on, the square under the cursor"),
        Binding("enter", "finish", "End lesson", tooltip="end the lesson, once its last step is read"),
    ]

    def __init__(self, guided: GuidedGame) -> None:
        super().__init__(GameModel.from_state(guided.game_state(), 0.0))  # no clocks: the time read is never used
        self.guided = guided
        self.said: str | None = None  # the gentle correction of a move the step does not expect

    def on_mount(self) -> None:
        """The guide goes below the cartouches (the game screen's own on_mount runs after this)."""
        self.query_one("#side").mount(Static("", id="guide", markup=False), after=self.query_one(CommitPanel))

    # ------------------------------------------------------------------ what is said

    def refresh_view(self) -> None:
        super().refresh_view()
        self._guide()

    def _guide(self) -> None:
        """The step's words, once the bot's moves before it are shown (until then, the last step's)."""
        if self.playback.behind and not self.said:
            return
        step = self.guided.step
        text = Text(self.said, style="bold") if self.said else Text(step.why if step is not None else "")
        guide = self.query_one("#guide", Static)
        guide.update(text)
        guide.set_class(bool(self.said), "-corrected")

    def _decision_line(self, decision: Decision | None) -> str:
        step = self.guided.step
        if step is not None and (decision is not None or self.guided.finished) and not self.playback.behind:
            return self._fitting(f"▶ {step.do}.", f"▶ {step.do}")
        return super()._decision_line(decision)

    def _welcome(self) -> str:
        return "The lesson: you play Red against the bot, on fixed cards.  Esc or q leaves it at any time."

    def _top_line(self) -> str:
        you = f"you are {SEAT_SYMBOL[RED]} {player_name(RED)} against the bot"
        for line in (f" ATON  ·  Lesson  ·  Round {self.view.round}  ·  {you}", f" Lesson  ·  Round {self.view.round}"):
            if cell_len(line) <= self.size.width - 1:
                return line
        return f" Round {self.view.round}"

    # ------------------------------------------------------------------ the learner's moves

    @property
    def decision(self) -> Decision | None:
        """The game's decision while the lesson has a move to make; nothing once it is played."""
        return None if self.guided.finished else super().decision

    async def action_seal(self) -> None:
        first, second, third, fourth = self.query_one(CommitPanel).draft.cards
        self._try(Commit((first, second, third, fourth)))

    async def _send(self, msg: m.Message) -> None:
        if isinstance(msg, (m.Place, m.Remove)):
            self._try((Place if isinstance(msg, m.Place) else Remove)(msg.temple, msg.square))

    def _try(self, move: Move) -> None:
        """Play ``move`` if the step expects it; else say what it expects, and play nothing."""
        self.said = self.guided.correction(move)
        if self.said is None:
            numbered = self.model.advance(self.guided.play(move), 0.0)
            self.apply(numbered or [])
        elif isinstance(move, Commit):
            self.committing_for = None  # the cards go back to the hand, to be typed again from cartouche 1
        self.refresh_view()

    def _show_squares(self, decision: Decision | None) -> None:
        """The cursor starts on a square the step expects (the lit squares are all the legal ones)."""
        wanted = self.guided.expected_squares
        super()._show_squares(decision)
        if self.cursor.active and wanted and self.cursor.square not in wanted:
            self.cursor.square = wanted[0]
            self.query_one(Board).cursor = self.cursor.square

    # ------------------------------------------------------------------ hints

    def hint_refusal(self) -> str | None:
        return None  # the lesson is a game against the bot: its hint is the step's own move

    async def ask_for_hint(self, view: View, seed: int, iterations: int = 0) -> Hint:
        """The move the step expects, laid on the board like the bot's suggestion in a game."""
        step = self.guided.step
        expected = self.guided.expected
        if step is None or not expected:
            raise HintFailed("the lesson expects no move now")
        return Hint(expected[0], reason=f"the lesson's move: {step.do}", headline="the lesson's move")

    # ------------------------------------------------------------------ leaving

    def action_leave(self) -> None:
        self.dismiss(LEFT)

    def action_finish(self) -> None:
        self.dismiss(FINISHED)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "finish":
            return self.guided.finished and not self.playback.behind
        return super().check_action(action, parameters)


class LessonOffer(ClientScreen, ModalScreen[bool]):
    """"New to Aton?": the lesson (l) or a game against the bot (p, Escape).  Enter presses the
    focused button, the lesson at first: it has no clock and Escape leaves it, so an Enter typed
    by habit starts nothing that can be lost."""

    AUTO_FOCUS = "#learn"
    BINDINGS = [
        Binding("l", "answer(True)", "Learn", priority=True),
        Binding("p,escape", "answer(False)", "Play the bot", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(OFFER, classes="dialog-text", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Learn (l)", variant="primary", id="learn")
                yield Button("Play the bot (p)", id="play")
            yield Label("l or Enter: learn · p or Esc: play the bot", classes="dialog-hint", markup=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "learn")

    def action_answer(self, learn: bool) -> None:
        self.dismiss(learn)
