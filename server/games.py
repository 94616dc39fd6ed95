"""The narrow interface between the arbiter and a game, and Aton's implementation of it.

The arbiter (``server.room``) knows seats, sealed simultaneous moves, clocks and
persistence; it never knows a rule.  Everything it asks of a game goes through
``HostedGame``: who must decide, is a move legal, play it, what may a receiver
see, what happens on time-out, how the game ended, and its record.  Seats and
moves are the game's own values, opaque to the arbiter: a move message is turned
into the game's move once (``move_of``), checked and played once (``play``), and a
refusal is the game-neutral ``RefusedMove``.  A second game is hosted by writing
another implementation.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol, TypeVar

from aton.errors import IllegalMove
from aton.events import Committed, Event
from aton.game import COMMIT, new_game
from aton.moves import EXCHANGE, RESIGN, Commit, Move, Place, Remove, commit_moves, move_from_dict
from aton.options import DEFAULT_RULES, Rules
from aton.outcome import Outcome, Termination
from aton.players import BLUE, PLAYERS, RED, Player
from aton.record import GameRecord
from aton.views import plain_views, temple_names
from protocol import messages as m

__all__ = ["AtonGame", "HostedGame", "Outcome", "RefusedMove", "Termination"]

S = TypeVar("S", bound=Hashable)  # a game's seat
M = TypeVar("M")  # a game's move


class RefusedMove(Exception):
    """The game refuses a move; the message says why, in a player's words."""


class HostedGame(Protocol[S, M]):
    """What the arbiter needs of a game.

    A seat's ``str()`` is its name on the wire and in the database (``seat_named`` reads
    it back).  The events a move causes are opaque until ``events_for`` turns them into
    the maps each receiver may see.
    """

    #: Every seat, in order.
    seats: tuple[S, ...]

    def seat_named(self, name: str) -> S:
        """The seat a name from the wire or the database stands for; ValueError if none."""

    def pending(self) -> tuple[S, ...]:
        """The seats that must decide now."""

    @property
    def sealed(self) -> bool:
        """Whether the pending seats decide at once, each sealing its move until all have."""

    def is_sealed(self, move: M) -> bool:
        """Whether ``move`` is one that is sealed in such a turn (not every move then is)."""

    def move_of(self, msg: m.Message) -> M:
        """The game's move for a move message (``open``, ``exchange``, ``remove``, ``place``,
        ``resign``); RefusedMove if the message is no move of this game."""

    def check(self, seat: S, move: M) -> None:
        """RefusedMove if ``move`` is not legal for ``seat`` now; nothing changes (a sealed
        move is checked when it is opened and played once every seat's is)."""

    def play(self, seat: S, move: M) -> Sequence[object]:
        """Play ``move`` for ``seat``: the events it caused; RefusedMove (and nothing
        changed) if it is not legal now."""

    def events_for(self, events: Sequence[object], receivers: Iterable[S | None]) -> dict[S | None, list[dict]]:
        """The events as each receiver (a seat, or None: a spectator) may see them, as maps."""

    def view(self, seat: S | None) -> dict:
        """Everything the seat (None: a spectator) may see of the game, as a map."""

    def views(self, receivers: Iterable[S | None]) -> dict[S | None, dict]:
        """``view`` for each receiver, built together (what they share, once)."""

    def default_move(self, seat: S) -> M:
        """The move played (or sealed) for ``seat`` when its time runs out."""

    def forfeit(self, seat: S, termination: Termination) -> Sequence[object]:
        """End the game against ``seat`` (time or abandoning); return the events."""

    @property
    def is_over(self) -> bool: ...

    def outcome(self) -> Outcome | None:
        """How the game ended; None while it goes on."""

    def summary(self) -> dict:
        """Round and scores, for the lobby's list of games."""

    def progress(self) -> Hashable:
        """A cheap value that changes whenever ``summary`` does (the lobby compares it after
        every move, before it builds a game's entry)."""

    def encode_move(self, move: M) -> dict:
        """A move as a map: the form the database keeps (and a worker process returns)."""

    def decode_move(self, data: dict) -> M:
        """The move a map from ``encode_move`` stands for; ValueError if none."""

    def record(self, meta: dict) -> dict:
        """The game's record, with ``meta`` from the arbiter (players, result)."""


class AtonGame:
    """Aton behind the ``HostedGame`` interface; the engine decides everything."""

    seats: tuple[Player, ...] = PLAYERS

    def __init__(self, seed: int, rules: Rules = DEFAULT_RULES) -> None:
        self.seed = seed
        self.rules = rules
        self.state, _ = new_game(seed, rules=rules)
        self.history = GameRecord(seed=seed, rules=rules)
        #: The board of the latest views in plain form, with the stones it shows: most moves
        #: (commitments, openings) leave the board as it was.
        self._board: tuple[tuple[int, int], tuple[tuple[str | None, ...], ...]] = ((-1, -1), ())

    @classmethod
    def restore(cls, seed: int, rules: Rules, moves: list[tuple[str, dict]]) -> AtonGame:
        """Rebuild a game from its stored moves (which were all legal when stored)."""
        game = cls(seed, rules)
        for seat, move in moves:
            game.play(Player.parse(seat), move_from_dict(move))
        return game

    @staticmethod
    def seat_named(name: str) -> Player:
        return Player.parse(name)

    def pending(self) -> tuple[Player, ...]:
        return self.state.pending()

    @property
    def sealed(self) -> bool:
        return self.state.phase is COMMIT

    @staticmethod
    def is_sealed(move: Move) -> bool:
        return type(move) is Commit

    @staticmethod
    def move_of(msg: m.Message) -> Move:
        # the protocol has checked every field's range already
        if isinstance(msg, m.Open):
            first, second, third, fourth = msg.cards
            return Commit((first, second, third, fourth))
        if isinstance(msg, m.Place):
            return Place(msg.temple, msg.square)
        if isinstance(msg, m.Remove):
            return Remove(msg.temple, msg.square)
        if isinstance(msg, m.Exchange):
            return EXCHANGE
        if isinstance(msg, m.Resign):
            return RESIGN
        raise RefusedMove(f"{msg.TYPE} is not a move")

    def check(self, seat: Player, move: Move) -> None:
        if move in self.state.legal_moves(seat):
            return
        try:  # refused: playing it on a copy gives the engine's reason, in a player's words
            self.state.copy().play(seat, move)
        except IllegalMove as exc:
            raise RefusedMove(str(exc)) from None
        raise RefusedMove(f"{move} is not a legal move now")

    def play(self, seat: Player, move: Move) -> list[Event]:
        events: list[Event] = []
        try:
            self.state.play(seat, move, events)
        except IllegalMove as exc:
            raise RefusedMove(str(exc)) from None
        self.history.add(seat, move)
        return events

    def events_for(self, events: Sequence[object],
                   receivers: Iterable[Player | None]) -> dict[Player | None, list[dict]]:
        # The arbiter announces each sealed commitment when it arrives, so the engine's
        # own "committed" events (emitted when the seals are applied) are left out.
        shown: list[Event] = [e for e in events if isinstance(e, Event) and not isinstance(e, Committed)]
        public = [e.for_viewer(None) for e in shown]
        public_dicts = [e.to_dict() for e in public]
        by_receiver: dict[Player | None, list[dict]] = {}
        for seat in receivers:
            if seat is None:
                by_receiver[None] = public_dicts
                continue
            # only what differs from the public copy (a player's own drawn cards) is converted again;
            # a seat that sees every event as everyone does gets the public list itself
            mine = [e.for_viewer(seat) for e in shown]
            by_receiver[seat] = public_dicts if all(e is p for e, p in zip(mine, public, strict=True)) else [
                d if e is p or e == p else e.to_dict() for e, p, d in zip(mine, public, public_dicts, strict=True)]
        return by_receiver

    def view(self, seat: Player | None) -> dict:
        return plain_views(self.state, (seat,))[seat]

    def views(self, receivers: Iterable[Player | None]) -> dict[Player | None, dict]:
        stones = (self.state.stones[RED], self.state.stones[BLUE])
        if self._board[0] != stones:
            self._board = (stones, temple_names(*stones))
        return plain_views(self.state, receivers, self._board[1])

    def default_move(self, seat: Player) -> Move:
        if self.state.phase is COMMIT:
            return commit_moves(self.state.hands[seat])[0]  # the hand in ascending order
        return self.state.legal_moves(seat, resign=False)[0]

    def forfeit(self, seat: Player, termination: Termination) -> list[Event]:
        events: list[Event] = []
        self.state.forfeit(seat, termination, events)
        return events

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def outcome(self) -> Outcome | None:
        return self.state.outcome()

    def summary(self) -> dict:
        return {"round": self.state.round, "scores": {str(p): self.state.scores[p] for p in PLAYERS}}

    def progress(self) -> tuple[int, ...]:
        return (self.state.round, *self.state.scores)

    @staticmethod
    def encode_move(move: Move) -> dict:
        return move.to_dict()

    @staticmethod
    def decode_move(data: dict) -> Move:
        return move_from_dict(data)

    def record(self, meta: dict) -> dict:
        self.history.meta = dict(meta)
        return self.history.to_dict()
