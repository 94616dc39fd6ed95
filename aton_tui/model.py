"""The client's picture of one game: built from ``game_state``, advanced by ``update``.

The server sends the receiver's whole view with every frame; the model keeps the
latest one, the commitments and clocks that came with it, and every event in
order (the log and the saved game are made from them).  A gap in the event
versions means frames were lost: ``advance`` says so and the caller asks ``sync``.

Seats are ``Player`` values here: the frame's "red"/"blue" keys are read once, on
the way in (``from_state``, ``resync``, ``advance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aton.players import BLUE, RED, Player
from aton.views import Decision, PlayerView, View
from protocol import messages as m


def countdown(ms: int | None, since: float, now: float) -> int | None:
    """A clock read ``ms`` at ``since``, counted down locally to ``now``."""
    return None if ms is None else max(0, ms - int((now - since) * 1000))


def by_seat(data: dict) -> dict[Player, object]:
    """A frame's map keyed by seat names ("red", "blue") keyed by ``Player``."""
    return {Player.parse(seat): value for seat, value in data.items()}


@dataclass
class GameModel:
    game: int
    seat: Player | None  # None: watching
    players: dict[Player, dict]  # seat -> {name, kind, connected}
    options: dict
    version: int
    view: View
    commitments: dict[Player, str]
    clocks: dict[Player, dict]
    clocks_at: float  # the local monotonic time the clocks were read
    events: list[dict] = field(default_factory=list)

    @classmethod
    def from_state(cls, msg: m.GameState, now: float) -> "GameModel":
        return cls(game=msg.game, seat=Player.parse_optional(msg.seat), players=by_seat(msg.players),
                   options=dict(msg.options), version=msg.version, view=View.from_dict(msg.view),
                   commitments=by_seat(msg.view.get("commitments", {})), clocks=by_seat(msg.clocks),
                   clocks_at=now, events=list(msg.log))

    def resync(self, msg: m.GameState, now: float) -> list[dict]:
        """Take a fresh ``game_state`` of the same game (after a gap or a reconnection);
        the events of its log that are new to us (what happened while we were away)."""
        missed = [e for e in msg.log if e.get("version", 0) > self.version]
        self.events.extend(missed)
        self.players = by_seat(msg.players)
        self.version = msg.version
        self._take_view(msg.view, msg.clocks, now)
        return missed

    def advance(self, msg: m.Update, now: float) -> list[dict] | None:
        """Apply an update; the events new to us, or None when some were missed (ask ``sync``)."""
        if msg.version < self.version:
            return []  # stale: a game_state overtook it
        fresh = [e for e in msg.events if e.get("version", 0) > self.version]
        expected = self.version + 1
        for event in fresh:
            if event["version"] != expected:
                return None
            expected += 1
        if expected - 1 != msg.version:
            return None
        self.version = msg.version
        self.events.extend(fresh)
        for event in fresh:
            self._note_presence(event)
        self._take_view(msg.view, msg.clocks, now)
        return fresh

    def _take_view(self, data: dict, clocks: dict, now: float) -> None:
        self.view = View.from_dict(data)
        self.commitments = by_seat(data.get("commitments", {}))
        self.clocks = by_seat(clocks)
        self.clocks_at = now

    def _note_presence(self, event: dict) -> None:
        kind = event.get("type")
        if kind in ("disconnected", "reconnected"):
            seat = Player.parse(event["player"])
            if seat in self.players:
                self.players[seat] = {**self.players[seat], "connected": kind == "reconnected"}

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
        return str(self.players.get(seat, {}).get("name", seat))

    def player(self, seat: Player) -> PlayerView:
        return self.view.player(seat)

    @property
    def decision(self) -> Decision | None:
        """What we must decide now: None while watching, waiting, or after sealing our commitment."""
        decision = self.view.decision
        if decision is None or self.seat is None or self.is_over:
            return None
        if decision.kind == "commit" and self.commitments.get(self.seat, "none") != "none":
            return None
        return decision

    def sealed(self, seat: Player) -> bool:
        """Whether ``seat`` has committed this round (sealed, or already applied)."""
        return self.commitments.get(seat, "none") != "none" or self.player(seat).committed

    def clock_ms(self, seat: Player) -> int | None:
        """``seat``'s time left when the clocks were read (None: no clock runs for them)."""
        return (self.clocks.get(seat) or {}).get("remaining_ms")

    def strikes(self, seat: Player) -> int:
        return int((self.clocks.get(seat) or {}).get("strikes", 0))
