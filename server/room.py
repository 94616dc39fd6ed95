"""One game on the server: its seats, sealed commitments, clocks, spectators and broadcasts.

A Room is the arbiter of one game.  Every handler runs to completion on the event
loop without awaiting, so the moves of one game are applied one at a time with no
locks.  The order of every accepted move is: validate and play (by the game),
persist (committed to SQLite), acknowledge to the mover, broadcast to everyone,
each receiver getting only what it may see.

The room knows no game's rules: it talks to the game through
``server.games.HostedGame`` and holds the game's seats and moves as opaque values
(a seat's ``str()`` is its name on the wire).
"""

from __future__ import annotations

import hashlib
import logging
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from protocol import events as ev
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError

from .clock import Clock, Timer
from .config import TimeControl
from .export import record_meta
from .fair_deal import DealSecrets
from .games import Forfeit, HostedGame, RefusedMove
from .store import Pause, Store

if TYPE_CHECKING:
    from .lobby import Lobby
    from .metrics import ServerMetrics

log = logging.getLogger(__name__)

#: Seconds by which a timer may fall due before its deadline and still count as on time (a
#: clock's resolution): a timer that falls due earlier than that sets itself again.
TIMER_SLACK = 0.001

#: A game's seat: its own value (its engine's ``Player``), named on the wire by its ``str()``.
GameSeat = Hashable


class Participant(Protocol):
    """Anything that receives a game's frames: a network connection or a hosted bot."""

    name: str

    def deliver(self, message: m.Message) -> None: ...


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Seat:
    """Who holds one of the game's seats, and that seat's clock."""

    name: str
    kind: str  # "human", "bot" (a bot client) or "hosted" (a bot run by the server)
    token_hash: str | None = None
    level: str | None = None  # for hosted bots
    account: int | None = None  # the player's account (``server.accounts``); None: a guest
    #: the account's rating for the game's clock as the wire shows it ({rating, provisional}):
    #: when the game started, and after it once it is rated; None for a guest
    rating: dict | None = None
    participant: Participant | None = None
    strikes: int = 0
    #: Moves this seat made since the room was made or restored: a new one gives it a new
    #: decision, with its full time (another seat's move never restarts this seat's clock).
    moves_made: int = 0
    deadline: float | None = None  # the room clock's time when the current decision times out
    obligation: tuple | None = None  # what the deadline is for
    #: Falls due at ``timer_due``, never after the deadline; it may fall due before it (a deadline
    #: that moved later keeps its timer, which sets itself again when it falls due early).
    timer: Timer | None = None
    timer_due: float = 0.0
    grace_timer: Timer | None = None
    paused_at: float | None = None  # the room clock's time when its player stopped this seat's clock (``pause``)

    def time_left(self, now: float) -> float | None:
        """Seconds left for the current decision at ``now`` (None: none); a stopped clock stands
        where it stopped."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - (now if self.paused_at is None else self.paused_at))

    def stored(self) -> dict:
        return {"name": self.name, "kind": self.kind, "token_hash": self.token_hash, "level": self.level,
                "account": self.account}

    def public(self) -> dict:
        public = {"name": self.name, "kind": "bot" if self.kind != "human" else "human",
                  "connected": self.participant is not None}
        return public if self.rating is None else {**public, **self.rating}


@dataclass
class Seal:
    """A sealed commitment: a client's digest, or a move known to the server (time-out, hosted bot)."""

    digest: bytes | None = None
    move: Any = None  # the game's move, once opened (from the start for a seal the server made)
    nonce: bytes | None = None  # the client's opening: with the move's cards it reproduces the digest
    order: int = 0
    claim: Any = None  # what the game shows of it before it is opened (``HostedGame.claim``): JSON, or None

    @property
    def opened(self) -> bool:
        return self.move is not None


@dataclass
class Room:
    game_id: int
    game: HostedGame
    options: dict
    seats: dict[GameSeat, Seat]
    store: Store
    time_control: TimeControl
    lobby: Lobby
    clock: Clock
    version: int = 0
    move_count: int = 0
    seals: dict[GameSeat, Seal] = field(default_factory=dict)
    spectators: set = field(default_factory=set)
    rematch_offers: set[GameSeat] = field(default_factory=set)
    rematch_game: int | None = None  # the game the players agreed to play next, once started
    _ack_to: tuple | None = None
    on_rematch: Callable[[Room], None] | None = None
    on_over: Callable[[Room], None] | None = None  # called once, when the game ends
    #: Called with each participant that takes a seat or watches (the server keeps, for each
    #: connection, the rooms it entered).
    on_enter: Callable[[Participant, Room], None] | None = None
    #: Called once when the game's result is known, before it is stored: its writes (the
    #: ratings) are committed with the result, and the events it returns (as wire maps) are
    #: published after the game's last ones.
    on_result: Callable[[Room], Sequence[dict]] | None = None
    #: What the rated game did to each seat's rating (``server.ratings.record_entry``), by seat name.
    rating_changes: dict[str, dict] = field(default_factory=dict)
    #: How long the clock of the player of a game against hosted bots may stay paused, in all
    #: (``Limits.bot_pause_seconds``); what is left of it is ``pause_left``.
    pause_seconds: float = 0.0
    pause_left: float = field(init=False)
    pause_timer: Timer | None = None  # ends the pause when ``pause_left`` runs out
    #: The latest numbered events as each seat (None: everyone else) saw them, recounted in
    #: ``game_state``; kept across a clean restart (``pause``, ``resume_from``).
    recent_events: dict[GameSeat | None, deque] = field(init=False)
    #: What fixed the game's seed with its players (None: a server that deals from fixed seeds);
    #: revealed to the players when the game is over.
    deal: DealSecrets | None = None
    deal_revealed: bool = False  # to the players who were there when the game ended
    #: The clocks a restored game resumes with: each seat's (obligation kind, seconds left), used
    #: once, when ``start_clocks`` arms the decisions pending at the restart.
    paused_clocks: dict[GameSeat, tuple[str, float]] = field(default_factory=dict)
    #: The server's metrics (moves, the wait for openings); None: not counted (a room in a test)
    metrics: ServerMetrics | None = None
    #: When the last commitment of the round asked the players to open theirs (``clock.now()``)
    openings_asked_at: float | None = None

    def __post_init__(self) -> None:
        self.recent_events = {seat: deque(maxlen=m.LOG_EVENTS) for seat in (None, *self.game.seats)}
        self.pause_left = self.pause_seconds
        self._seals_changed()  # a restored game's seals

    def pause(self) -> Pause:
        """What the game needs beyond its moves to resume as it is now (the server is stopping)."""
        now = self.clock.now()
        log = {"" if receiver is None else str(receiver): list(events)
               for receiver, events in self.recent_events.items()}
        seats = {str(seat): {"for": None if held.obligation is None else held.obligation[0],
                             "remaining": held.time_left(now),
                             "strikes": held.strikes, "connected": held.participant is not None}
                 for seat, held in self.seats.items()}
        return Pause(self.version, log, seats)

    def resume_from(self, pause: Pause) -> None:
        """Take back a ``pause`` (before ``start_clocks``): the log, the strikes, the time left."""
        for receiver, events in self.recent_events.items():
            events.extend(pause.log.get("" if receiver is None else str(receiver), ()))
        for seat, held in self.seats.items():
            paused = pause.seats.get(str(seat), {})
            held.strikes = paused.get("strikes", 0)
            if paused.get("for") is not None and paused.get("remaining") is not None:
                self.paused_clocks[seat] = (paused["for"], paused["remaining"])

    # ----------------------------------------------------------------- participants

    def seat_of(self, participant: Participant) -> GameSeat | None:
        for seat, held in self.seats.items():
            if held.participant is participant:
                return seat
        return None

    def seat_held_by(self, token_digest: str) -> GameSeat | None:
        """The seat that belongs to a session token (hashed), if any."""
        for seat, held in self.seats.items():
            if held.token_hash is not None and held.token_hash == token_digest:
                return seat
        return None

    def lobby_signature(self) -> tuple:
        """Everything of the game that its lobby entry shows and that can change while it is
        played (its progress, the spectators, who sits where): a cheap value the lobby compares
        before it builds the entry."""
        return (self.game.progress(), len(self.spectators), *[(held.name, held.rating) for held in self.seats.values()])

    def player_names(self) -> dict[str, str]:
        """Each seat's player, by the seat's name."""
        return {str(seat): held.name for seat, held in self.seats.items()}

    def attach(self, seat: GameSeat, participant: Participant, reply_to: int | None = None) -> None:
        """Seat (or re-seat) a participant and send it the whole game."""
        held = self.seats[seat]
        returning = held.grace_timer is not None
        previous = held.participant
        held.participant = participant
        self._entered(participant)
        if held.grace_timer:
            held.grace_timer.cancel()
            held.grace_timer = None
        if previous is not None and previous is not participant:
            log.info("game %s: %s's seat taken over by a newer connection", self.game_id, seat)
        participant.deliver(self.full_state(seat, reply_to))
        revealed = self._deal_revealed() if self.game.is_over else None
        if revealed is not None:
            participant.deliver(revealed)
        if returning and not self.game.is_over:
            self._publish(arbiter_before=[ev.Reconnected(ev.player_of(seat)).to_wire()])
        self.lobby.game_changed(self)

    def _entered(self, participant: Participant) -> None:
        if self.on_enter is not None:
            self.on_enter(participant, self)

    def detach(self, participant: Participant) -> None:
        """A participant's connection is gone: start the grace period if it held a seat."""
        self.spectators.discard(participant)
        seat = self.seat_of(participant)
        if seat is None:
            return
        self.seats[seat].participant = None
        if self.seats[seat].paused_at is not None:
            self._start_clock(seat)  # nobody reads a help screen on a dropped connection
        if not self.game.is_over:
            self.start_grace(seat)

    def start_grace(self, seat: GameSeat, announce: bool = True) -> None:
        """The seat is empty: its player forfeits unless they are back within the grace period.
        ``announce``: say so (not when the log already says they left)."""
        grace = self.time_control.grace
        self.seats[seat].grace_timer = self.clock.call_later(grace, self._abandoned, seat)
        if announce:
            self._publish(arbiter_before=[ev.Disconnected(ev.player_of(seat), grace).to_wire()])

    def watch(self, participant: Participant, reply_to: int | None = None) -> None:
        self.spectators.add(participant)
        self._entered(participant)
        participant.deliver(self.full_state(None, reply_to))

    def full_state(self, seat: GameSeat | None, reply_to: int | None = None) -> m.GameState:
        return m.GameState(
            game=self.game_id,
            version=self.version,
            seat=None if seat is None else str(seat),
            players={str(s): held.public() for s, held in self.seats.items()},
            options=self.options_public(),
            view=self.game.view(seat),
            clocks=self.clocks(),
            reply_to=reply_to,
            log=tuple(self.recent_events[seat]),
            commitments=self.commitments(),
        )

    def options_public(self) -> dict:
        """The table's options as receivers see them; ``pause_s`` (the seconds of pausing left)
        only in a game its player may pause."""
        public = {**self.options, "game": self.game.name, "time_control": self.time_control.to_dict()}
        if any(self._pausable_by(seat) for seat in self.seats):
            public["pause_s"] = round(self.pause_left, 3)
        return public

    # ----------------------------------------------------------------- what receivers see

    def commitments(self) -> dict[str, str]:
        """This round's sealed commitments, by seat name (every receiver sees the same)."""
        return {str(seat): self._commitment_state(seat) for seat in self.game.seats}

    def _commitment_state(self, seat: GameSeat) -> str:
        seal = self.seals.get(seat)
        if seal is None:
            return "none"
        if not self._all_sealed():
            return "sealed"
        return "opened" if seal.opened else "awaiting_open"

    def seal_events(self) -> int:
        """How many events told of the seals the room holds: a ``committed`` for each, an
        ``open_requested`` once all were in, an ``opened`` for each client's opened one.  A seal's
        row in the database keeps no version, so a game restored after a crash counts them on from
        its last stored move: no player is given a version older than one it has seen."""
        opened = sum(1 for seal in self.seals.values() if seal.digest is not None and seal.opened)
        return len(self.seals) + (1 if self.seals and self._all_sealed() else 0) + opened

    def _all_sealed(self) -> bool:
        """Whether every seat of a sealed turn has sealed its move (each must open it now)."""
        return len(self.seals) == len(self.game.pending())

    def clocks(self) -> dict:
        now = self.clock.now()
        clocks = {}
        for seat, held in self.seats.items():
            left = held.time_left(now)
            clocks[str(seat)] = {
                "remaining_ms": None if left is None else int(left * 1000),
                "for": None if held.obligation is None else held.obligation[0],
                "strikes": held.strikes,
                "paused": held.paused_at is not None,
            }
        return clocks

    def _visible(self, game_events: Sequence[object]) -> dict[GameSeat | None, list[dict]]:
        """The game's events as each seat may see them; None: everyone else's copy."""
        return self.game.events_for(game_events, [None, *self.seats])

    def _event_count(self, visible: dict[GameSeat | None, list[dict]], *arbiter_lists) -> int:
        """How many numbered events a publication holds (the same for every receiver)."""
        return len(visible[None]) + sum(len(events) for events in arbiter_lists)

    def _receivers(self) -> Iterator[tuple[GameSeat | None, Participant]]:
        for seat, held in self.seats.items():
            if held.participant is not None:
                yield seat, held.participant
        for spectator in list(self.spectators):
            yield None, spectator

    def _publish(self, visible: dict[GameSeat | None, list[dict]] | None = None, arbiter_before: Sequence[dict] = (),
                 arbiter_after: Sequence[dict] = ()) -> None:
        """Number the events, re-arm the clocks and send every receiver its filtered update.

        ``visible`` holds the game's events as ``_visible`` filtered them (none if omitted).
        """
        self._arm_clocks()
        visible = visible or {None: []}
        first_version = self.version + 1
        self.version += self._event_count(visible, arbiter_before, arbiter_after)
        self._flush_ack()
        numbered = self._number(visible, arbiter_before, arbiter_after, first_version)
        clocks, commitments = self.clocks(), self.commitments()
        receivers = list(self._receivers())
        views = self.game.views({seat for seat, _ in receivers})
        updates = {seat: m.Update(game=self.game_id, version=self.version, events=numbered[seat], view=view,
                                  clocks=clocks, commitments=commitments) for seat, view in views.items()}
        for seat, participant in receivers:
            participant.deliver(updates[seat])
        if self.game.is_over:
            self._stop_clocks()
            if not self.deal_revealed:
                self.deal_revealed = True
                self._reveal_deal()
            if self.on_over is not None:
                self.on_over(self)
                self.on_over = None
        self.lobby.game_changed(self)

    def _number(self, visible: dict[GameSeat | None, list[dict]], before: Sequence[dict], after: Sequence[dict],
                first_version: int) -> dict[GameSeat | None, tuple[dict, ...]]:
        """Each seat's (and everyone else's) numbered events of a publication, also kept as recent.

        An event every receiver sees alike is numbered once and shared, and so are all the events
        of a seat that sees them as everyone does (``visible`` gives it the public list itself).
        """
        everyone = visible[None]
        public = [*before, *everyone, *after]
        shared = tuple({**e, "version": first_version + i} for i, e in enumerate(public))
        numbered: dict[GameSeat | None, tuple[dict, ...]] = {None: shared}
        for seat in self.seats:
            seen = visible.get(seat, everyone)
            if seen is everyone:
                numbered[seat] = shared
                continue
            mine = [*before, *seen, *after]
            numbered[seat] = tuple(same if e is p else {**e, "version": same["version"]}
                                   for e, p, same in zip(mine, public, shared, strict=True))
        for receiver, events in numbered.items():
            self.recent_events[receiver].extend(events)
        return numbered

    # ----------------------------------------------------------------- requests from a seat

    def handle(self, seat: GameSeat, msg: m.Message, reply: Participant) -> None:
        """Apply a game request from the holder of ``seat``; ProtocolError if refused.

        The acknowledgement reaches the sender after the request is stored and before
        the broadcast it causes (``_flush_ack``).
        """
        self._ack_to = (reply, getattr(msg, "id", None))  # every game request may carry an id
        try:
            self._dispatch(seat, msg)
        except RefusedMove as exc:
            self._ack_to = None
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(exc)) from None
        except BaseException:
            self._ack_to = None
            raise
        self.seats[seat].strikes = 0
        self._flush_ack()

    def _flush_ack(self) -> None:
        if self._ack_to is not None:
            reply, request_id = self._ack_to
            self._ack_to = None
            reply.deliver(m.Ack(game=self.game_id, version=self.version, reply_to=request_id))

    def _dispatch(self, seat: GameSeat, msg: m.Message) -> None:
        if isinstance(msg, m.Chat):
            said = ev.ChatSaid(ev.player_of(seat), self.seats[seat].name, msg.text)
            self._publish(arbiter_after=[said.to_wire()])
            return
        if isinstance(msg, m.Rematch):
            self._rematch(seat, msg.accept)
            return
        if isinstance(msg, m.Pause):
            if msg.on:
                self._stop_clock(seat)
            else:
                self._start_clock(seat)
            return
        if self.game.is_over:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "the game is over")
        if isinstance(msg, m.Commit):
            self._seal(seat, Seal(digest=msg.digest), slots=msg.slots)
        elif isinstance(msg, m.Open):
            self._open(seat, msg)
        else:
            if seat in self.seals and not isinstance(msg, m.Resign):
                raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "you have already committed this round")
            self._play_known(seat, self.game.move_of(seat, msg))

    def play_hosted(self, seat: GameSeat, move: Any) -> None:
        """A move by a hosted bot (which only ever saw its own view); RefusedMove if illegal."""
        if not self.game.is_over:
            self._play_known(seat, move)

    def _play_known(self, seat: GameSeat, move: Any, before: Sequence[dict] = ()) -> None:
        """A move the server knows in full (a hosted bot's, a time-out's, one a client sent in the
        clear): sealed like a client's commitment if it is one, else played."""
        if self.game.is_sealed(move):
            self.game.check(seat, move)
            self._seal(seat, Seal(move=move), before)
        else:
            self._accept(seat, move, before)

    def _seal(self, seat: GameSeat, seal: Seal, before: Sequence[dict] = (),
              slots: tuple[int, ...] | None = None) -> None:
        """Seal ``seat``'s move: a client's digest claiming ``slots`` (if its game's seals show
        any), or a move the server knows."""
        if seat in self.seals:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "you have already committed this round")
        if not (self.game.sealed and seat in self.game.pending()):
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "there is nothing to commit now")
        seal.claim = self.game.claim(seat, seal.move, slots)
        seal.order = len(self.seals)
        self.store.save_seal(self.game_id, seat, seal.digest,
                             None if seal.move is None else self.game.encode_move(seal.move), seal.claim)
        self.seals[seat] = seal
        self._seals_changed()
        before = [*before, ev.Committed(ev.player_of(seat)).to_wire()]
        if self._all_sealed():
            if all(s.opened for s in self.seals.values()):
                self.openings_asked_at = None  # nobody had to open: no wait to count
                self._resolve_seals(before)
                return
            before.append(ev.OpenRequested().to_wire())
            self.openings_asked_at = self.clock.now()
        self._publish(arbiter_before=before)

    def _open(self, seat: GameSeat, opening: m.Open) -> None:
        seal = self.seals.get(seat)
        if seal is None or seal.digest is None or not self._all_sealed() or seal.opened:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "there is no sealed commitment of yours to open now")
        move = self.game.move_of(seat, opening)
        if not self.game.opens(seal.digest, move, opening.nonce):
            raise ProtocolError(ErrorCode.COMMITMENT_MISMATCH,
                                "these cards and nonce do not match your commitment")
        self.game.check(seat, move)
        self.store.save_opening(self.game_id, seat, self.game.encode_move(move), opening.nonce)  # before the ack
        seal.move, seal.nonce = move, opening.nonce
        opened = [ev.Opened(ev.player_of(seat)).to_wire()]
        if all(s.opened for s in self.seals.values()):
            self._resolve_seals(opened)
        else:
            self._publish(arbiter_before=opened)

    def _resolve_seals(self, before: list[dict]) -> None:
        """Every commitment is open: play them, in the order they were sealed."""
        order = sorted(self.seals.items(), key=lambda item: item[1].order)
        self.seals = {}
        self._seals_changed()
        if self.openings_asked_at is not None and self.metrics is not None:
            self.metrics.reveal_waited(self.clock.now() - self.openings_asked_at)
        self.openings_asked_at = None
        self._play_and_persist([(seat, seal.move) for seat, seal in order], before=before, clear_seals=True)

    def _seals_changed(self) -> None:
        """Tell the game the seals it has now (its pending seats and views follow them)."""
        self.game.set_seals({seat: seal.claim for seat, seal in self.seals.items()})

    def _accept(self, seat: GameSeat, move: Any, before: Sequence[dict] = ()) -> None:
        self._play_and_persist([(seat, move)], before=list(before))

    def _play_and_persist(self, moves: list[tuple[GameSeat, Any]], before: list[dict],
                          clear_seals: bool = False) -> None:
        # Play the moves (the game refuses an illegal one before it changes anything) to
        # learn the events and the result, then store everything before anyone hears of it.
        events: list[object] = []
        for seat, move in moves:
            events.extend(self.game.play(seat, move))
        result = self._result_row() if self.game.is_over else None
        after = self._settle() if self.game.is_over else []
        if self.game.is_over and self.seals:  # a resignation while sealed: nothing will be opened
            self.seals, clear_seals = {}, True
            self._seals_changed()
        visible = self._visible(events)
        self.store.save_moves(self.game_id, self.move_count,
                              [(seat, self.game.encode_move(move)) for seat, move in moves],
                              self.version + self._event_count(visible, before, after),
                              clear_seals=clear_seals, result=result)
        self.move_count += len(moves)
        if self.metrics is not None:
            self.metrics.moves_played(len(moves))
        for seat, _ in moves:
            self.seats[seat].moves_made += 1
        self._publish(visible, arbiter_before=before, arbiter_after=after)

    def _settle(self) -> list[dict]:
        """The game is over: what follows its end (``on_result``: its ratings), once."""
        on_result, self.on_result = self.on_result, None
        return [] if on_result is None else list(on_result(self))

    def _result_row(self) -> dict:
        outcome = self.game.outcome()
        assert outcome is not None
        return {**outcome.to_dict(), **self.game.summary()}

    # ----------------------------------------------------------------- clocks

    def _obligation(self, seat: GameSeat) -> tuple | None:
        """What ``seat`` must do now, and since which of its own moves: the key of its deadline."""
        if self.game.is_over:
            return None
        since = self.seats[seat].moves_made
        seal = self.seals.get(seat)
        if seal is not None:
            return ("open", since) if self._all_sealed() and not seal.opened else None
        if seat in self.game.pending():
            return ("commit" if self.game.sealed else "move", since)
        return None

    def start_clocks(self) -> None:
        """Arm the deadlines of the decisions pending now (a new or restored game: a restored
        decision gets the time it had left when the server stopped)."""
        self._arm_clocks()
        self.paused_clocks.clear()

    def _arm_clocks(self) -> None:
        """Give each seat whose decision changed its deadline.  Its timer is made again only if
        the deadline moved earlier than it (most moves give the mover a later one)."""
        for seat, held in self.seats.items():
            obligation = self._obligation(seat)
            if obligation == held.obligation:
                continue
            held.obligation = obligation
            if obligation is None:
                held.deadline = None  # a timer still set finds nothing due when it falls due
                continue
            seconds = getattr(self.time_control, obligation[0])
            paused = self.paused_clocks.get(seat)
            if paused is not None and paused[0] == obligation[0]:
                seconds = min(seconds, paused[1])
            if held.paused_at is not None:  # the decision's time starts when the pause ends
                self._cancel_timer(held)
                held.deadline = held.paused_at + seconds
                continue
            held.deadline = self.clock.now() + seconds
            if held.timer is None or held.timer_due > held.deadline:
                self._set_timer(seat, held)

    def _set_timer(self, seat: GameSeat, held: Seat) -> None:
        """A timer for ``held.deadline``, in place of any other."""
        assert held.deadline is not None
        self._cancel_timer(held)
        held.timer_due = held.deadline
        held.timer = self.clock.call_later(held.deadline - self.clock.now(), self._timed_out, seat)

    @staticmethod
    def _cancel_timer(held: Seat) -> None:
        if held.timer:
            held.timer.cancel()
            held.timer = None

    def _stop_clocks(self) -> None:
        for held in self.seats.values():
            for timer in (held.timer, held.grace_timer):
                if timer:
                    timer.cancel()
            held.timer = held.grace_timer = None
            held.deadline = held.obligation = held.paused_at = None
        self._stop_pause_timer()

    # ----------------------------------------------------------------- a player's clock stopped (``pause``)

    def _pausable_by(self, seat: GameSeat) -> bool:
        """Whether ``seat``'s player may pause: a person or a bot client whose every opponent
        is a bot the server hosts (nobody waits for them but the server)."""
        return self.seats[seat].kind != "hosted" and all(
            held.kind == "hosted" for other, held in self.seats.items() if other != seat)

    def _stop_clock(self, seat: GameSeat) -> None:
        """Stop ``seat``'s clock until it asks again, leaves, or the game's pauses are used up."""
        held = self.seats[seat]
        if self.game.is_over:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "the game is over")
        if not self._pausable_by(seat):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "only a game against the server's bot can be paused")
        if held.paused_at is not None:
            return  # paused already
        if self.pause_left <= 0:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"this game's pauses have used up their {self.pause_seconds:g} seconds")
        held.paused_at = self.clock.now()
        self._cancel_timer(held)
        self.pause_timer = self.clock.call_later(self.pause_left, self._start_clock, seat)
        self._publish(arbiter_after=[ev.ClockPaused(ev.player_of(seat), self.pause_left).to_wire()])

    def _start_clock(self, seat: GameSeat) -> None:
        """Start ``seat``'s clock again where it stopped (nothing if it runs)."""
        held = self.seats[seat]
        if held.paused_at is None:
            return
        now = self.clock.now()
        paused_for = now - held.paused_at
        self.pause_left = max(0.0, self.pause_left - paused_for)
        held.paused_at = None
        self._stop_pause_timer()
        if held.deadline is not None:
            held.deadline += paused_for
            self._set_timer(seat, held)
        self._publish(arbiter_after=[ev.ClockResumed(ev.player_of(seat), self.pause_left).to_wire()])

    def _stop_pause_timer(self) -> None:
        if self.pause_timer:
            self.pause_timer.cancel()
            self.pause_timer = None

    def _timed_out(self, seat: GameSeat) -> None:
        held = self.seats[seat]
        held.timer = None
        if held.deadline is not None and held.paused_at is None \
                and held.deadline - self.clock.now() > TIMER_SLACK:
            self._set_timer(seat, held)  # set for an earlier deadline, which has moved later since
            return
        kind = held.obligation[0] if held.obligation else None
        held.obligation = None
        if kind is None or self.game.is_over:
            return
        try:
            held.strikes += 1
            forfeit = kind == "open" or held.strikes >= self.time_control.max_strikes
            notice = ev.TimedOut(ev.player_of(seat), kind, held.strikes, forfeit=forfeit).to_wire()
            if forfeit:
                self._forfeit(seat, Forfeit.TIME, before=[notice])
                return
            self._play_known(seat, self.game.default_move(seat), before=[notice])
        except Exception:  # a fault here must never stall the game: log it and end it cleanly
            log.exception("game %s: time-out handling failed", self.game_id)
            self._forfeit(seat, Forfeit.TIME)

    def _abandoned(self, seat: GameSeat) -> None:
        self.seats[seat].grace_timer = None
        if not self.game.is_over and self.seats[seat].participant is None:
            self._forfeit(seat, Forfeit.ABANDONED)

    def forfeit(self, seat: GameSeat, termination: Forfeit) -> None:
        """End the game by ``seat``'s forfeit from outside it (its player is banned: gone for good,
        as if its grace period had run out), unless it is over already."""
        held = self.seats[seat]
        if held.grace_timer:
            held.grace_timer.cancel()
            held.grace_timer = None
        if not self.game.is_over:
            self._forfeit(seat, termination)

    def _forfeit(self, seat: GameSeat, termination: Forfeit, before: Sequence[dict] = ()) -> None:
        visible = self._visible(self.game.forfeit(seat, termination))
        self.seals = {}
        self._seals_changed()
        after = self._settle()
        self.store.finish(self.game_id, self.version + self._event_count(visible, before, after), self._result_row())
        self._publish(visible, arbiter_before=list(before), arbiter_after=after)

    # ----------------------------------------------------------------- after the game

    def _rematch(self, seat: GameSeat, accept: bool) -> None:
        """An offer or an answer: when every seat has agreed, one new game starts, and only one."""
        if not self.game.is_over:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a rematch can be offered once the game is over")
        if self.rematch_game is not None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED,
                                f"the rematch of this game has started already: game {self.rematch_game}")
        if not accept:
            self.rematch_offers.clear()
            self._publish(arbiter_after=[ev.RematchDeclined(ev.player_of(seat)).to_wire()])
            return
        self.rematch_offers.add(seat)
        if len(self.rematch_offers) == len(self.seats) and self.on_rematch:
            self.rematch_offers.clear()  # the agreement is spent on the game it starts
            self.on_rematch(self)
        else:
            self._publish(arbiter_after=[ev.RematchOffered(ev.player_of(seat)).to_wire()])

    def record(self) -> dict:
        """The game's record (``aton-record/1``, ``atlas-zeus-record/1``), as ``aton-server export``
        writes it."""
        status = "over" if self.game.is_over else "playing"
        result = self._result_row() if self.game.is_over else None
        seats = {str(seat): held.stored() for seat, held in self.seats.items()}
        return self.game.record(record_meta(self.game_id, seats, self.options, status, result, self.rating_changes,
                                            None if self.deal is None or status != "over" else self.deal))

    def _reveal_deal(self) -> None:
        """Send the players of the finished game what fixed its seed, and its record, to check its
        decks: one message for them all, its record built once."""
        revealed = self._deal_revealed()
        if revealed is not None:
            for seat, player in self._receivers():
                if seat is not None:
                    player.deliver(revealed)

    def _deal_revealed(self) -> m.DealRevealed | None:
        """What a player of the finished game is sent to check its decks: what fixed its seed, and
        its record (None: a game dealt from a fixed seed)."""
        return None if self.deal is None else self.deal.revealed(self.game_id, self.record())

    def announce_rematch(self, new_game_id: int) -> None:
        self.rematch_game = new_game_id
        self._publish(arbiter_after=[ev.RematchStarted(new_game_id).to_wire()])

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        for held in self.seats.values():
            for timer in (held.timer, held.grace_timer):
                if timer:
                    timer.cancel()
        self._stop_pause_timer()
