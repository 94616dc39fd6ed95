"""Atlas & Zeus behind the arbiter's ``HostedGame`` interface (``server.games.hosted``).

The programming is a sequential sealed turn: the initiative player seals a programming
(``commit`` with a digest and the slots it fills), then the other player, who sees those
slots taken face down, seals theirs; once both are sealed both are opened and played in
that order, and the resolution runs.  A programming under Open hand is sealed too, but
face up: it is sent in the clear with ``act`` and everyone sees it at once (its claim is
the whole programming).  Every card decision of the resolution is an ``act`` with a move of
the view's ``decision``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from atlas_zeus.errors import IllegalMove
from atlas_zeus.events import Event
from atlas_zeus.game import GameState, Phase, new_game
from atlas_zeus.moves import RESIGN, Move, Program, move_from_dict
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.outcome import Outcome, Termination
from atlas_zeus.players import PLAYERS, Player
from atlas_zeus.record import GAME, GameRecord
from atlas_zeus.views import View, view
from bots.atlas_zeus import strategy_named
from protocol import messages as m
from protocol.clocks import ATLAS_ZEUS_TIME_CONTROLS
from protocol.commitment import opens_program
from protocol.schema import invalid

from .hosted import Forfeit, RefusedMove, events_by_receiver
from .kind import GameKind, StoredMoves

#: The strategy (``bots.atlas_zeus``) each of the server's bot levels plays in this game.
BOT_STRATEGIES = {"random": "random", "easy": "random", "normal": "greedy", "hard": "greedy"}
#: The levels that think in a worker process: the greedy strategy's one-ply look-ahead takes a
#: few milliseconds a decision, and a few hundred at worst, too long to hold the event loop (it
#: has no budget of its own: this one only orders it among the other games' searches).
SEARCH_BUDGET_MS = {"normal": 500.0, "hard": 500.0}


def claimed_program(claim: object) -> Program | None:
    """The programming a claim holds: face up (Open hand: the programming's own map), or one
    the server sealed (``cards`` beside ``slots``: only its owner sees them); None for a
    client's sealed one, whose cards only the client knows."""
    if not isinstance(claim, dict) or "cards" not in claim:
        return None
    program = move_from_dict({"kind": "program", "cards": claim["cards"]})
    assert isinstance(program, Program)
    return program


def is_face_up(claim: object) -> bool:
    return isinstance(claim, dict) and "kind" in claim


def claimed_slots(claim: object) -> tuple[int, ...]:
    """The slots a claim fills: ``{"slots": [...]}`` face down, a programming's face up."""
    program = claimed_program(claim)
    if program is not None:
        return program.slots
    assert isinstance(claim, dict)
    return tuple(claim["slots"])


class AtlasZeusGame:
    """Atlas & Zeus behind the ``HostedGame`` interface; the engine decides everything."""

    name: ClassVar[str] = GAME
    seats: tuple[Player, ...] = PLAYERS

    def __init__(self, seed: int, options: Options = DEFAULT_OPTIONS) -> None:
        self.state: GameState = new_game(seed, options)
        self.history = GameRecord(seed=seed, options=options)
        #: The programmings the arbiter holds sealed, by seat: their claims (``claimed_slots``).
        self.claims: dict[Player, object] = {}

    @classmethod
    def restore(cls, seed: int, options: Options, moves: StoredMoves) -> AtlasZeusGame:
        """Rebuild a game from its stored moves (which were all legal when stored)."""
        game = cls(seed, options)
        for seat, move in moves:
            game.play(Player.parse(seat), move_from_dict(move))
        return game

    @staticmethod
    def seat_named(name: str) -> Player:
        return Player.parse(name)

    # ------------------------------------------------------------------ the sealed programming

    @property
    def sealed(self) -> bool:
        return self.state.phase is Phase.PROGRAM and not self.state.is_over

    @staticmethod
    def is_sealed(move: Move) -> bool:
        return isinstance(move, Program)

    def _order(self) -> tuple[Player, Player]:
        """Who programs first (the initiative), and second."""
        return self.state.initiative, self.state.initiative.other

    def pending(self) -> tuple[Player, ...]:
        if not self.sealed:
            return self.state.pending()
        sealed = tuple(p for p in self._order() if p in self.claims)
        due = next((p for p in self._order() if p not in self.claims and not self.state.programmed[p]), None)
        return sealed if due is None else (*sealed, due)

    def _taken(self, seat: Player) -> tuple[int, ...]:
        """The slots the other seat's sealed programming claims."""
        return tuple(s for p, claim in self.claims.items() if p != seat for s in claimed_slots(claim))

    def claim(self, seat: Player, move: Move | None, slots: tuple[int, ...] | None) -> object:
        face_up = self.state.open_hand[seat] > 0
        if move is not None:
            if not isinstance(move, Program):
                raise RefusedMove("only a programming is sealed")
            self.check(seat, move)
            cards = move.to_dict()["cards"]
            return move.to_dict() if face_up else {"slots": list(move.slots), "cards": cards}
        if face_up:
            raise RefusedMove("Open hand: your programming goes face up this round; send it with act.")
        if slots is None:
            raise invalid("slots", "required field is missing (the slots your programming fills)")
        chosen = tuple(sorted(slots))
        choices = self.state.program_slots(seat, self._taken(seat))
        if chosen not in choices:
            allowed = " or ".join("/".join(map(str, c)) for c in choices) or "none"
            raise RefusedMove(f"You cannot program slots {'/'.join(map(str, chosen))}; yours now: {allowed}.")
        return {"slots": list(chosen)}

    @staticmethod
    def opens(digest: bytes, move: Move, nonce: bytes) -> bool:
        return isinstance(move, Program) and opens_program(digest, move.to_dict()["cards"], nonce)

    def set_seals(self, claims: Mapping[Player, object]) -> None:
        self.claims = dict(claims)

    # ------------------------------------------------------------------ moves

    def move_of(self, seat: Player, msg: m.Message) -> Move:
        if isinstance(msg, m.Resign):
            return RESIGN
        if isinstance(msg, (m.Act, m.Open)):
            if msg.move is None:
                raise invalid("move", "required field is missing (the move, as docs/protocol.md shows it)")
            try:
                move = move_from_dict(msg.move)
            except (ValueError, TypeError, KeyError) as exc:
                raise invalid("move", str(exc)) from None
            if isinstance(msg, m.Open) and not isinstance(move, Program):
                raise invalid("move", "an opening is a programming (kind program)")
            if isinstance(msg, m.Act) and isinstance(move, Program) and self.state.open_hand[seat] == 0:
                raise RefusedMove("Your programming is face down: seal it with commit, and open it when asked.")
            return move
        raise RefusedMove(f"{msg.TYPE} is not a move of Atlas & Zeus")

    def check(self, seat: Player, move: Move) -> None:
        try:
            if isinstance(move, Program) and self.sealed:
                claim = self.claims.get(seat)
                if claim is not None and move.slots != claimed_slots(claim):
                    raise IllegalMove("These cards are not on the slots you sealed.")
                self.state.check_program(seat, move, self._taken(seat))
            else:
                self.state.check(seat, move)
        except IllegalMove as exc:
            raise RefusedMove(str(exc)) from None

    def play(self, seat: Player, move: Move) -> list[Event]:
        events: list[Event] = []
        try:
            self.state.play(seat, move, events)
        except IllegalMove as exc:
            raise RefusedMove(str(exc)) from None
        self.history.add(seat, move)
        return events

    def default_move(self, seat: Player) -> Move:
        if self.sealed:
            return self.state.programs(seat, self._taken(seat))[0]
        return self.state.legal_moves(seat)[0]

    def forfeit(self, seat: Player, termination: Forfeit) -> list[Event]:
        events: list[Event] = []
        self.state.forfeit(seat, Termination(termination.value), events)
        return events

    # ------------------------------------------------------------------ what receivers see

    def events_for(self, events: Sequence[object],
                   receivers: Iterable[Player | None]) -> dict[Player | None, list[dict]]:
        return events_by_receiver([e for e in events if isinstance(e, Event)], receivers)

    def view(self, seat: Player | None) -> dict:
        """The engine's view, with the sealed programmings on their slots: face down (their cards
        shown to their owner when the server sealed them), or face up under Open hand."""
        sealed = {p: claimed_slots(claim) for p, claim in self.claims.items()}
        shown: dict[str, Any] = view(self.state, seat, sealed).to_dict()
        for p, claim in self.claims.items():
            program = claimed_program(claim)
            face_up = is_face_up(claim)
            if program is None or not (face_up or seat == p):
                continue
            for slot, card in program.cards:
                shown["track"][slot - 1].update(card=card.value, face_up=face_up)
        return shown

    def views(self, receivers: Iterable[Player | None]) -> dict[Player | None, dict]:
        return {seat: self.view(seat) for seat in receivers}

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def outcome(self) -> Outcome | None:
        return self.state.outcome()

    def summary(self) -> dict:
        return {"round": self.state.round, "people": {str(p): len(self.state.alive(p)) for p in PLAYERS}}

    def progress(self) -> tuple[int, ...]:
        return (self.state.round, *(len(self.state.alive(p)) for p in PLAYERS))

    @staticmethod
    def encode_move(move: Move) -> dict:
        return move.to_dict()

    @staticmethod
    def decode_move(data: dict) -> Move:
        return move_from_dict(data)

    def record(self, meta: dict) -> dict:
        self.history.meta = dict(meta)
        return self.history.to_dict()


def record_of(seed: int, options: dict, moves: StoredMoves, meta: dict) -> dict:
    """The ``atlas-zeus-record/1`` of stored moves."""
    record = GameRecord(seed=seed, options=Options.from_dict(options), meta=meta)
    for seat, move in moves:
        record.add(Player.parse(seat), move_from_dict(move))
    return record.to_dict()


def bot_move(level: str, seed: int, view_data: dict, budget_ms: float | None = None) -> dict:
    """One decision of the server's ``level`` bot (``BOT_STRATEGIES``) for a view."""
    return strategy_named(BOT_STRATEGIES[level], seed).choose(View.from_dict(view_data)).to_dict()


def new(seed: int) -> tuple[AtlasZeusGame, dict]:
    """A new game with the default options, and the options as the database keeps them."""
    return AtlasZeusGame(seed), DEFAULT_OPTIONS.to_dict()


def restore(seed: int, options: dict, moves: StoredMoves) -> AtlasZeusGame:
    return AtlasZeusGame.restore(seed, Options.from_dict(options), moves)


KIND = GameKind(name=AtlasZeusGame.name, title="Atlas & Zeus", seats=PLAYERS, seat_named=Player.parse, new=new,
                restore=restore, record_of=record_of, bot_move=bot_move, search_budget_ms=SEARCH_BUDGET_MS,
                light_level="easy", fair_decks=False,
                rated=False, time_controls=ATLAS_ZEUS_TIME_CONTROLS)
