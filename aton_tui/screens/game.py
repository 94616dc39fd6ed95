"""The game screen: the board, both players, the decision at hand, the log; keys and clicks.

The screen draws a ``GameModel`` (the app keeps it current and calls ``apply``
with the new events).  It plays what the server sent back one moment at a time
(``Playback``): the board, the player table and the log show the moment reached,
and the player decides once the playback reaches the present: space jumps there, and so does
any key of the decision waiting at the present (``at_the_present``), which then acts unless it
is final: the player's clock runs during the playback, so it never holds them back.
It never decides legality: the squares it offers and the hand it lets you arrange
come from the decision the server sent.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.screen import ModalScreen, Screen
from textual.widgets import Static
from textual.worker import Worker

from aton.board import describe_temples
from aton.events import CategoryScored, ScoringStarted
from aton.game import Phase
from aton.moves import Commit, Exchange, Place, Remove
from aton.players import BLUE, PLAYERS, RED, Player
from aton.views import Decision, View
from bots.hints import Hint
from protocol import messages as m
from protocol.clocks import TimeControl
from protocol.events import ChatSaid, RematchDeclined, RematchOffered
from protocol.game_frames import GameEvent, Numbered
from server.clock import Timer

from ..board_cursor import BoardCursor
from ..hinting import NO_DECISION, HintFailed, ask_for_hint, hint_refusal, hint_seed
from ..model import GameModel, has_committed
from ..narrate import narrate, player_name, result_sentence
from ..playback import Moment, Playback
from ..sizes import LARGE, LOG_HEIGHT, ROOMY_HEIGHT
from ..widgets.board import Board
from ..widgets.commit_panel import CommitPanel
from ..widgets.fitted_footer import FittedFooter
from ..widgets.game_log import GameLog
from ..widgets.hint_line import HintLine
from ..widgets.kingdom import Kingdom
from ..widgets.legend import Legend
from ..widgets.notice import Notice
from ..widgets.players import Cartouche, PlayerRow, PlayersPanel, cartouche_faces, strikes_note
from ..widgets.score_track import ScoreTrack
from ..widgets.symbols import SEAT_SYMBOL
from .client_screen import ClientScreen
from .dialogs import Confirm, Prompt
from .end import EndScreen, aton_result, offer_sentence, ratings_line
from .scoring import ScoringScreen

if TYPE_CHECKING:
    from ..app import AtonApp

CARD = Binding.Group("Card", compact=True)
TEMPLE = Binding.Group("Temple", compact=True)
MOVE = Binding.Group("Move", compact=True)


def _digits(action: str, group: Binding.Group, tooltip: str) -> list[Binding]:
    return [Binding(str(n), f"{action}({n})", group.description, group=group, tooltip=tooltip) for n in range(1, 5)]



#: The actions of each kind of decision (the same keys do either), each wrapped by ``at_the_present``.
COMMIT_ACTIONS = frozenset({"card", "cartouche", "change", "take_back", "seal", "exchange"})
CHOOSE_ACTIONS = frozenset({"temple", "cursor", "choose"})
FINAL_ACTIONS = frozenset({"seal", "choose", "exchange"})
#: Seconds a forced square stands lit before it is chosen by itself (the forced-moves setting).
FORCED_MOVE_DELAY = 0.4


def at_the_present(action: Callable[..., object]) -> Callable[..., Awaitable[None]]:
    """A key of the decision pressed while the playback is behind: it first jumps to the present
    (as space does), then acts if it still applies there.  A final key (seal, choose, exchange)
    only jumps: nothing is played that the player has not seen."""
    name = action.__name__.removeprefix("action_")

    @functools.wraps(action)
    async def act(screen: GameScreen, *args: object) -> None:
        if screen.playback.behind:
            screen.action_skip()
            if name in FINAL_ACTIONS or screen.check_action(name, args) is not True:
                return
        result = action(screen, *args)
        if inspect.isawaitable(result):
            await result

    return act


class GameScreen(ClientScreen, Screen):
    BINDINGS = [
        *_digits("card", CARD, "put a card of that value on the lit cartouche"),
        Binding("left,h", "cartouche(-1)", "Cartouche", key_display="←→", tooltip="light another cartouche"),
        Binding("right,l", "cartouche(1)", "Cartouche", show=False, tooltip="light another cartouche"),
        Binding("up,k", "change(1)", "Change", key_display="↑↓",
                tooltip="change the card on the lit cartouche"),
        Binding("down,j", "change(-1)", "Change", show=False, tooltip="change the card on the lit cartouche"),
        Binding("backspace,delete", "take_back", "Take back", tooltip="take the lit cartouche's card back"),
        Binding("enter", "seal", "Seal", tooltip="seal your four cartouches (final)"),
        Binding("x", "exchange", "Exchange", tooltip="spend your exchange token for 4 new cards (asks first)"),
        *_digits("temple", TEMPLE, "jump into that temple"),
        Binding("left,h", "cursor(0,-1)", "Move", group=MOVE, key_display="←", tooltip="move to the next lit square"),
        Binding("up,k", "cursor(-1,0)", "Move", group=MOVE, key_display="↑", tooltip="move to the next lit square"),
        Binding("down,j", "cursor(1,0)", "Move", group=MOVE, key_display="↓", tooltip="move to the next lit square"),
        Binding("right,l", "cursor(0,1)", "Move", group=MOVE, key_display="→", tooltip="move to the next lit square"),
        Binding("enter", "choose", "Choose", tooltip="remove from, or place on, the square under the cursor"),
        Binding("space", "skip", "Skip", tooltip="show at once what is still being played back (a key of your "
                "waiting decision does too)"),
        Binding("i", "hint", "Hint", tooltip="the bot's suggestion for this decision, and why (in games against "
                "the server's bot; your clock runs on while it thinks)"),
        Binding("i", "no_hint", show=False),  # says why there is no hint here
        Binding("e", "show_end", "Result", tooltip="show the result of the game again"),
        Binding("t", "chat", "Chat", tooltip="say something to your opponent"),
        Binding("M", "toggle_mute", "Mute",
                tooltip="hide your opponent's chat lines from you, or show them again (only you; kept for "
                "your account)"),
        Binding("R", "app.resign", "Resign", show=False, key_display="R (Shift+r)",
                tooltip="resign this game (asks first: y resigns, n or Esc plays on)"),
        Binding("f", "app.toggle_forced", "Forced moves", show=False,
                tooltip="turn on or off playing a square by itself when it is the only choice"),
        Binding("pageup", "log(-1)", "Log back", show=False, tooltip="scroll the log back"),
        Binding("pagedown", "log(1)", "Log forward", show=False, tooltip="scroll the log forward"),
        Binding("question_mark", "app.help", "Help", key_display="?", tooltip="the rules in short and every key"),
        Binding("ctrl+l", "app.lobby", "Lobby", show=False, tooltip="back to the lobby"),
    ]

    #: keys that leave a narrow footer first (help lists them all)
    FOOTER_SPARE = ("toggle_mute", "change", "take_back", "cartouche", "hint", "app.quit", "show_end")

    def __init__(self, model: GameModel) -> None:
        super().__init__()
        self.model = model
        self.cursor = BoardCursor()
        self.committing_for: tuple[int, tuple[int, ...]] | None = None  # (round, hand) of the draft
        self.sent: int | None = None  # request id of a move not yet answered by an update
        self.acked = False
        self.playback = Playback(model.view, model.commitments)  # what came and is not shown yet
        self.shown = self.playback.latest  # the moment the board, the table and the log show
        self.told = model.version  # the events up to here are the story so far, told on mounting
        self.pacing: Timer | None = None  # the pause after a moment, before the next may show
        self.modals: list[Callable[[], ModalScreen]] = []
        self.end_shown = False
        self.end_screen: EndScreen | None = None
        self.forced_version: int | None = None
        self.footer_state: tuple = ()
        self.deciding = False  # whether we had a decision at the last drawing (the bell rings on a new one)
        self.ready = False  # composed and mounted
        #: the decision the hint shown (or searched) is for, the hint once found, and its search
        self.hint_for: tuple | None = None
        self.hint: Hint | None = None
        self.hint_search: Worker | None = None

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        yield ScoreTrack()
        yield Board()
        yield Kingdom()
        with Container(id="lower"):
            with Vertical(id="side"):
                yield PlayersPanel(self.aton.clock)
                yield Static("", id="decision", markup=False)
                yield HintLine("", id="hint", markup=False)
                yield CommitPanel()
                yield Legend(self.max_strikes)
            yield GameLog(id="log")
        yield FittedFooter()

    @property
    def max_strikes(self) -> int:
        """The time-outs in a row that lose the game at this table."""
        control = self.model.options.get("time_control") or {}
        return int(control.get("max_strikes", TimeControl.max_strikes))

    def on_mount(self) -> None:
        self.query_one(PlayersPanel).tooltip = strikes_note(self.max_strikes)
        log = self.query_one(GameLog)
        log.note(self._welcome())
        log.add(narrate([n.event for n in self.model.events if n.version <= self.told], self.model.seat))
        self.ready = True
        self._react([])
        self._play()

    def on_unmount(self) -> None:
        if self.pacing is not None:
            self.pacing.cancel()
        self.aton.pause_clock(self.model, False)  # back in the lobby, the game goes on

    def on_screen_suspend(self) -> None:
        """The help, a dialog or the palette covers the board: against the server's bot, our
        clock stops until it is gone."""
        self.aton.pause_clock(self.model, True)

    def on_screen_resume(self) -> None:
        self.aton.pause_clock(self.model, False)

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        large = width >= LARGE.width and height >= LARGE.height
        compact = not large and height < ROOMY_HEIGHT
        self.set_class(large, "-large")
        self.set_class(compact, "-compact")
        self.set_class(compact and height < LOG_HEIGHT, "-log-folds")
        self.call_after_refresh(self._fit_legend)
        if self.ready:
            self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        """The top bar and the decision line choose their wording by the width: choose again."""
        with suppress(NoMatches):  # the app is closing and takes the widgets away one by one
            self.refresh_view()

    def _fit_legend(self) -> None:
        """The reminder of the rules shows where it fits whole (large terminals, below the players)."""
        side = self.query_one("#side")
        legend = self.query_one(Legend)
        others = [w for w in side.children if w.display and w is not legend]
        taken = sum(w.outer_size.height + w.styles.margin.height for w in others)
        legend.set_class(self.has_class("-large") and side.size.height - taken >= legend.needed_height, "-fits")

    # ------------------------------------------------------------------ from the server

    def apply(self, numbered: list[Numbered], fresh: bool = False) -> None:
        """The model moved on by these events; ``fresh``: it was replaced by a whole new state."""
        if self.acked or fresh:  # the move we sent is answered (or lost with a broken connection)
            self.sent, self.acked = None, False
        self.playback.add([n.event for n in numbered], self.model.view, self.model.commitments)
        if not self.ready:  # not composed yet: on_mount starts the playback
            return
        with suppress(NoMatches):  # the app is closing and takes the widgets away one by one
            if fresh:  # after a gap: the present at once
                self.action_skip()
                return
            self.refresh_view()  # the keys: the decision shown may not be the present's any more
            self._play()

    # ------------------------------------------------------------------ the playback

    def _play(self) -> None:
        """Show the next moment now, unless the pause after the last one is still running."""
        delay = self.aton.settings.reveal_delay
        if delay <= 0:
            self._show(self.playback.rest())
        elif self.pacing is None:
            self._step()

    def _step(self) -> None:
        """The pause is over: the next moment, if any, and a pause after it."""
        self.pacing = None
        moment = self.playback.next()
        if moment is None:
            return
        with suppress(NoMatches):  # as in apply
            self._show([moment])
        self.pacing = self.aton.pacing.call_later(self.aton.settings.reveal_delay, self._paused)

    def _paused(self) -> None:
        self.call_later(self._step)  # from the pacing clock's timer into the screen's own turn

    def _show(self, moments: list[Moment]) -> None:
        """Tell these moments' events and draw the last one's view."""
        if not moments:
            return
        events = [event for moment in moments for event in moment.events]
        self.shown = moments[-1]
        self.query_one(GameLog).add(narrate(events, self.model.seat))
        self._react(events)

    @property
    def view(self) -> View:
        """The view of the moment shown."""
        return self.shown.view

    @property
    def decision(self) -> Decision | None:
        """What the player can decide now: the decision of the present, once the playback has
        shown it (what is still to be shown may not change it: the opponent's exchange, say);
        nothing while a move is on its way."""
        decision = self.model.decision
        return decision if self.sent is None and decision == self.view.decision else None

    def _sealed(self, seat: Player) -> bool:
        """Whether ``seat`` has committed this round, at the moment shown."""
        return has_committed(self.view, self.shown.commitments, seat)

    def _react(self, events: list[GameEvent]) -> None:
        """A scoring round or the end to show, and a fresh drawing."""
        categories = [e for e in events if isinstance(e, CategoryScored)]
        if categories:
            dead = next((e.dead for e in events if isinstance(e, ScoringStarted)), 0)
            scores = (self.view.red.score, self.view.blue.score)
            self.modals.append(lambda: ScoringScreen(dead, categories, scores))
        self._note_rematch(events)
        if any(isinstance(e, ChatSaid) and e.player is not self.model.seat for e in events):
            self.aton.ring()
        self.refresh_view()
        if self.view.outcome is not None and not self.end_shown:
            self.end_shown = True
            self.modals.append(self._end_screen)
        self._next_modal()

    def reply(self, request: int, error: m.Error | None) -> None:
        """The server answered a request of ours (ack, or error)."""
        if request != self.sent:
            return
        if error is None:
            self.acked = True
            return
        self.sent = None
        self.refresh_view()

    # ------------------------------------------------------------------ drawing

    def refresh_view(self) -> None:
        model, view = self.model, self.view
        self.query_one("#top-bar", Static).update(self._top_line())
        self.query_one(ScoreTrack).scores = (view.red.score, view.blue.score)
        self.query_one(Kingdom).dead = (view.red.dead, view.blue.dead)
        self.query_one(PlayersPanel).rows = tuple(self._row(seat) for seat in (model.opponent, model.bottom))
        decision = self.decision
        self._show_commit(decision)
        self._show_squares(decision)
        self.query_one("#decision", Static).update(self._decision_line(decision))
        self._show_hint()
        self._sync_footer()
        self._tell_the_player()

    def _tell_the_player(self) -> None:
        """The bell when a decision of ours shows, and whose move it is in the terminal's title.
        (Our own moves do not ring: the decision stays ours from one stone to the next.)"""
        deciding = self.model.decision is not None and self.view.decision is not None  # at the moment shown
        if deciding and not self.deciding:
            self.aton.ring()
        self.deciding = deciding
        self.aton.show_title(self._title())

    def _title(self) -> str:
        """The terminal's title: whose move it is, at the moment shown."""
        model, view = self.model, self.view
        if view.outcome is not None:
            return "Aton · game over"
        if model.seat is None:
            return f"Aton · watching {model.name(RED)} – {model.name(BLUE)}"
        if self.decision is not None:
            return "Aton · your move"
        if model.opponent in view.pending and not (view.phase is Phase.COMMIT and self._sealed(model.opponent)):
            return f"Aton · {model.name(model.opponent)} to move"
        return "Aton · waiting"

    def _welcome(self) -> str:
        model = self.model
        if model.seat is None:
            return f"You watch game {model.game}.  ? shows the rules and the keys."
        return (f"Game {model.game}: you play {player_name(model.seat)} against {model.name(model.opponent)}.  "
                f"? shows the rules and the keys.")

    def _top_line(self) -> str:
        """Round, game and who plays whom, with their ratings; what does not fit the width is left
        out (the word ATON, the game, then the ratings), names shortened last."""
        model = self.model
        room = self.size.width - 1
        line = ""
        for who in (self._who(rated=True), self._who(rated=False)):
            parts = ["ATON", f"Round {self.view.round}", f"game {model.game}", who]
            for shown in (parts, parts[1:], [parts[1], parts[3]]):
                line = "  ·  ".join(shown)
                if cell_len(line) <= room:
                    break
            if cell_len(line) <= room:
                break
        text = Text(" " + line)
        text.truncate(room + 1, overflow="ellipsis")
        return text.plain

    def _who(self, rated: bool) -> str:
        """Who plays whom, each name with its rating when ``rated`` (and the player has one)."""
        model = self.model

        def named(seat: Player) -> str:
            rating = model.rating(seat) if rated else None
            return model.name(seat) + (f" {rating}" if rating else "")

        if model.seat is None:
            return f"watching {named(RED)} (Red) vs {named(BLUE)} (Blue)"
        you = model.rating(model.seat) if rated else None
        return (f"you are {SEAT_SYMBOL[model.seat]} {player_name(model.seat)}{f' {you}' if you else ''} "
                f"against {named(model.opponent)}")

    def _row(self, seat: Player) -> PlayerRow:
        model, view = self.model, self.view
        pv = view.player(seat)
        you = seat is model.seat
        return PlayerRow(
            seat=seat, name=model.name(seat), you=you,
            connected=model.connected(seat),
            to_move=seat in view.pending and view.outcome is None and not (
                view.phase is Phase.COMMIT and self._sealed(seat)),
            cartouches=self._cartouches(seat),
            supply=pv.supply, deck=pv.deck, discard=pv.discard, exchange_used=pv.exchange_used,
            clock_ms=model.clock_ms(seat), clock_at=model.clocks_at, strikes=model.strikes(seat),
            clock_paused=model.paused(seat), chat_muted=model.name(seat) in self.aton.muted,
            rating=model.rating(seat),
        )

    def _cartouches(self, seat: Player) -> tuple[Cartouche, ...]:
        draft = self.query_one(CommitPanel).draft
        sealed = self._sealed(seat)
        ours = seat is self.model.seat and self.view.phase is Phase.COMMIT and sealed
        # (our cards as we laid them, or as a run before this one sealed them)
        slots = (draft.slots if draft.complete else self.aton.sealed(self.model.game)) if ours else None
        return cartouche_faces(self.view.player(seat), sealed, slots)

    def _decision_line(self, decision) -> str:
        model, view = self.model, self.view
        if view.outcome is not None:
            return self._fitting("Game over. " + result_sentence(view.outcome) + "  (e: the result)",
                                 "Game over. " + result_sentence(view.outcome), result_sentence(view.outcome))
        if self.sent is not None:
            return "Sending…"
        if decision is not None:
            if decision.kind == "commit":
                return self._fitting(f"▶ {decision.sentence}, then Enter.", f"▶ {decision.sentence}.")
            return self._fitting(f"▶ {decision.sentence}: Enter or a click on a lit square.",
                                 f"▶ {decision.sentence}.")
        if view.phase is Phase.COMMIT:
            waiting = [s for s in PLAYERS if not self._sealed(s)]
            if model.seat is not None and model.seat not in waiting:
                return (f"Sealed. Waiting for {player_name(model.opponent)} to commit…" if waiting
                        else "Both have committed: opening the cartouches…")
            return "Both players are choosing their cartouches…"
        verb = "removing stones" if view.phase is Phase.REMOVE else "placing stones"
        assert view.range is not None, "a removal or a placement has its range"
        return f"{player_name(view.active)} is {verb} ({describe_temples(view.range)})…"

    def _fitting(self, *lines: str, width: int = 0) -> str:
        """The first of ``lines`` that fits a line ``width`` wide (default: the screen's) with its
        padding (the last one if none does)."""
        room = (width or self.size.width) - 2
        return next((line for line in lines if cell_len(line) <= room), lines[-1])

    # ------------------------------------------------------------------ committing

    def _show_commit(self, decision) -> None:
        panel = self.query_one(CommitPanel)
        committing = decision is not None and decision.kind == "commit"
        panel.display = committing
        if committing != self.has_class("-committing"):
            self.set_class(committing, "-committing")
            if self.has_class("-large"):  # the reminder may fit now, or no longer
                self.call_after_refresh(self._fit_legend)
        if committing:
            key = (self.model.view.round, decision.hand)
            if key != self.committing_for:
                self.committing_for = key
                panel.start(decision.hand, first_round=self.model.view.round == 1,
                            can_exchange=decision.can_exchange)

    def _committing(self) -> bool:
        decision = self.decision
        return decision is not None and decision.kind == "commit"

    def on_commit_panel_changed(self, _: CommitPanel.Changed) -> None:
        self._sync_footer()

    async def on_commit_panel_pressed(self, event: CommitPanel.Pressed) -> None:
        await self.run_action(event.button)

    def _edit(self, change: Callable[[CommitPanel], None]) -> None:
        panel = self.query_one(CommitPanel)
        change(panel)
        panel.changed()

    @at_the_present
    def action_card(self, value: int) -> None:
        panel = self.query_one(CommitPanel)
        if not panel.draft.put(value):
            self.notify(f"You have no {value} in your hand.", severity="warning", timeout=2)
        panel.changed()

    @at_the_present
    def action_cartouche(self, step: int) -> None:
        self._edit(lambda p: p.draft.move(step))

    @at_the_present
    def action_change(self, step: int) -> None:
        self._edit(lambda p: p.draft.cycle(step))

    @at_the_present
    def action_take_back(self) -> None:
        self._edit(lambda p: p.draft.take_back())

    @at_the_present
    async def action_seal(self) -> None:
        draft = self.query_one(CommitPanel).draft
        self.sent = await self.aton.commit(self.model.game, draft.cards)
        self.refresh_view()

    @at_the_present
    def action_exchange(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._send(m.Exchange(game=self.model.game)))

        question = ("Spend your exchange token (once per game)?\n"
                    "Your 4 cards go to the discard pile and you draw 4 new ones.")
        self.app.push_screen(Confirm(question, yes="Exchange", no="Keep my cards"), answered)

    # ------------------------------------------------------------------ choosing squares

    def _show_squares(self, decision) -> None:
        board = self.query_one(Board)
        board.temples = self.view.temples
        choosing = decision is not None and decision.kind in ("remove", "place")
        if choosing:
            self.cursor.offer(decision.squares)
            self._maybe_force(decision)
        else:
            self.cursor.clear()
        board.choosing = choosing
        board.legal = frozenset(self.cursor.legal)
        board.cursor = self.cursor.square if choosing else None

    def _maybe_force(self, decision) -> None:
        """One legal square and the setting on: choose it after a moment (so it is seen)."""
        if len(decision.squares) != 1 or not self.aton.settings.auto_forced:
            return
        if self.forced_version == self.model.version:
            return
        self.forced_version = version = self.model.version

        def play() -> None:
            if self.model.version == version and self.decision is not None:
                self.run_worker(self.action_choose())

        self.set_timer(FORCED_MOVE_DELAY, play)

    def _choosing(self) -> bool:
        return self.cursor.active and self.sent is None

    @at_the_present
    def action_cursor(self, rows: int, columns: int) -> None:
        self.cursor.move(rows, columns)
        self.query_one(Board).cursor = self.cursor.square

    @at_the_present
    def action_temple(self, temple: int) -> None:
        if not self.cursor.jump(temple):
            self.notify(f"Temple {temple} has no square you can choose now.", severity="warning", timeout=2)
        self.query_one(Board).cursor = self.cursor.square

    @at_the_present
    async def action_choose(self) -> None:
        decision = self.decision
        square = self.cursor.square
        if decision is None or square is None:
            return
        temple, index = square
        move = m.Place if decision.kind == "place" else m.Remove
        await self._send(move(game=self.model.game, temple=temple, square=index))

    async def on_board_square_clicked(self, event: Board.SquareClicked) -> None:
        if self._choosing() and event.square in self.cursor.legal:
            self.cursor.square = event.square
            await self.action_choose()

    async def _send(self, msg: m.Message) -> None:
        self.sent = await self.aton.send(msg)
        self.refresh_view()

    # ------------------------------------------------------------------ reveals and modals

    def action_chat(self) -> None:
        def said(text: str | None) -> None:
            if text:
                self.run_worker(self.aton.send(m.Chat(game=self.model.game, text=text)))

        opponent = self.model.name(self.model.opponent)
        self.app.push_screen(Prompt(f"Say to {opponent}:", placeholder="one line; it appears in both logs",
                                    max_length=self.aton.chat_chars), said)

    def _opponent_name(self) -> str | None:
        """The name of a person we play against (None: we watch, or play a bot)."""
        model = self.model
        return model.name(model.opponent) if model.seat is not None and model.kind(model.opponent) == "human" \
            else None

    def action_mute_opponent(self) -> None:
        name = self._opponent_name()
        if name is not None:
            self.run_worker(self.aton.send(m.Mute(name=name)))

    def action_unmute_opponent(self) -> None:
        name = self._opponent_name()
        if name is not None:
            self.run_worker(self.aton.send(m.Unmute(name=name)))

    def action_toggle_mute(self) -> None:
        name = self._opponent_name()
        if name is not None:
            self.run_worker(self.aton.send(m.Unmute(name=name) if name in self.aton.muted else m.Mute(name=name)))

    def action_report_opponent(self) -> None:
        name, game = self._opponent_name(), self.model.game
        if name is None:
            return

        async def send(reason: str) -> None:
            request = await self.aton.send(m.Report(name=name, game=game, reason=reason))
            if request is not None:
                self.aton.reports[request] = name

        def answered(reason: str | None) -> None:
            if reason:
                self.run_worker(send(reason))

        self.app.push_screen(Prompt(f"Report {name} to the operator.\nWhat happened?",
                                    placeholder="one line: cheating, insults, stalling…", max_length=m.REPORT_CHARS),
                             answered)

    def _can_chat(self) -> bool:
        """Players chat with a human opponent (bots do not read)."""
        model = self.model
        return model.seat is not None and model.kind(model.opponent) == "human"

    def action_log(self, pages: int) -> None:
        log = self.query_one(GameLog)
        if pages < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    def action_skip(self) -> None:
        """Jump to the present: tell and show at once all that is still to be played back."""
        self._show(self.playback.rest())

    def _end_screen(self) -> EndScreen:
        view = self.view
        assert view.outcome is not None, "the end screen shows a finished game"
        offer = self.model.opponent if self.model.rematch_offered_to_us else None
        result = aton_result(view.outcome, self.model.seat, (view.red.score, view.blue.score))
        self.end_screen = EndScreen(result, can_rematch=self.model.seat is not None,
                                    can_save=self.aton.check_action("save_record", ()) is True, offer=offer,
                                    hints=self.model.hints_used, ratings=ratings_line(self.model))
        return self.end_screen

    def action_show_end(self) -> None:
        self.modals.append(self._end_screen)
        self._next_modal()

    def _next_modal(self) -> None:
        if self.modals and self.app.screen is self:
            self.app.push_screen(self.modals.pop(0)(), lambda _: self._next_modal())

    def _note_rematch(self, events: list[GameEvent]) -> None:
        """Say how a rematch stands on the end screen; an offer to us is shown where the player
        looks: on the end screen, opened again if it was closed, and in a notification."""
        for event in events:
            match event:
                case RematchOffered(seat) if seat is not self.model.seat:
                    self._rematch_offered(seat)
                    continue
                case RematchOffered(_):
                    text = "You offered a rematch; waiting for the answer…"
                case RematchDeclined(seat):
                    text = "You declined the rematch." if seat is self.model.seat else \
                        f"{player_name(seat)} declined the rematch."
                case _:
                    continue
            if self.end_screen is not None and self.end_screen.is_attached:
                self.end_screen.note(text)

    def _rematch_offered(self, offerer: Player) -> None:
        if self.model.seat is None:
            return
        self.aton.ring()
        if self.end_screen is not None and self.end_screen.is_attached:
            self.end_screen.offered(offerer)
            return
        self.aton.notify(offer_sentence(offerer), title="Rematch?", timeout=10)
        if self.end_shown and self._end_screen not in self.modals:
            self.modals.append(self._end_screen)  # the end screen, with the offer and its keys

    # ------------------------------------------------------------------ hints

    def _decision_key(self) -> tuple | None:
        """The decision at hand, as a hint is kept for it (None: no decision of ours)."""
        decision = self.decision
        return None if decision is None else (self.model.game, self.view.round, self.view.phase, decision)

    def hint_refusal(self) -> str | None:
        """Why this game allows no hint (None: it allows them)."""
        return hint_refusal(self.model)

    def action_hint(self) -> None:
        """Ask the search bot for this decision's move (in a worker process); shown once found."""
        key = self._decision_key()
        if key is None or self.hint_refusal() is not None:
            self.action_no_hint()
            return
        if key == self.hint_for:  # asked already: still thinking, or shown
            if self.hint is None:
                self.notify("Still thinking about the hint…", timeout=2)
            return
        self.hint_for, self.hint = key, None
        self.hint_search = self.run_worker(self._search_hint(key, self.view, hint_seed(self.model)),
                                           group="hint", exit_on_error=False)
        self._show_hint()

    def on_hint_line_resized(self, _: HintLine.Resized) -> None:
        if self.has_class("-large"):  # the reminder below may fit now, or no longer
            self.call_after_refresh(self._fit_legend)

    def action_no_hint(self) -> None:
        self.notify(self.hint_refusal() or NO_DECISION, severity="warning", timeout=4)

    #: finds a hint for a view and a seed (a test may delay it)
    ask_for_hint = staticmethod(ask_for_hint)

    async def _search_hint(self, key: tuple, view: View, seed: int) -> None:
        try:
            found = await self.ask_for_hint(view, seed)
        except (HintFailed, OSError, ValueError, KeyError) as exc:  # it died, did not start, said nothing readable
            if key == self.hint_for:
                self.hint_for = None
                self.notify(f"No hint this time: {exc}.", severity="error", timeout=4)
                self._show_hint()
            return
        if key != self._decision_key() or key != self.hint_for:
            return  # the player moved on meanwhile: a late answer is dropped
        self.hint = found
        self.model.hints_used += 1
        self._lay_hint(found)
        self._show_hint()

    def _lay_hint(self, found: Hint) -> None:
        """Put the suggestion on the board: the cards on the cartouches, or the cursor on the square
        (the player still confirms it with Enter)."""
        move = found.move
        if isinstance(move, Commit):
            self._edit(lambda panel: panel.draft.lay(move.cards))
        elif isinstance(move, (Place, Remove)):
            self.cursor.square = (move.temple, move.square)
            self.query_one(Board).cursor = self.cursor.square

    def _show_hint(self) -> None:
        """The hint's line below the decision; a hint for a decision left behind is dropped."""
        if self.hint_for is not None and self.hint_for != self._decision_key():
            if self.hint_search is not None:
                self.hint_search.cancel()  # kills its worker process
            self.hint_for, self.hint, self.hint_search = None, None, None
        line = self.query_one(HintLine)
        line.display = self.hint_for is not None
        if self.hint_for is None:
            return
        width = self.query_one("#side").size.width  # beside the log on a large screen
        if self.hint is None:
            line.update(self._fitting("Hint: the bot is thinking… (your clock runs on)", "Hint: thinking…",
                                      width=width))
            return
        what = "exchange (x) — " if isinstance(self.hint.move, Exchange) else ""
        line.update(self._fitting(f"Hint: {what}{self.hint.reason}.", f"Hint: {what}{self.hint.headline}.",
                                  width=width))  # the short one wraps if it must

    # ------------------------------------------------------------------ the footer

    def _sync_footer(self) -> None:
        """Redraw the footer only when the keys that work have changed (a redraw is costly)."""
        decision = self.decision
        state = (self._committing(), self.query_one(CommitPanel).draft.complete,
                 bool(decision and decision.can_exchange), self._choosing(), self.playback.behind,
                 self.view.outcome is not None)
        if state != self.footer_state:
            self.footer_state = state
            self.refresh_bindings()

    def _decision_ahead(self) -> bool:
        """Whether a decision of ours waits at the present while the playback is behind it."""
        return self.playback.behind and self.model.decision is not None and self.sent is None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        ahead = self.model.decision if self._decision_ahead() else None
        if ahead is not None and action in COMMIT_ACTIONS | CHOOSE_ACTIONS:  # jumps there first (``at_the_present``)
            if action == "exchange":
                return ahead.kind == "commit" and ahead.can_exchange
            return (ahead.kind == "commit") == (action in COMMIT_ACTIONS)
        if action in ("card", "cartouche", "change", "take_back"):
            return self._committing()
        if action == "seal":
            return self._committing() and self.query_one(CommitPanel).draft.complete
        if action == "exchange":
            decision = self.decision
            return decision is not None and decision.kind == "commit" and decision.can_exchange
        if action in ("temple", "cursor", "choose"):
            return self._choosing()
        if action == "skip":
            return self.playback.behind
        if action == "show_end":
            return self.view.outcome is not None
        if action == "chat":
            return self._can_chat()
        if action in ("mute_opponent", "unmute_opponent"):
            name = self._opponent_name()
            return name is not None and (name in self.aton.muted) == (action == "unmute_opponent")
        if action in ("report_opponent", "toggle_mute"):
            return self._opponent_name() is not None
        if action in ("hint", "no_hint"):
            allowed = self.decision is not None and self.hint_refusal() is None
            return allowed == (action == "hint")
        return True

