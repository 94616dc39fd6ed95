"""The game screen of Atlas & Zeus: the ring, the track, the hand, both clans, the log; keys and clicks.

The app keeps the ``GameModel`` current and calls ``apply`` with the new events; the
screen draws the model's view at once (no paced playback: a round's resolution reads in
the log, card by card).  It never decides legality: the slots and cards of a programming,
and the targets of a card, come from the decision the server sent (``choosing``).

Keys: ← → (h l) light the previous / next card of the hand while programming, or the
previous / next target while a card is resolved; 1–6 put the lit card on that slot (or
fog that slot); Enter seals the programming, or chooses the lit target; Backspace takes a
card or a step back; d ends a Transfer before its points are all spent.  A click on a card,
a slot, an island or a person does what its key would.
"""

from __future__ import annotations

import textwrap
from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Static

from atlas_zeus.views import Decision, View
from aton.players import Player
from protocol import messages as m
from protocol.events import ChatSaid, RematchDeclined, RematchOffered
from protocol.game_frames import Numbered

from ..model import ZeusModel
from ..narrate import player_name
from ..screens.client_screen import ClientScreen
from ..screens.dialogs import Prompt
from ..screens.end import EndScreen, Result, headline, ratings_line
from ..sizes import LARGE, ROOMY_HEIGHT
from ..widgets.fitted_footer import FittedFooter
from ..widgets.game_log import GameLog
from ..widgets.notice import Notice
from ..widgets.symbols import SEAT_SYMBOL
from .choosing import CardChoice, ProgramDraft, Target
from .clans import ClanRow, Clans
from .faces import card_title, clan_row, clan_view, hand_faces, island_faces, slot_faces, where
from .hand import Hand
from .ring import CLAN_SYMBOL, Ring
from .track import Track
from .words import narrate, result_sentence, situation

if TYPE_CHECKING:
    from ..app import AtonApp

CLANS = ("red", "blue")
#: ``sent`` while a move is being sent and its request id is not known yet
SENDING = -1
#: the lines the decision's sentence may take (it wraps)
DECISION_ROWS = 2


class AtlasZeusScreen(ClientScreen, Screen):
    BINDINGS = [
        Binding("left,h", "cursor(-1)", "Previous", key_display="←→",
                tooltip="light the previous card of your hand, or the previous target (counter-clockwise)"),
        Binding("right,l", "cursor(1)", "Next", show=False,
                tooltip="light the next card of your hand, or the next target (clockwise)"),
        Binding("up,k", "cursor(-1)", "Previous", show=False, tooltip="the same as ←"),
        Binding("down,j", "cursor(1)", "Next", show=False, tooltip="the same as →"),
        *(Binding(str(n), f"slot({n})", "Slot", show=n == 1, key_display="1-6",
                  tooltip="put the lit card on that slot (programming), or fog that slot (Fog)")
          for n in range(1, 7)),
        Binding("enter", "choose", "Choose", tooltip="seal your programming, or choose the lit target"),
        Binding("backspace,delete", "back", "Take back",
                tooltip="take the lit card back from the track, or undo the last target chosen"),
        Binding("d", "done", "Done", tooltip="end a Transfer with the steps chosen so far"),
        Binding("e", "show_end", "Result", tooltip="show the result of the game again"),
        Binding("t", "chat", "Chat", tooltip="say something to your opponent"),
        Binding("R", "app.resign", "Resign", show=False, key_display="R (Shift+r)",
                tooltip="resign this game (asks first: y resigns, n or Esc plays on)"),
        Binding("pageup", "log(-1)", "Log back", show=False, tooltip="scroll the log back"),
        Binding("pagedown", "log(1)", "Log forward", show=False, tooltip="scroll the log forward"),
        Binding("question_mark", "app.help", "Help", key_display="?", tooltip="the rules in short and every key"),
        Binding("ctrl+l", "app.lobby", "Lobby", show=False, tooltip="back to the lobby"),
    ]

    #: keys that leave a narrow footer first (help lists them all)
    FOOTER_SPARE = ("back", "show_end", "chat", "done", "slot")

    def __init__(self, model: ZeusModel) -> None:
        super().__init__()
        self.model = model
        self.sent: int | None = None  # request id of a move not yet answered by an update (SENDING: not known yet)
        self.updates = 0  # the updates applied so far (one may bring no event: a Volcano's island chosen)
        self.sent_at = 0  # ``updates`` when it was sent
        self.early: dict[int, m.Error | None] = {}  # answers that came while it was being sent
        self.acked = False
        self.refusal = ""  # the server's sentence for the move it refused last
        self.deciding_for: tuple | None = None  # the decision the draft or the choice below is for
        self.draft: ProgramDraft | None = None  # a programming being made
        self.sealed: dict[int, str] = {}  # our sealed programming (slot -> card) until the view shows it
        self.choice: CardChoice | None = None  # a card's targets being chosen
        self.cursor = 0  # the lit target among ``choice.targets()``
        self.end_shown = False
        self.end_screen: EndScreen | None = None
        self.footer_state: tuple = ()
        self.deciding = False  # whether we had a decision at the last drawing (the bell rings on a new one)
        self.ready = False

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    @property
    def view(self) -> View:
        return self.model.view

    @property
    def seat(self) -> str | None:
        return None if self.model.seat is None else str(self.model.seat)

    def compose(self) -> ComposeResult:
        yield Static("", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        yield Ring()
        yield Track()
        yield Static("", id="az-decision", markup=False)
        yield Hand()
        yield Clans(self.aton.clock)
        yield GameLog(id="log")
        yield FittedFooter()

    def on_mount(self) -> None:
        log = self.query_one(GameLog)
        log.note(self._welcome())
        log.add(narrate([n.event for n in self.model.events], self.model.seat))
        self.ready = True
        self.refresh_view()
        self._maybe_end()

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        self.set_class(width >= LARGE.width and height >= LARGE.height, "-large")
        self.set_class(height < ROOMY_HEIGHT, "-compact")
        if self.ready:
            self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        with suppress(NoMatches):  # the app is closing and takes the widgets away one by one
            self.refresh_view()

    def _welcome(self) -> str:
        model = self.model
        if model.seat is None:
            return f"You watch game {model.game} of Atlas & Zeus.  ? shows the rules and the keys."
        return (f"Atlas & Zeus, game {model.game}: you play {player_name(model.seat)} against "
                f"{model.name(model.opponent)}.  ? shows the rules and the keys.")

    # ------------------------------------------------------------------ from the server

    def apply(self, numbered: list[Numbered], fresh: bool = False) -> None:
        """The model moved on by these events; ``fresh``: it was replaced by a whole new state."""
        self.updates += 1
        if self.acked or fresh:
            self.sent, self.acked = None, False
        if not self.ready:
            return
        with suppress(NoMatches):
            events = [n.event for n in numbered]
            self.query_one(GameLog).add(narrate(events, self.model.seat))
            if any(isinstance(e, ChatSaid) and e.player is not self.model.seat for e in events):
                self.aton.ring()
            self._note_rematch(events)
            self.refresh_view()
            self._maybe_end()

    def reply(self, request: int, error: m.Error | None) -> None:
        """The server answered a request of ours (ack, or a refusal: its sentence is shown).  An
        answer may come while the move is still being sent (its id not known yet): it is kept."""
        if self.sent == SENDING:
            self.early[request] = error
            return
        if request != self.sent:
            return
        if error is None and self.updates > self.sent_at:
            self.sent = None  # the update that answers it came first
            self.refresh_view()
            return
        if error is None:
            self.acked = True
            return
        self.sent = None
        self.refusal = error.message
        self.deciding_for = None  # the decision starts again from nothing
        self.refresh_view()

    def _maybe_end(self) -> None:
        if self.view.outcome is not None and not self.end_shown:
            self.end_shown = True
            self.action_show_end()

    # ------------------------------------------------------------------ the decision

    @property
    def decision(self) -> Decision | None:
        """What the player can decide now (nothing while a move is on its way)."""
        return self.model.decision if self.sent is None else None

    def _take_decision(self) -> None:
        """A new decision: a fresh draft or choice for it (the same one is kept as it is)."""
        decision, view = self.decision, self.view
        key = None if decision is None else (view.round, view.resolving, decision)
        if key == self.deciding_for:
            return
        self.deciding_for = key
        self.draft, self.choice, self.cursor = None, None, 0
        if decision is None:
            return
        if decision.kind == "program":
            self.draft = ProgramDraft([str(c) for c in decision.hand or ()], decision.slots or ())
            self.sealed = dict(self.aton.sealed(self.model.game) or ())  # (sealed by a run before this one)
            return
        options = tuple(o if isinstance(o, dict) else o.to_dict() for o in decision.options or ())
        self.choice = CardChoice(
            kind=decision.kind, options=options, ring=tuple(int(i.number) for i in view.ring), where=where(view),
            movable={str(p): tuple(int(i) for i in islands) for p, islands in (decision.movable or {}).items()},
            points=int(decision.points or 0), flood=int(view.flood))

    def _targets(self) -> list[Target]:
        return self.choice.targets() if self.choice is not None else []

    def _lit(self) -> Target | None:
        targets = self._targets()
        return targets[self.cursor % len(targets)] if targets else None

    # ------------------------------------------------------------------ drawing

    def refresh_view(self) -> None:
        self._take_decision()
        view, model = self.view, self.model
        self.query_one("#top-bar", Static).update(self._top_line())
        ring = self.query_one(Ring)
        ring.islands = island_faces(view, self.choice)
        targets = tuple(self._targets())
        lit = self._lit()
        ring.targets = tuple(t for t in targets if t[0] != "slot")
        ring.cursor = lit if lit is not None and lit[0] != "slot" else None
        track = self.query_one(Track)
        draft = self.draft.on_track if self.draft is not None else self.sealed
        track.slots = slot_faces(view, draft, self.seat)
        track.targets = (tuple(t for t in targets if t[0] == "slot") if self.choice is not None else
                         tuple(("slot", s) for s in self.draft.slots) if self.draft is not None else ())
        track.cursor = lit if lit is not None and lit[0] == "slot" else None
        hand = self.query_one(Hand)
        hand.cards = hand_faces(view, self.seat, self.draft)
        hand.lit = self.draft.lit if self.draft is not None else None
        hand.display = model.seat is not None
        self.query_one(Clans).rows = tuple(self._row(seat) for seat in (model.opponent, model.bottom))
        self.query_one("#az-decision", Static).update(self._decision_line())
        self._sync_footer()
        self._tell_the_player()

    def _tell_the_player(self) -> None:
        """The bell when a decision of ours comes, and whose move it is in the terminal's title."""
        deciding = self.model.decision is not None
        if deciding and not self.deciding:
            self.aton.ring()
        self.deciding = deciding
        self.aton.show_title(self._title())

    def _title(self) -> str:
        model, view = self.model, self.view
        if view.outcome is not None:
            return "Atlas & Zeus · game over"
        if model.seat is None:
            return f"Atlas & Zeus · watching {model.name(model.bottom)} – {model.name(model.opponent)}"
        if self.decision is not None:
            return "Atlas & Zeus · your move"
        return "Atlas & Zeus · waiting"

    def _top_line(self) -> str:
        model, view = self.model, self.view
        if model.seat is None:
            who = f"watching {model.name(model.bottom)} (Red) vs {model.name(model.opponent)} (Blue)"
        else:
            who = (f"you are {SEAT_SYMBOL[model.seat]} {player_name(model.seat)} "
                   f"against {model.name(model.opponent)}")
        islands = f"{len(view.ring)} islands"
        parts = ["ATLAS & ZEUS", f"Round {view.round}", islands, f"game {model.game}", who]
        room = self.size.width - 2
        for shown in (parts, parts[1:], [parts[1], parts[2], parts[4]], [parts[1], parts[4]]):
            line = "  ·  ".join(shown)
            if cell_len(line) <= room:
                return " " + line
        return " " + "  ·  ".join([parts[1], parts[4]])[:room]

    def _row(self, seat: Player) -> ClanRow:
        model = self.model
        sealed = model.commitments.get(seat, "none") != "none"
        row = clan_row(self.view, str(seat), model.name(seat), seat is model.seat, sealed)
        return replace(row, connected=model.connected(seat), clock_ms=model.clock_ms(seat), clock_at=model.clocks_at,
                       strikes=model.strikes(seat), clock_paused=model.paused(seat))

    def _decision_line(self) -> str:
        view = self.view
        if view.outcome is not None:
            return self._fitting(f"Game over. {result_sentence(view.outcome)}  (e: the result)",
                                 f"Game over. {result_sentence(view.outcome)}")
        if self.sent is not None:
            return "Sending…"
        refusal = f"✕ {self.refusal}  " if self.refusal else ""
        decision = self.decision
        if decision is None:
            return refusal + self._waiting_line()
        if self.draft is not None:
            return refusal + self._program_line(decision)
        return refusal + self._choice_line(decision)

    def _program_line(self, decision: Decision) -> str:
        draft = self.draft
        assert draft is not None
        if draft.complete:
            return self._fitting(f"▶ {decision.sentence} Ready: Enter seals them (Backspace takes a card back).",
                                 "▶ Ready: Enter seals your programming.")
        return self._fitting(f"▶ {decision.sentence} ← → lights a card, its slot's key (or a click) puts it "
                             "there; Enter seals.",
                             f"▶ {decision.sentence} ← → a card, then its slot.", f"▶ {decision.sentence}")

    def _choice_line(self, decision: Decision) -> str:
        choice = self.choice
        assert choice is not None
        lit = self._lit()
        point = self._target_words(lit) if lit is not None else "nothing to point at"
        if choice.kind == "transfer":
            steps = ", ".join(f"{p} → {i}" for p, i in choice.steps) or "no step yet"
            left = f"{choice.left} of {choice.points} points left"
            doing = f"{choice.person} goes to" if choice.person is not None else "Who moves"
            done = "; d: done" if choice.steps else ""
            return self._fitting(
                f"▶ {decision.sentence} Steps: {steps} ({left}). {doing}: {point}? Enter{done}.",
                f"▶ Transfer: {steps} ({left}). {doing}: {point}? Enter{done}.",
                f"▶ Transfer {steps}; {point}")
        if choice.kind == "fish" and choice.person is not None:
            return self._fitting(f"▶ Flying fish: {choice.person} flies to {point}; Enter (Backspace: another person).",
                                 f"▶ Fly {choice.person} to {point}: Enter.")
        card = card_title(decision.card) if decision.card is not None else decision.kind.capitalize()
        return self._fitting(f"▶ {decision.sentence} Lit: {point}; ← → another, Enter or a click chooses.",
                             f"▶ {decision.sentence} Lit: {point}.", f"▶ {card}: {point}; ← → Enter.")

    def _target_words(self, target: Target) -> str:
        what, value = target
        if what == "slot":
            return f"slot {value}"
        if what == "island":
            if self.choice is not None and self.choice.kind == "surge":
                return f"flood to island {value}"
            return f"island {value}"
        person = next(p for p in self.view.people if str(p.person) == value)
        return f"{value} ({int(person.strength)}) on island {person.island}"

    def _waiting_line(self) -> str:
        model, view = self.model, self.view
        if view.phase == "program" and model.seat is not None and model.commitments.get(model.seat, "none") != "none":
            return f"Sealed. Waiting for {player_name(model.opponent)} to program…"
        return situation(view) + "…"

    def _fitting(self, *lines: str) -> str:
        """The first of ``lines`` that fits the decision's two lines, wrapped at words (the last
        one if none does)."""
        width = max(10, self.size.width - 2)
        return next((line for line in lines if len(textwrap.wrap(line, width)) <= DECISION_ROWS), lines[-1])

    # ------------------------------------------------------------------ keys and clicks

    def action_cursor(self, step: int) -> None:
        if self.draft is not None:
            self.draft.light(step)
        elif self._targets():
            self.cursor = (self.cursor + step) % len(self._targets())
        self.refresh_view()

    async def action_slot(self, slot: int) -> None:
        if self.choice is not None and self.choice.kind == "fog":
            await self._pick(("slot", slot))
            return
        if self.draft is None:
            return
        why = self.draft.put(slot)
        if why:
            self.notify(why, severity="warning", timeout=3)
        self.refresh_view()

    async def action_choose(self) -> None:
        if self.draft is not None:
            if self.draft.complete:
                await self._send(self.draft.move())
            else:
                self.notify("Put a card on each of your three slots first.", severity="warning", timeout=3)
            return
        lit = self._lit()
        if lit is not None:
            await self._pick(lit)

    def action_back(self) -> None:
        if self.draft is not None:
            self.draft.take_back()
        elif self.choice is not None and self.choice.back():
            self.cursor = 0
        self.refresh_view()

    async def action_done(self) -> None:
        if self.choice is not None and self.choice.kind == "transfer":
            move = self.choice.transfer()
            if move is None:
                self.notify("Choose at least one step: the Transfer is compulsory.", severity="warning", timeout=3)
                return
            await self._send(move)

    async def _pick(self, target: Target) -> None:
        choice = self.choice
        if choice is None or target not in choice.targets():
            return
        move = choice.pick(target)
        self.cursor = 0
        if move is not None:
            await self._send(move)
        else:
            self.refresh_view()

    async def on_ring_clicked(self, event: Ring.Clicked) -> None:
        if self.choice is None:
            return
        target = event.target
        if target not in self._targets() and target[0] == "island":  # a click on an island offering one person
            people = [t for t in self._targets() if t[0] == "person" and where(self.view).get(str(t[1])) == target[1]]
            target = people[0] if len(people) == 1 else target
        if target in self._targets():
            self.cursor = self._targets().index(target)
            await self._pick(target)

    async def on_track_clicked(self, event: Track.Clicked) -> None:
        await self.action_slot(int(event.target[1]))

    def on_hand_clicked(self, event: Hand.Clicked) -> None:
        if self.draft is not None:
            self.draft.lit = event.index
            self.refresh_view()

    async def _send(self, move: dict) -> None:
        self.refusal = ""
        self.sent, self.sent_at, self.early = SENDING, self.updates, {}
        self.refresh_view()
        face_up = self.seat is not None and clan_view(self.view, self.seat).open_hand
        if move["kind"] == "program" and not face_up:  # sealed; under Open hand it goes in the clear
            self.sealed = dict(self.draft.on_track) if self.draft is not None else {}
            request = await self.aton.program(self.model.game, move)
        else:
            request = await self.aton.act(self.model.game, move)
        self.sent = request
        if request is not None and request in self.early:
            self.reply(request, self.early.pop(request))
        self.refresh_view()

    def action_show_end(self) -> None:
        if self.view.outcome is not None and self.app.screen is self:
            self.end_screen = self._end_screen()
            self.app.push_screen(self.end_screen)

    def _end_screen(self) -> EndScreen:
        model, view = self.model, self.view
        outcome = view.outcome
        assert outcome is not None, "the end screen shows a finished game"
        alive = {clan: [p for p in view.people if str(p.clan) == clan and p.island is not None] for clan in CLANS}
        score = "Survivors:  " + "  —  ".join(
            f"{CLAN_SYMBOL[clan]} {clan.capitalize()} {len(alive[clan])}" for clan in CLANS)
        result = Result(headline(outcome.winner, model.seat), result_sentence(outcome), score)
        offer = model.opponent if model.rematch_offered_to_us else None
        return EndScreen(result, can_rematch=model.seat is not None,
                         can_save=self.aton.check_action("save_record", ()) is True, offer=offer,
                         ratings=ratings_line(model))

    def _note_rematch(self, events: list) -> None:
        """An offer of a rematch, or its refusal, said on the end screen while it is open."""
        screen = self.end_screen
        if screen is None or not screen.is_attached:
            return
        for event in events:
            if isinstance(event, RematchOffered) and event.player is not self.model.seat:
                screen.offered(event.player)
            elif isinstance(event, RematchOffered):
                screen.note("You offered a rematch; waiting for the answer…")
            elif isinstance(event, RematchDeclined):
                screen.note(f"{player_name(event.player)} declined the rematch.")

    def action_chat(self) -> None:
        def said(text: str | None) -> None:
            if text:
                self.run_worker(self.aton.send(m.Chat(game=self.model.game, text=text)))

        self.app.push_screen(Prompt(f"Say to {self.model.name(self.model.opponent)}:",
                                    placeholder="one line; it appears in both logs",
                                    max_length=self.aton.chat_chars), said)

    def action_log(self, pages: int) -> None:
        log = self.query_one(GameLog)
        if pages < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    # ------------------------------------------------------------------ the footer

    def _sync_footer(self) -> None:
        state = (self.draft is not None, self.draft is not None and self.draft.complete,
                 None if self.choice is None else self.choice.kind, bool(self._targets()),
                 self.view.outcome is not None)
        if state != self.footer_state:
            self.footer_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cursor":
            return self.draft is not None or bool(self._targets())
        if action == "slot":
            return self.draft is not None or (self.choice is not None and self.choice.kind == "fog")
        if action == "choose":
            return self.draft is not None or bool(self._targets())
        if action == "back":
            return self.draft is not None or (self.choice is not None and (bool(self.choice.steps)
                                                                           or self.choice.person is not None))
        if action == "done":
            return self.choice is not None and self.choice.kind == "transfer"
        if action == "show_end":
            return self.view.outcome is not None
        if action == "chat":
            model = self.model
            return model.seat is not None and model.kind(model.opponent) == "human"
        return True
