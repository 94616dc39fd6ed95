"""The narrow interface between the arbiter and a game, and Aton's implementation of it.

The arbiter (``server.room``) knows seats, sealed simultaneous moves, clocks and
persistence; it never knows a rule.  Everything it asks of a game goes through
``HostedGame``: who must decide, is a move legal, apply it, what may a receiver
see, what happens on time-out, how the game ended, and its record.  A second game
could be hosted by writing another implementation.
"""

from __future__ import annotations

from typing import Iterable, Protocol

from aton.errors import IllegalMove
from aton.events import Committed, Event
from aton.game import new_game
from aton.moves import Commit, move_from_dict
from aton.options import DEFAULT_RULES, Rules
from aton.outcome import Outcome, Termination
from aton.players import Player
from aton.record import GameRecord
from aton.views import view

SEATS = ("red", "blue")


class HostedGame(Protocol):
    """What the arbiter needs of a game.  Seats are named by strings ("red", "blue")."""

    #: The move kind that both players make at once, sealed until both have committed.
    sealed_kind: str

    def pending(self) -> tuple[str, ...]: ...

    def decision_kind(self, seat: str) -> str | None:
        """The kind of move ``seat`` must make now (None: nothing to decide)."""

    def check(self, seat: str, move: dict) -> None:
        """Raise IllegalMove if ``move`` is not legal for ``seat`` now; change nothing."""

    def apply(self, seat: str, move: dict) -> list:
        """Apply a legal move; return the events it caused (opaque to the arbiter)."""

    def events_for(self, events: list, receivers: Iterable[str | None]) -> dict[str | None, list[dict]]:
        """The events as each receiver (a seat, or None: a spectator) may see them, as plain maps."""

    def view(self, seat: str | None) -> dict: ...

    def default_move(self, seat: str) -> dict:
        """The move played for ``seat`` when its time runs out."""

    def forfeit(self, seat: str, termination: Termination) -> list:
        """End the game against ``seat`` (time or abandoning); return the events."""

    def summary(self) -> dict:
        """Round and scores, for the lobby's list of games."""

    @property
    def is_over(self) -> bool: ...

    def outcome(self) -> Outcome | None:
        """How the game ended; None while it goes on."""

    def record(self, meta: dict) -> dict: ...


class AtonGame:
    """Aton behind the ``HostedGame`` interface; the engine decides everything."""

    sealed_kind = "commit"

    def __init__(self, seed: int, rules: Rules = DEFAULT_RULES) -> None:
        self.seed = seed
        self.rules = rules
        self.state, _ = new_game(seed, rules=rules)
        self.history = GameRecord(seed=seed, rules=rules)

    @classmethod
    def restore(cls, seed: int, rules: Rules, moves: list[tuple[str, dict]]) -> "AtonGame":
        """Rebuild a game from its stored moves (which were all legal when stored)."""
        game = cls(seed, rules)
        for seat, move in moves:
            game.apply(seat, move)
        return game

    @staticmethod
    def _player(seat: str) -> Player:
        return Player.parse(seat)

    def pending(self) -> tuple[str, ...]:
        return tuple(str(p) for p in self.state.pending())

    def decision_kind(self, seat: str) -> str | None:
        return self.state.phase.value if seat in self.pending() else None

    def check(self, seat: str, move: dict) -> None:
        try:
            parsed = move_from_dict(move)
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        self.state.copy().play(self._player(seat), parsed)

    def apply(self, seat: str, move: dict) -> list[Event]:
        parsed = move_from_dict(move)
        player = self._player(seat)
        events: list[Event] = []
        self.state.play(player, parsed, events)
        self.history.add(player, parsed)
        return events

    def events_for(self, events: list[Event], receivers: Iterable[str | None]) -> dict[str | None, list[dict]]:
        # The arbiter announces each sealed commitment when it arrives, so the engine's
        # own "committed" events (emitted when the seals are applied) are left out.
        events = [e for e in events if not isinstance(e, Committed)]
        public = [e.for_viewer(None) for e in events]
        public_dicts = [e.to_dict() for e in public]
        by_receiver: dict[str | None, list[dict]] = {}
        for seat in receivers:
            if seat is None:
                by_receiver[None] = public_dicts
                continue
            viewer = self._player(seat)
            # only what differs from the public copy (a player's own drawn cards) is converted again
            by_receiver[seat] = [d if (mine := e.for_viewer(viewer)) == p else mine.to_dict()
                                 for e, p, d in zip(events, public, public_dicts)]
        return by_receiver

    def view(self, seat: str | None) -> dict:
        return view(self.state, None if seat is None else self._player(seat)).to_dict()

    def default_move(self, seat: str) -> dict:
        player = self._player(seat)
        if self.state.phase.value == "commit":
            return Commit(tuple(sorted(self.state.hands[player]))).to_dict()
        legal = self.state.legal_moves(player, resign=False)
        return legal[0].to_dict()

    def forfeit(self, seat: str, termination: Termination) -> list[Event]:
        events: list[Event] = []
        self.state.forfeit(self._player(seat), termination, events)
        return events

    def summary(self) -> dict:
        return {"round": self.state.round, "scores": {"red": self.state.scores[0], "blue": self.state.scores[1]}}

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def outcome(self) -> Outcome | None:
        return self.state.outcome()

    def record(self, meta: dict) -> dict:
        self.history.meta = dict(meta)
        return self.history.to_dict()
