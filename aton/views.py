"""Views: exactly what one player (or a spectator) may know of a game.

``view(state, player)`` is built from the state by copying out only what that
receiver may see: never the opponent's hand, never a face-down cartouche, never
the order of any deck, never the seed.  A view is plain data (``to_dict`` gives
the JSON/msgpack form) and carries the receiver's pending decision with its legal
options, so that no client has to decide legality on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import MISSING, dataclass, fields
from functools import lru_cache
from typing import Any, TypeVar

from .board import SQUARES_PER_TEMPLE, TEMPLES, index_of, square_tuple
from .cards import CARD_VALUES, FULL_DECK
from .game import COMMIT, REMOVE, GameState, Phase, decision_sentence
from .outcome import Outcome
from .players import BLUE, PLAYERS, RED, Player, name_of

#: ``name_of`` as a lookup (``to_dict`` converts several players per view, for every receiver).
_NAME: dict[Player | None, str | None] = {p: name_of(p) for p in (None, *PLAYERS)}


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision a player faces now, with its legal options."""

    kind: str  # "commit", "remove" or "place"
    sentence: str
    count: int = 0  # stones still to remove or place
    range: int = 0  # cartouche 3 of the acting player
    owner: Player | None = None  # whose stones are removed
    squares: tuple[tuple[int, int], ...] = ()  # legal (temple, square) choices
    hand: tuple[int, ...] = ()  # the cards to commit
    can_exchange: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = _flat(self, _DECISION_FIELDS)
        data["owner"] = _NAME[self.owner]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Decision:
        return _known(cls, {
            **data,
            "owner": Player.parse_optional(data.get("owner")),
            "squares": tuple(tuple(sq) for sq in data["squares"]),
            "hand": tuple(data["hand"]),
        })


@dataclass(frozen=True, slots=True)
class PlayerView:
    score: int
    supply: int
    dead: int
    on_board: int
    deck: int  # number of cards
    discard: int  # number of cards
    discard_seen: tuple[int, ...]  # the discarded values everyone has seen, sorted
    hand: tuple[int, ...] | None  # None: hidden from this receiver
    hand_size: int
    committed: bool
    cartouches: tuple[int | None, ...]  # the values this receiver knows; None: face down to it, or empty
    revealed: int  # how many cartouches (from 1) are face up for everyone
    exchange_used: bool
    # the last cards of the deck, in the order they will be drawn: war cards, everyone saw them
    deck_bottom: tuple[int, ...] = ()
    # the exchanged hand while it lies in the discard pile, sorted; None: hidden from this receiver
    exchanged: tuple[int, ...] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerView:
        """(A view from a server that does not send ``deck_bottom`` and ``exchanged`` knows neither.)"""
        hand, exchanged = data["hand"], data.get("exchanged")
        return _known(cls, {
            **data,
            "discard_seen": tuple(data["discard_seen"]),
            "hand": None if hand is None else tuple(hand),
            "cartouches": tuple(data["cartouches"]),
            "deck_bottom": tuple(data.get("deck_bottom", ())),
            "exchanged": None if exchanged is None else tuple(exchanged),
        })


@dataclass(frozen=True, slots=True)
class View:
    """What one receiver may know.  Its plain form (``to_dict``, as on the wire) names the
    players "red"/"blue", lists the board as ``temples`` and the end as ``winner`` ("draw"
    when nobody won) and ``reason``."""

    viewer: Player | None  # None: a spectator
    round: int
    phase: Phase
    pending: tuple[Player, ...]
    first: Player | None
    active: Player | None
    range: int | None  # cartouche 3 of the active player during their turn
    red: PlayerView
    blue: PlayerView
    stones: tuple[int, int]  # each player's stones as a bitmask (see ``aton.board``), red's first
    outcome: Outcome | None  # None while the game goes on
    decision: Decision | None

    @property
    def temples(self) -> tuple[tuple[Player | None, ...], ...]:
        """Whose stone stands on each square, temple by temple (None: empty)."""
        return temple_owners(*self.stones)

    def player(self, player: Player) -> PlayerView:
        return self.red if player is RED else self.blue

    def to_dict(self) -> dict[str, Any]:
        """The plain form sent to clients (``plain_views`` builds the same for several receivers at once)."""
        return _plain(self.viewer, self.round, self.phase, self.pending, self.first, self.active, self.range,
                      _flat(self.red, _PLAYER_FIELDS), _flat(self.blue, _PLAYER_FIELDS), temple_names(*self.stones),
                      self.outcome, None if self.decision is None else self.decision.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> View:
        """Rebuild a view from its ``to_dict`` form (as a client receives it).

        Keys this version does not know are ignored, so that a newer server that adds
        fields (a compatible protocol change) does not break an older client.
        """
        decision = data.get("decision")
        winner = data.get("winner")
        return cls(
            viewer=Player.parse_optional(data["viewer"]),
            round=data["round"],
            phase=Phase(data["phase"]),
            pending=tuple(Player.parse(p) for p in data["pending"]),
            first=Player.parse_optional(data["first"]),
            active=Player.parse_optional(data["active"]),
            range=data["range"],
            red=PlayerView.from_dict(data["red"]),
            blue=PlayerView.from_dict(data["blue"]),
            stones=stones_of(data["temples"]),
            outcome=None if winner is None else Outcome.from_dict(data),
            decision=None if decision is None else Decision.from_dict(decision),
        )


_NOT_OVER = {"winner": None, "reason": None}
_PHASE_NAMES: dict[Phase, str] = {phase: phase.value for phase in Phase}  # ``.value`` of an enum is slow
_PENDING_NAMES: dict[tuple[Player, ...], tuple[str, ...]] = {
    pending: tuple(str(p) for p in pending) for pending in ((), (RED,), (BLUE,), (RED, BLUE))
}


def _player_view(state: GameState, p: Player, known: bool) -> PlayerView:
    """``p``'s side of the table; ``known``: with their hand and their cartouches face down
    (what ``p`` knows of themselves)."""
    hidden, mine = _sides(state, p, known)
    return PlayerView(**(mine if mine is not None else hidden))


def _sides(state: GameState, p: Player, known_too: bool) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``p``'s side of the table in plain form (``PlayerView``'s fields) as everyone else sees
    it, and, if ``known_too``, as ``p`` sees it: with their hand, their face-down cartouches and
    the exchanged hand in their discard pile.  The only place that decides what of a player's
    side is hidden."""
    cartouches = state.cartouches[p]
    revealed = state.revealed[p]
    hidden = state.discard_hidden[p]
    others = {
        "score": state.scores[p],
        "supply": state.supply[p],
        "dead": state.dead[p],
        "on_board": state.stones[p].bit_count(),
        "deck": len(state.decks[p]),
        "discard": len(state.discard_public[p]) + len(hidden),
        "discard_seen": tuple(sorted(state.discard_public[p])),
        "hand": None,
        "hand_size": len(state.hands[p]),
        "committed": cartouches is not None,
        "cartouches": _faces(cartouches, revealed),
        "revealed": revealed if cartouches else 0,
        "exchange_used": state.exchange_used[p],
        "deck_bottom": tuple(state.decks[p][state.war_bottom[p] - 1::-1]) if state.war_bottom[p] else (),
        "exchanged": None,
    }
    if not known_too:
        return others, None
    return others, {**others, "hand": tuple(sorted(state.hands[p])), "cartouches": _faces(cartouches, 4),
                    "exchanged": tuple(sorted(hidden))}


def _faces(cartouches: Sequence[int] | None, shown: int) -> tuple[int | None, ...]:
    """The four cartouches with the first ``shown`` face up (None: face down, or empty)."""
    if not cartouches:
        return _FACE_DOWN
    return (*cartouches[:shown], *_FACE_DOWN[shown:])


_FACE_DOWN: tuple[None, ...] = (None,) * 4


def _flat(obj: object, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in names}


_D = TypeVar("_D", "Decision", "PlayerView")
_PLAYER_FIELDS = tuple(f.name for f in fields(PlayerView))
_DECISION_FIELDS = tuple(f.name for f in fields(Decision))


def _known(cls: type[_D], data: dict[str, Any]) -> _D:
    """``cls(**data)`` with only the keys that are fields of ``cls``."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def decision_for(state: GameState, player: Player) -> Decision | None:
    fields = _decision_fields(state, player)
    return None if fields is None else Decision(**fields)


#: A decision's fields with their defaults, in order (``_decision_fields`` fills in the rest).
_DECISION_DEFAULTS = {f.name: f.default for f in fields(Decision) if f.default is not MISSING}


def _decision_fields(state: GameState, player: Player) -> dict[str, Any] | None:
    """The decision ``player`` faces now as ``Decision``'s fields in their order (the owner a
    ``Player``); None: none.  ``plain_views`` makes its plain form without the dataclass."""
    sentence = decision_sentence(state, player)
    if sentence is None:
        return None
    if state.phase is COMMIT:
        return {"kind": "commit", "sentence": sentence, **_DECISION_DEFAULTS,
                "hand": tuple(sorted(state.hands[player])), "can_exchange": not state.exchange_used[player]}
    removal = state.phase is REMOVE
    return {"kind": "remove" if removal else "place", "sentence": sentence, **_DECISION_DEFAULTS,
            "count": state.remaining, "range": state.range_value, "owner": state.target if removal else None,
            "squares": square_tuple(state.legal_mask())}


def _plain_decision(state: GameState, player: Player | None) -> dict[str, Any] | None:
    """``decision_for(state, player).to_dict()`` (None: no decision, or a spectator)."""
    decision = None if player is None else _decision_fields(state, player)
    if decision is not None:
        decision["owner"] = _NAME[decision["owner"]]
    return decision


@lru_cache(maxsize=1024)
def temple_owners(red_stones: int, blue_stones: int) -> tuple[tuple[Player | None, ...], ...]:
    """Whose stone stands on each square, temple by temple: RED, BLUE or None.

    Cached on the two stone masks: the views of all receivers of one move share it.
    """
    return _by_temple(red_stones, blue_stones, _OWNER_HALVES)


def temple_names(red_stones: int, blue_stones: int) -> tuple[tuple[str | None, ...], ...]:
    """``temple_owners`` in plain form: "red", "blue" or None per square (built for every move
    that changes the board: from a table of half rows, not a cache of rows, which the many
    boards of many games in play would keep missing)."""
    return _by_temple(red_stones, blue_stones, _NAME_HALVES)


_R = TypeVar("_R")


_SQUARE_BITS = (1 << SQUARES_PER_TEMPLE) - 1  # one temple's squares in a stone mask
_TEMPLE_SHIFTS = range(0, len(TEMPLES) * SQUARES_PER_TEMPLE, SQUARES_PER_TEMPLE)
_HALF = SQUARES_PER_TEMPLE // 2  # a temple's row is two halves of six squares
_HALF_BITS = (1 << _HALF) - 1


def _half_rows(red_value: _R, blue_value: _R) -> dict[int, tuple[_R | None, ...]]:
    """Every half row there can be, by its red squares' bits << ``_HALF`` | its blue squares' bits:
    ``red_value``, ``blue_value`` or None per square (729 of them)."""
    return {red << _HALF | blue: tuple(red_value if red >> bit & 1 else blue_value if blue >> bit & 1 else None
                                       for bit in range(_HALF))
            for red in range(1 << _HALF) for blue in range(1 << _HALF) if not red & blue}


_OWNER_HALVES = _half_rows(RED, BLUE)
_NAME_HALVES = _half_rows(_NAME[RED], _NAME[BLUE])


def _by_temple(red_stones: int, blue_stones: int,
               halves: dict[int, tuple[_R | None, ...]]) -> tuple[tuple[_R | None, ...], ...]:
    """Each temple's row of squares (12 bits of each mask), temple 1 first, from ``halves``."""
    rows = []
    for shift in _TEMPLE_SHIFTS:
        red, blue = red_stones >> shift & _SQUARE_BITS, blue_stones >> shift & _SQUARE_BITS
        first = (red & _HALF_BITS) << _HALF | blue & _HALF_BITS
        rows.append(halves[first] + halves[(red >> _HALF) << _HALF | blue >> _HALF])
    return tuple(rows)


def stones_of(temples: Sequence[Sequence[str | None]]) -> tuple[int, int]:
    """The red and blue stone masks of a plain ``temples`` grid (4 lists of 12 "red"/"blue"/None)."""
    stones = [0, 0]
    if len(temples) != len(TEMPLES) or any(len(row) != SQUARES_PER_TEMPLE for row in temples):
        raise ValueError("temples must be 4 lists of 12 squares")
    for temple, row in zip(TEMPLES, temples, strict=True):
        for square, owner in enumerate(row):
            if owner is not None:
                stones[Player.parse(owner)] |= 1 << index_of(temple, square)
    return stones[RED], stones[BLUE]


def _plain(viewer: Player | None, round_: int, phase: Phase, pending: tuple[Player, ...], first: Player | None,
           active: Player | None, range_: int | None, red: dict[str, Any], blue: dict[str, Any],
           temples: tuple[tuple[str | None, ...], ...], outcome: Outcome | None,
           decision: dict[str, Any] | None) -> dict[str, Any]:
    """A view's plain form (``View.to_dict``), from its parts in plain form where they are shared."""
    ended = _NOT_OVER if outcome is None else outcome.to_dict()
    return {
        "viewer": _NAME[viewer],
        "round": round_,
        "phase": _PHASE_NAMES[phase],
        "pending": _PENDING_NAMES[pending],
        "first": _NAME[first],
        "active": _NAME[active],
        "range": range_,
        "red": red,
        "blue": blue,
        "temples": temples,
        "winner": ended["winner"],
        "reason": ended["reason"],
        "decision": decision,
    }


def plain_views(state: GameState, receivers: Iterable[Player | None],
                temples: tuple[tuple[str | None, ...], ...] | None = None) -> dict[Player | None, dict[str, Any]]:
    """``view(state, r).to_dict()`` for each receiver ``r`` (None: a spectator), built together:
    the server sends one to every receiver of every move, so what they share (each side of the
    table as the others see it, the board, the round) is built once, and shared.  ``temples``:
    the board's ``temple_names``, if the caller keeps them."""
    wanted = tuple(receivers)
    sides = {p: _sides(state, p, p in wanted) for p in PLAYERS}
    if temples is None:
        temples = temple_names(state.stones[RED], state.stones[BLUE])
    pending, outcome = state.pending(), state.outcome()
    range_ = state.range_value if state.active is not None else None
    own = {p: known for p, (_, known) in sides.items() if known is not None}  # each seated receiver's side
    views: dict[Player | None, dict[str, Any]] = {}
    for receiver in wanted:
        red = own[RED] if receiver is RED else sides[RED][0]
        blue = own[BLUE] if receiver is BLUE else sides[BLUE][0]
        views[receiver] = _plain(receiver, state.round, state.phase, pending, state.first, state.active, range_,
                                 red, blue, temples, outcome, _plain_decision(state, receiver))
    return views


def view(state: GameState, player: Player | None) -> View:
    """What ``player`` may know of ``state`` (None: a spectator)."""
    return _view(state, player, red_known=player is RED, blue_known=player is BLUE)


def full_view(state: GameState) -> View:
    """Everything about ``state``: both hands and every cartouche, face down or not, as a
    spectator's view with no decision.  Only for a finished game's replay: never sent to a
    client while the game goes on."""
    return _view(state, None, red_known=True, blue_known=True)


def _view(state: GameState, player: Player | None, red_known: bool, blue_known: bool) -> View:
    return View(
        viewer=player,
        round=state.round,
        phase=state.phase,
        pending=state.pending(),
        first=state.first,
        active=state.active,
        range=state.range_value if state.active is not None else None,
        red=_player_view(state, RED, red_known),
        blue=_player_view(state, BLUE, blue_known),
        stones=(state.stones[RED], state.stones[BLUE]),
        outcome=state.outcome(),
        decision=None if player is None else decision_for(state, player),
    )


def unseen_cards(v: View, player: Player) -> Counter[int]:
    """The multiset of ``player``'s cards whose values the receiver of ``v`` has not seen.

    They are somewhere in that player's deck (above the war cards known at its bottom),
    hand, face-down cartouches or exchanged discards (the receiver's own are known); a search
    bot deals them at random to sample a state consistent with ``v``.
    """
    pv = v.player(player)
    seen = Counter(pv.discard_seen)
    seen.update(pv.deck_bottom)
    seen.update(pv.exchanged or ())
    seen.update(c for c in pv.cartouches if c is not None)
    if pv.hand is not None:
        seen.update(pv.hand)
    pool = Counter(FULL_DECK)
    pool.subtract(seen)
    return Counter({value: pool[value] for value in CARD_VALUES if pool[value] > 0})
