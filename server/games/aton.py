"""Aton behind the arbiter's ``HostedGame`` interface (``server.games.hosted``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from aton.errors import IllegalMove
from aton.events import Committed, Event
from aton.game import COMMIT, new_game
from aton.moves import EXCHANGE, RESIGN, Commit, Move, Place, Remove, commit_moves, move_from_dict
from aton.options import DEFAULT_RULES, Rules
from aton.outcome import Outcome, Termination
from aton.players import BLUE, PLAYERS, RED, Player
from aton.record import GameRecord
from aton.views import View, plain_views, temple_names
from bots.strategy import LEVELS, make_strategy
from protocol import messages as m
from protocol.commitment import opens
from protocol.schema import invalid

from .hosted import Forfeit, RefusedMove, events_by_receiver
from .kind import GameKind

#: The bot levels whose strategy searches, with their own budget (ms): they think in a worker process.
SEARCH_BUDGET_MS = {level: options["budget_ms"] for level, (base, options) in LEVELS.items() if base == "mcts"}
#: What a searching bot plays when it has no time to search: greedy, without slips.
LIGHT_LEVEL = "normal"


class AtonGame:
    """Aton behind the ``HostedGame`` interface; the engine decides everything."""

    name: ClassVar[str] = "aton"
    seats: tuple[Player, ...] = PLAYERS

    def __init__(self, seed: int, rules: Rules = DEFAULT_RULES) -> None:
        self.seed = seed
        self.rules = rules
        self.state, _ = new_game(seed, rules=rules)
        self.history = GameRecord(seed=seed, rules=rules)
        #: The board of the latest views in plain form, with the stones it shows: most moves
        #: (commitments, openings) leave the board as it was.
        self._board: tuple[tuple[int, int], tuple[tuple[str | None, ...], ...]] = ((-1, -1), ())
        #: How many times the game has changed (a move, a forfeit), and the latest views with the
        #: count and the receivers they were built for: a commitment and the first opening of a
        #: round change nothing of the game, and their updates carry the views of the update before.
        self._changes = 0
        self._views: tuple[tuple[int, frozenset[Player | None]], dict[Player | None, dict]] | None = None

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
    def move_of(seat: Player, msg: m.Message) -> Move:
        # the protocol has checked every field's range already
        if isinstance(msg, m.Open):
            if msg.cards is None:
                raise invalid("cards", "required field is missing (Aton's opening is the four cards)")
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

    @staticmethod
    def claim(seat: Player, move: Move | None, slots: tuple[int, ...] | None) -> None:
        """Nothing of Aton's cartouches is public until they are opened."""
        if slots is not None:
            raise RefusedMove("an Aton commitment claims no slots")

    @staticmethod
    def opens(digest: bytes, move: Move, nonce: bytes) -> bool:
        return isinstance(move, Commit) and opens(digest, move.cards, nonce)

    def set_seals(self, claims: Mapping[Player, object]) -> None:
        """Aton's two commitments are sealed at once: the seals change nothing of the game."""

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
        self._changes += 1  # counted before it is tried: a refused move costs a view built again, no more
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
        return events_by_receiver([e for e in events if isinstance(e, Event) and not isinstance(e, Committed)],
                                  receivers)

    def view(self, seat: Player | None) -> dict:
        return plain_views(self.state, (seat,))[seat]

    def views(self, receivers: Iterable[Player | None]) -> dict[Player | None, dict]:
        key = (self._changes, frozenset(receivers))
        if self._views is not None and self._views[0] == key:
            return self._views[1]
        stones = (self.state.stones[RED], self.state.stones[BLUE])
        if self._board[0] != stones:
            self._board = (stones, temple_names(*stones))
        views = plain_views(self.state, key[1], self._board[1])
        self._views = (key, views)
        return views

    def default_move(self, seat: Player) -> Move:
        if self.state.phase is COMMIT:
            return commit_moves(self.state.hands[seat])[0]  # the hand in ascending order
        return self.state.legal_moves(seat, resign=False)[0]

    def forfeit(self, seat: Player, termination: Forfeit) -> list[Event]:
        events: list[Event] = []
        self._changes += 1
        self.state.forfeit(seat, Termination(termination.value), events)
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


def record_of(seed: int, rules: dict, moves: list[tuple[str, dict]], meta: dict) -> dict:
    """The ``aton-record/1`` of stored moves (which were all legal when stored)."""
    record = GameRecord(seed=seed, rules=Rules.from_dict(rules))
    for seat, move in moves:
        record.add(Player.parse(seat), move_from_dict(move))
    record.meta = meta
    return record.to_dict()


def bot_move(level: str, seed: int, view_data: dict, budget_ms: float | None = None) -> dict:
    """One decision of a ``level`` bot (``bots.strategy``) for a view; ``budget_ms`` replaces a
    search's own budget."""
    options = {} if budget_ms is None else {"budget_ms": budget_ms}
    return make_strategy(level, seed=seed, **options).choose(View.from_dict(view_data)).to_dict()


def new(seed: int) -> tuple[AtonGame, dict]:
    """A new game with the default rules, and the rules as the database keeps them."""
    return AtonGame(seed), DEFAULT_RULES.to_dict()


def restore(seed: int, rules: dict, moves: list[tuple[str, dict]]) -> AtonGame:
    return AtonGame.restore(seed, Rules.from_dict(rules), moves)


KIND = GameKind(name=AtonGame.name, title="Aton", seats=PLAYERS, seat_named=Player.parse, new=new, restore=restore,
                record_of=record_of, bot_move=bot_move, search_budget_ms=SEARCH_BUDGET_MS,
                light_level=LIGHT_LEVEL, fair_decks=True, rated=True, time_controls=None)
