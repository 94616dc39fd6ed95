"""The client's picture of one game: built from ``game_state``, advanced by ``update``.

The server sends the receiver's whole view with every frame; the model keeps the
latest one, the commitments and clocks that came with it, and every event in
order (the log and the saved game are made from them).  A gap in the event
versions means frames were lost: ``advance`` says so and the caller asks ``sync``.

It takes the frames as the session decoded them (``protocol.game_frames``): the view
an ``aton.views.View``, the events typed and numbered, the seats ``Player`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Generic, Self

from atlas_zeus.views import Decision as ZeusDecision
from atlas_zeus.views import View as ZeusView
from aton.players import BLUE, RED, Player
from aton.views import Decision, PlayerView, View
from protocol.events import (
    ClockPaused,
    ClockResumed,
    Disconnected,
    RatingChanged,
    Reconnected,
    RematchDeclined,
    RematchOffered,
    RematchStarted,
)
from protocol.game_frames import Numbered, SeatClock, Seated, StateFrameOf, UpdateFrameOf, V, rating_text

#: The decisions a player seals (Aton's commitment, Atlas & Zeus's programming): once sealed
#: the view still asks for them until both are opened, but there is nothing left to decide.
SEALED_DECISIONS = frozenset({"commit", "program"})
#: A clock with less time than this left is low: drawn in red, and the bell rings once.
LOW_CLOCK_MS = 10_000


def has_committed(view: View, commitments: dict[Player, str], seat: Player) -> bool:
    """Whether ``seat`` has committed this round (sealed, or already applied), by a view and
    the commitments that came with it."""
    return commitments.get(seat, "none") != "none" or view.player(seat).committed


def countdown(ms: int | None, since: float, now: float) -> int | None:
    """A clock read ``ms`` at ``since``, counted down locally to ``now``."""
    return None if ms is None else max(0, ms - int((now - since) * 1000))


@dataclass
class GameModelOf(Generic[V]):
    """What every game's model holds: the seats, the clocks, the events and the latest view."""

    game: int
    seat: Player | None  # None: watching
    players: dict[Player, Seated]
    options: dict
    version: int
    view: V
    commitments: dict[Player, str]
    clocks: dict[Player, SeatClock]
    clocks_at: float  # the local monotonic time the clocks were read
    events: list[Numbered] = field(default_factory=list)
    #: The seats whose rematch offer stands (an offer of both starts the rematch at once).
    rematch_offers: set[Player] = field(default_factory=set)
    #: The hints this client showed its player in this game (the end screen and the saved
    #: record say how many).
    hints_used: int = 0

    @classmethod
    def from_state(cls, frame: StateFrameOf[V], now: float) -> Self:
        model = cls(game=frame.game, seat=frame.seat, players=dict(frame.players), options=dict(frame.options),
                    version=frame.version, view=frame.view, commitments=frame.commitments, clocks=frame.clocks,
                    clocks_at=now, events=list(frame.log))
        for numbered in model.events:  # an offer made before we came (back) still stands
            model._note_rematch(numbered)
        return model

    def resync(self, frame: StateFrameOf[V], now: float) -> list[Numbered]:
        """Take a fresh ``game_state`` of the same game (after a gap or a reconnection);
        the events of its log that are new to us (what happened while we were away)."""
        missed = [e for e in frame.log if e.version > self.version]
        self.events.extend(missed)
        for numbered in missed:
            self._note_rematch(numbered)
        self.players = dict(frame.players)
        self.version = frame.version
        self._take(frame, now)
        return missed

    def advance(self, frame: UpdateFrameOf[V], now: float) -> list[Numbered] | None:
        """Apply an update; the events new to us, or None when some were missed (ask ``sync``)."""
        if frame.version < self.version:
            return []  # stale: a game_state overtook it
        fresh = [e for e in frame.events if e.version > self.version]
        expected = self.version + 1
        for numbered in fresh:
            if numbered.version != expected:
                return None
            expected += 1
        if expected - 1 != frame.version:
            return None
        self.version = frame.version
        self.events.extend(fresh)
        for numbered in fresh:
            self._note_presence(numbered)
            self._note_rematch(numbered)
            if isinstance(numbered.event, (ClockPaused, ClockResumed)):
                self.options["pause_s"] = numbered.event.pause_left_s
        self._take(frame, now)
        return fresh

    def _take(self, frame: StateFrameOf[V] | UpdateFrameOf[V], now: float) -> None:
        self.view = frame.view
        self.commitments = frame.commitments
        self.clocks = frame.clocks
        self.clocks_at = now

    def _note_presence(self, numbered: Numbered) -> None:
        """A player came or went, or (a rated game ended) has a new rating."""
        event = numbered.event
        if isinstance(event, (Disconnected, Reconnected)) and event.player in self.players:
            self.players[event.player] = replace(self.players[event.player],
                                                 connected=isinstance(event, Reconnected))
        if isinstance(event, RatingChanged) and event.player in self.players:
            self.players[event.player] = replace(self.players[event.player],
                                                 rating=rating_text(event.after, event.provisional))

    def _note_rematch(self, numbered: Numbered) -> None:
        event = numbered.event
        if isinstance(event, RematchOffered):
            self.rematch_offers.add(event.player)
        elif isinstance(event, (RematchDeclined, RematchStarted)):
            self.rematch_offers.clear()

    # ------------------------------------------------------------------ questions

    @property
    def is_over(self) -> bool:
        return self.view.outcome is not None

    @property
    def opponent(self) -> Player:
        """The other seat (for a spectator: blue, so that red is drawn as "mine")."""
        return self.seat.other if self.seat is not None else BLUE

    @property
    def bottom(self) -> Player:
        """The seat drawn as "mine": our own, or red for a spectator."""
        return self.seat if self.seat is not None else RED

    def name(self, seat: Player) -> str:
        seated = self.players.get(seat)
        return seated.name if seated is not None else str(seat)

    def kind(self, seat: Player) -> str | None:
        """"human" or "bot" (None: nobody known in that seat)."""
        seated = self.players.get(seat)
        return seated.kind if seated is not None else None

    def rating(self, seat: Player) -> str | None:
        """The seat's player's rating for the game's clock as players read it (None: a guest)."""
        seated = self.players.get(seat)
        return seated.rating if seated is not None else None

    def rating_changes(self) -> dict[Player, RatingChanged]:
        """What the rated game just ended did to each player's rating (empty: a casual game)."""
        return {n.event.player: n.event for n in self.events if isinstance(n.event, RatingChanged)}

    def connected(self, seat: Player) -> bool:
        seated = self.players.get(seat)
        return seated.connected if seated is not None else True

    def _deciding(self, kind: str | None) -> bool:
        """Whether a decision of ``kind`` in the view is ours to make now: not while watching,
        after the end, or once our commitment (programming) is sealed."""
        if kind is None or self.seat is None or self.is_over:
            return False
        return not (kind in SEALED_DECISIONS and self.commitments.get(self.seat, "none") != "none")

    @property
    def rematch_offered_to_us(self) -> bool:
        """Whether the opponent offers a rematch that we have not answered."""
        return (self.seat is not None and self.opponent in self.rematch_offers
                and self.seat not in self.rematch_offers)

    @property
    def can_pause(self) -> bool:
        """Whether our clock may be stopped while we read (a game against the server's bot,
        with pausing time left: its options say ``pause_s``)."""
        return self.seat is not None and not self.is_over and self.options.get("pause_s", 0) > 0

    def paused(self, seat: Player) -> bool:
        clock = self.clocks.get(seat)
        return clock is not None and clock.paused

    def time_left(self, seat: Player, now: float) -> int | None:
        """``seat``'s milliseconds left at ``now`` (a paused clock stands where it stopped)."""
        ms = self.clock_ms(seat)
        return ms if self.paused(seat) else countdown(ms, self.clocks_at, now)

    def our_clock_is_low(self, now: float) -> bool:
        """Whether a decision of ours waits and our clock shows less than ``LOW_CLOCK_MS`` at ``now``."""
        seat = self.seat
        ms = None if seat is None or not self.has_decision else self.time_left(seat, now)
        return ms is not None and ms < LOW_CLOCK_MS

    @property
    def has_decision(self) -> bool:
        """Whether we must decide now (each game's model gives the decision itself: ``decision``)."""
        decision = self.view.decision
        return decision is not None and self._deciding(decision.kind)

    def clock_ms(self, seat: Player) -> int | None:
        """``seat``'s time left when the clocks were read (None: no clock runs for them)."""
        clock = self.clocks.get(seat)
        return clock.remaining_ms if clock is not None else None

    def strikes(self, seat: Player) -> int:
        clock = self.clocks.get(seat)
        return clock.strikes if clock is not None else 0


class GameModel(GameModelOf[View]):
    """A game of Aton."""

    def player(self, seat: Player) -> PlayerView:
        return self.view.player(seat)

    @property
    def decision(self) -> Decision | None:
        """What we must decide now: None while watching, waiting, or after sealing our commitment."""
        return self.view.decision if self.has_decision else None


class ZeusModel(GameModelOf[ZeusView]):
    """A game of Atlas & Zeus."""

    @property
    def decision(self) -> ZeusDecision | None:
        """What we must decide now: None while watching, waiting, or after sealing our programming."""
        return self.view.decision if self.has_decision else None
