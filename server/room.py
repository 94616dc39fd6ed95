"""One game on the server: its seats, sealed commitments, clocks, spectators and broadcasts.

A Room is the arbiter of one game.  Every handler runs to completion on the event
loop without awaiting, so the moves of one game are applied one at a time with no
locks.  The order of every accepted move is: validate (by the game), persist
(committed to SQLite), acknowledge to the mover, broadcast to everyone, each
receiver getting only what it may see.

The room knows nothing of Aton's rules: it talks to the game through
``server.games.HostedGame``.
"""

from __future__ import annotations

import hashlib
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

from aton.errors import IllegalMove
from aton.outcome import Termination
from protocol import events as ev
from protocol import messages as m
from protocol.commitment import opens
from protocol.errors import ErrorCode, ProtocolError

from .clock import Clock, Timer
from .config import TimeControl
from .export import record_meta
from .games import SEATS, HostedGame
from .store import Store

if TYPE_CHECKING:
    from .lobby import Lobby

log = logging.getLogger(__name__)


class Participant(Protocol):
    """Anything that receives a game's frames: a network connection or a hosted bot."""

    name: str

    def deliver(self, message: m.Message) -> None: ...


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Seat:
    name: str
    kind: str  # "human", "bot" (a bot client) or "hosted" (a bot run by the server)
    token_hash: str | None = None
    level: str | None = None  # for hosted bots
    participant: Participant | None = None
    strikes: int = 0
    #: Moves this seat made since the room was made or restored: a new one gives it a new
    #: decision, with its full time (another seat's move never restarts this seat's clock).
    moves_made: int = 0
    deadline: float | None = None  # the room clock's time when the current decision times out
    obligation: tuple | None = None  # what the deadline is for
    timer: Timer | None = None
    grace_timer: Timer | None = None

    def stored(self) -> dict:
        return {"name": self.name, "kind": self.kind, "token_hash": self.token_hash, "level": self.level}

    def public(self) -> dict:
        return {"name": self.name, "kind": "bot" if self.kind != "human" else "human",
                "connected": self.participant is not None}


@dataclass
class Seal:
    """A sealed commitment: a client's digest, or cards known to the server (time-out, hosted bot)."""

    digest: bytes | None = None
    cards: list[int] | None = None  # known once opened (or from the start for server-made seals)
    nonce: bytes | None = None  # the client's, once opened: with the cards it reproduces the digest
    order: int = 0

    @property
    def opened(self) -> bool:
        return self.cards is not None


@dataclass
class Room:
    game_id: int
    game: HostedGame
    options: dict
    seats: dict[str, Seat]
    store: Store
    time_control: TimeControl
    lobby: "Lobby"
    clock: Clock
    version: int = 0
    move_count: int = 0
    seals: dict[str, Seal] = field(default_factory=dict)
    spectators: set = field(default_factory=set)
    rematch_offers: set = field(default_factory=set)
    rematch_game: int | None = None  # the game the players agreed to play next, once started
    _ack_to: tuple | None = None
    on_rematch: Callable[["Room"], None] | None = None
    on_over: Callable[["Room"], None] | None = None  # called once, when the game ends
    #: The latest numbered events as each seat (None: everyone else) saw them, recounted in
    #: ``game_state``; not kept across a restart.
    recent_events: dict[str | None, deque] = field(
        default_factory=lambda: {s: deque(maxlen=m.LOG_EVENTS) for s in (None, *SEATS)})

    # ----------------------------------------------------------------- participants

    def seat_of(self, participant: Participant) -> str | None:
        for name, seat in self.seats.items():
            if seat.participant is participant:
                return name
        return None

    def seat_held_by(self, token_digest: str) -> str | None:
        """The seat that belongs to a session token (hashed), if any."""
        for name, seat in self.seats.items():
            if seat.token_hash is not None and seat.token_hash == token_digest:
                return name
        return None

    def attach(self, seat_name: str, participant: Participant, reply_to: int | None = None) -> None:
        """Seat (or re-seat) a participant and send it the whole game."""
        seat = self.seats[seat_name]
        returning = seat.grace_timer is not None
        previous = seat.participant
        seat.participant = participant
        if seat.grace_timer:
            seat.grace_timer.cancel()
            seat.grace_timer = None
        if previous is not None and previous is not participant:
            log.info("game %s: %s's seat taken over by a newer connection", self.game_id, seat_name)
        participant.deliver(self.full_state(seat_name, reply_to))
        if returning and not self.game.is_over:
            self._publish(arbiter_before=[ev.Reconnected(seat_name).to_wire()])
        self.lobby.game_changed(self)

    def detach(self, participant: Participant) -> None:
        """A participant's connection is gone: start the grace period if it held a seat."""
        self.spectators.discard(participant)
        seat_name = self.seat_of(participant)
        if seat_name is None:
            return
        self.seats[seat_name].participant = None
        if not self.game.is_over:
            self.start_grace(seat_name)

    def start_grace(self, seat_name: str) -> None:
        """The seat is empty: its player forfeits unless they are back within the grace period."""
        grace = self.time_control.grace
        self.seats[seat_name].grace_timer = self.clock.call_later(grace, self._abandoned, seat_name)
        self._publish(arbiter_before=[ev.Disconnected(seat_name, grace).to_wire()])

    def watch(self, participant: Participant, reply_to: int | None = None) -> None:
        self.spectators.add(participant)
        participant.deliver(self.full_state(None, reply_to))

    def full_state(self, seat_name: str | None, reply_to: int | None = None) -> m.GameState:
        return m.GameState(
            game=self.game_id,
            version=self.version,
            seat=seat_name,
            players={name: seat.public() for name, seat in self.seats.items()},
            options=self.options_public(),
            view=self.view_for(seat_name),
            clocks=self.clocks(),
            reply_to=reply_to,
            log=tuple(self.recent_events[seat_name]),
        )

    def options_public(self) -> dict:
        return {**self.options, "time_control": self.time_control.to_dict()}

    # ----------------------------------------------------------------- what receivers see

    def view_for(self, seat_name: str | None) -> dict:
        """The game's view for a receiver, plus the state of this round's sealed commitments."""
        view = self.game.view(seat_name)
        view["commitments"] = {s: self._commitment_state(s) for s in SEATS}
        return view

    def _commitment_state(self, seat_name: str) -> str:
        seal = self.seals.get(seat_name)
        if seal is None:
            return "none"
        if len(self.seals) < 2:
            return "sealed"
        return "opened" if seal.opened else "awaiting_open"

    def clocks(self) -> dict:
        now = self.clock.now()
        return {
            name: {
                "remaining_ms": None if seat.deadline is None else max(0, int((seat.deadline - now) * 1000)),
                "for": None if seat.obligation is None else seat.obligation[0],
                "strikes": seat.strikes,
            }
            for name, seat in self.seats.items()
        }

    def _visible(self, engine_events) -> dict[str | None, list[dict]]:
        """The engine's events as each seat may see them; None: everyone else's copy."""
        return self.game.events_for(list(engine_events), [None, *self.seats])

    def _event_count(self, visible: dict[str | None, list[dict]], *arbiter_lists) -> int:
        """How many numbered events a publication holds (the same for every receiver)."""
        return len(visible[None]) + sum(len(events) for events in arbiter_lists)

    def _receivers(self):
        for name, seat in self.seats.items():
            if seat.participant is not None:
                yield name, seat.participant
        for spectator in list(self.spectators):
            yield None, spectator

    def _publish(self, visible: dict[str | None, list[dict]] | None = None, arbiter_before: list[dict] = (),
                 arbiter_after: list[dict] = ()) -> None:
        """Number the events, re-arm the clocks and send every receiver its filtered update.

        ``visible`` holds the engine's events as ``_visible`` filtered them (none if omitted).
        """
        self._arm_clocks()
        visible = visible or {None: []}
        first_version = self.version + 1
        self.version += self._event_count(visible, arbiter_before, arbiter_after)
        self._flush_ack()
        numbered = self._number(visible, arbiter_before, arbiter_after, first_version)
        clocks = self.clocks()
        cache: dict[str | None, m.Update] = {}
        for seat_name, participant in self._receivers():
            update = cache.get(seat_name)
            if update is None:
                update = m.Update(game=self.game_id, version=self.version, events=numbered[seat_name],
                                  view=self.view_for(seat_name), clocks=clocks)
                cache[seat_name] = update
            participant.deliver(update)
        if self.game.is_over:
            self._stop_clocks()
            if self.on_over is not None:
                self.on_over(self)
                self.on_over = None
        self.lobby.game_changed(self)

    def _number(self, visible: dict[str | None, list[dict]], before: list[dict], after: list[dict],
                first_version: int) -> dict[str | None, tuple[dict, ...]]:
        """Each seat's (and everyone else's) numbered events of a publication, also kept as recent.

        An event every receiver sees alike is numbered once and shared.
        """
        public = [*before, *visible[None], *after]
        shared = tuple({**e, "version": first_version + i} for i, e in enumerate(public))
        numbered: dict[str | None, tuple[dict, ...]] = {None: shared}
        for seat_name in self.seats:
            mine = [*before, *visible.get(seat_name, visible[None]), *after]
            numbered[seat_name] = tuple(
                same if e is p else {**e, "version": same["version"]} for e, p, same in zip(mine, public, shared))
        for receiver, events in numbered.items():
            self.recent_events[receiver].extend(events)
        return numbered

    # ----------------------------------------------------------------- requests from a seat

    def handle(self, seat_name: str, msg: m.Message, reply: Participant) -> None:
        """Apply a game request from the holder of ``seat_name``; ProtocolError if refused.

        The acknowledgement reaches the sender after the request is stored and before
        the broadcast it causes (``_flush_ack``).
        """
        self._ack_to = (reply, msg.id)
        try:
            self._dispatch(seat_name, msg)
        except BaseException:
            self._ack_to = None
            raise
        self.seats[seat_name].strikes = 0
        self._flush_ack()

    def _flush_ack(self) -> None:
        if self._ack_to is not None:
            reply, request_id = self._ack_to
            self._ack_to = None
            reply.deliver(m.Ack(game=self.game_id, version=self.version, reply_to=request_id))

    def _dispatch(self, seat_name: str, msg: m.Message) -> None:
        if isinstance(msg, m.Chat):
            self._publish(arbiter_after=[ev.ChatSaid(seat_name, self.seats[seat_name].name, msg.text).to_wire()])
            return
        if isinstance(msg, m.Rematch):
            self._rematch(seat_name, msg.accept)
            return
        if self.game.is_over:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "the game is over")
        if isinstance(msg, m.Commit):
            self._seal(seat_name, Seal(digest=msg.digest))
        elif isinstance(msg, m.Open):
            self._open(seat_name, list(msg.cards), msg.nonce)
        elif isinstance(msg, m.Resign):
            self._accept(seat_name, {"move": "resign"})
        else:
            if seat_name in self.seals:
                raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "you have already committed this round")
            self._accept(seat_name, _move_of(msg))

    def seal_cards(self, seat_name: str, cards: list[int]) -> None:
        """A seal whose cards the server knows already (hosted bots; time-outs)."""
        self._check_legal(seat_name, {"move": self.game.sealed_kind, "cards": cards})
        self._seal(seat_name, Seal(cards=cards))

    def play_hosted(self, seat_name: str, move: dict) -> None:
        """A move by a hosted bot (which only ever saw its own view)."""
        if not self.game.is_over:
            self._accept(seat_name, move)

    def _check_legal(self, seat_name: str, move: dict) -> None:
        try:
            self.game.check(seat_name, move)
        except IllegalMove as exc:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(exc)) from None

    def _seal(self, seat_name: str, seal: Seal, before: list[dict] = ()) -> None:
        if seat_name in self.seals:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "you have already committed this round")
        if self.game.decision_kind(seat_name) != self.game.sealed_kind:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "there is nothing to commit now")
        seal.order = len(self.seals)
        self.store.save_seal(self.game_id, seat_name, seal.digest, seal.cards)
        self.seals[seat_name] = seal
        before = [*before, ev.Committed(seat_name).to_wire()]
        if len(self.seals) == 2:
            if all(s.opened for s in self.seals.values()):
                self._resolve_seals(before)
                return
            before.append(ev.OpenRequested().to_wire())
        self._publish(arbiter_before=before)

    def _open(self, seat_name: str, cards: list[int], nonce: bytes) -> None:
        seal = self.seals.get(seat_name)
        if seal is None or len(self.seals) < 2 or seal.opened:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "there is no sealed commitment of yours to open now")
        if not opens(seal.digest, cards, nonce):
            raise ProtocolError(ErrorCode.COMMITMENT_MISMATCH,
                                "these cards and nonce do not match your commitment")
        self._check_legal(seat_name, {"move": self.game.sealed_kind, "cards": cards})
        self.store.save_opening(self.game_id, seat_name, cards, nonce)  # stored before it is acknowledged
        seal.cards, seal.nonce = cards, nonce
        opened = [ev.Opened(seat_name).to_wire()]
        if all(s.opened for s in self.seals.values()):
            self._resolve_seals(opened)
        else:
            self._publish(arbiter_before=opened)

    def _resolve_seals(self, before: list[dict]) -> None:
        """Both commitments are open: apply them, in the order they were sealed."""
        order = sorted(self.seals.items(), key=lambda item: item[1].order)
        moves = [(seat_name, {"move": self.game.sealed_kind, "cards": seal.cards}) for seat_name, seal in order]
        self.seals = {}
        self._persist_and_apply(moves, before=before, clear_seals=True)

    def _accept(self, seat_name: str, move: dict, before: list[dict] = ()) -> None:
        self._check_legal(seat_name, move)
        self._persist_and_apply([(seat_name, move)], before=list(before))

    def _persist_and_apply(self, moves: list[tuple[str, dict]], before: list[dict],
                           clear_seals: bool = False) -> None:
        # Moves were checked; apply them to learn the events and the result, then store
        # everything before anyone hears of it.
        events: list = []
        for seat_name, move in moves:
            events.extend(self.game.apply(seat_name, move))
        result = self._result_row() if self.game.is_over else None
        visible = self._visible(events)
        self.store.save_moves(self.game_id, self.move_count, moves, self.version + self._event_count(visible, before),
                              clear_seals=clear_seals, result=result)
        self.move_count += len(moves)
        for seat_name, _ in moves:
            self.seats[seat_name].moves_made += 1
        self._publish(visible, arbiter_before=before)

    def _result_row(self) -> dict:
        outcome = self.game.outcome()
        assert outcome is not None
        return {**outcome.to_dict(), **self.game.summary()}

    # ----------------------------------------------------------------- clocks

    def _obligation(self, seat_name: str) -> tuple | None:
        """What ``seat_name`` must do now, and since which of its own moves: the key of its deadline."""
        if self.game.is_over:
            return None
        since = self.seats[seat_name].moves_made
        seal = self.seals.get(seat_name)
        if seal is not None:
            if len(self.seals) == 2 and not seal.opened:
                return ("open", since)
            return None
        if seat_name in self.game.pending():
            kind = self.game.decision_kind(seat_name)
            return ("commit" if kind == self.game.sealed_kind else "move", since)
        return None

    def start_clocks(self) -> None:
        """Arm the deadlines of the decisions pending now (a new or restored game)."""
        self._arm_clocks()

    def _arm_clocks(self) -> None:
        for seat_name, seat in self.seats.items():
            obligation = self._obligation(seat_name)
            if obligation == seat.obligation:
                continue
            if seat.timer:
                seat.timer.cancel()
                seat.timer = None
            seat.obligation = obligation
            if obligation is None:
                seat.deadline = None
                continue
            seconds = getattr(self.time_control, obligation[0])
            seat.deadline = self.clock.now() + seconds
            seat.timer = self.clock.call_later(seconds, self._timed_out, seat_name)

    def _stop_clocks(self) -> None:
        for seat in self.seats.values():
            for timer in (seat.timer, seat.grace_timer):
                if timer:
                    timer.cancel()
            seat.timer = seat.grace_timer = None
            seat.deadline = seat.obligation = None

    def _timed_out(self, seat_name: str) -> None:
        seat = self.seats[seat_name]
        seat.timer = None
        kind = seat.obligation[0] if seat.obligation else None
        seat.obligation = None
        if kind is None or self.game.is_over:
            return
        try:
            seat.strikes += 1
            forfeit = kind == "open" or seat.strikes >= self.time_control.max_strikes
            notice = ev.TimedOut(seat_name, kind, seat.strikes, forfeit=forfeit).to_wire()
            if forfeit:
                self._forfeit(seat_name, Termination.TIME, before=[notice])
                return
            move = self.game.default_move(seat_name)
            if kind == "commit":
                self._seal(seat_name, Seal(cards=move["cards"]), before=[notice])
            else:
                self._accept(seat_name, move, before=[notice])
        except Exception:  # a fault here must never stall the game: log it and end it cleanly
            log.exception("game %s: time-out handling failed", self.game_id)
            self._forfeit(seat_name, Termination.TIME)

    def _abandoned(self, seat_name: str) -> None:
        self.seats[seat_name].grace_timer = None
        if not self.game.is_over and self.seats[seat_name].participant is None:
            self._forfeit(seat_name, Termination.ABANDONED)

    def _forfeit(self, seat_name: str, termination: Termination, before: list[dict] = ()) -> None:
        visible = self._visible(self.game.forfeit(seat_name, termination))
        self.seals = {}
        self.store.finish(self.game_id, self.version + self._event_count(visible, before), self._result_row())
        self._publish(visible, arbiter_before=list(before))

    # ----------------------------------------------------------------- after the game

    def _rematch(self, seat_name: str, accept: bool) -> None:
        """An offer or an answer: when every seat has agreed, one new game starts, and only one."""
        if not self.game.is_over:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a rematch can be offered once the game is over")
        if self.rematch_game is not None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"the rematch of this game has started already: game {self.rematch_game}")
        if not accept:
            self.rematch_offers.clear()
            self._publish(arbiter_after=[ev.RematchDeclined(seat_name).to_wire()])
            return
        self.rematch_offers.add(seat_name)
        if len(self.rematch_offers) == len(self.seats) and self.on_rematch:
            self.rematch_offers.clear()  # the agreement is spent on the game it starts
            self.on_rematch(self)
        else:
            self._publish(arbiter_after=[ev.RematchOffered(seat_name).to_wire()])

    def record(self) -> dict:
        """The game's ``aton-record/1``, as ``aton-server export`` writes it."""
        status = "over" if self.game.is_over else "playing"
        result = self._result_row() if self.game.is_over else None
        meta = record_meta(self.game_id, {n: s.stored() for n, s in self.seats.items()}, self.options, status, result)
        return self.game.record(meta)

    def announce_rematch(self, new_game_id: int) -> None:
        self.rematch_game = new_game_id
        self._publish(arbiter_after=[ev.RematchStarted(new_game_id).to_wire()])

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        for seat in self.seats.values():
            for timer in (seat.timer, seat.grace_timer):
                if timer:
                    timer.cancel()


def _move_of(msg: m.Message) -> dict:
    if isinstance(msg, m.Exchange):
        return {"move": "exchange"}
    if isinstance(msg, (m.Remove, m.Place)):
        return {"move": msg.TYPE, "temple": msg.temple, "square": msg.square}
    raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"{msg.TYPE} is not a game move")
