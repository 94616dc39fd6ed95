"""Views: exactly what one player (or a spectator) may know of a game.

``view(state, player)`` is built from the state by copying out only what that
receiver may see: never the opponent's hand, never a face-down cartouche, never
the order of any deck, never the seed.  A view is plain data (``to_dict`` gives
the JSON/msgpack form) and carries the receiver's pending decision with its legal
options, so that no client has to decide legality on its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from functools import lru_cache

from .board import SQUARES_PER_TEMPLE, TEMPLES, square_set
from .cards import CARD_VALUES, FULL_DECK
from .game import COMMIT, REMOVE, GameState, decision_sentence
from .players import PLAYERS, Player


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision a player faces now, with its legal options."""

    kind: str  # "commit", "remove" or "place"
    sentence: str
    count: int = 0  # stones still to remove or place
    range: int = 0  # cartouche 3 of the acting player
    owner: str | None = None  # whose stones are removed
    squares: tuple[tuple[int, int], ...] = ()  # legal (temple, square) choices
    hand: tuple[int, ...] = ()  # the cards to commit
    can_exchange: bool = False


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


@dataclass(frozen=True, slots=True)
class View:
    viewer: str | None  # "red", "blue" or None for a spectator
    round: int
    phase: str
    pending: tuple[str, ...]
    first: str | None
    active: str | None
    range: int | None  # cartouche 3 of the active player during their turn
    red: PlayerView
    blue: PlayerView
    temples: tuple[tuple[str | None, ...], ...]  # 4 x 12: "red", "blue" or None
    winner: str | None
    reason: str | None
    decision: Decision | None

    def to_dict(self) -> dict:
        """The plain form sent to clients (the same as ``dataclasses.asdict``, several times faster:
        the server builds one per receiver on every move)."""
        data = {name: getattr(self, name) for name in _VIEW_FIELDS}
        data["red"] = _flat(self.red, _PLAYER_FIELDS)
        data["blue"] = _flat(self.blue, _PLAYER_FIELDS)
        if self.decision is not None:
            data["decision"] = _flat(self.decision, _DECISION_FIELDS)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "View":
        """Rebuild a view from its ``to_dict`` form (as a client receives it).

        Keys this version does not know are ignored, so that a newer server that adds
        fields (a compatible protocol change) does not break an older client.
        """
        decision = data.get("decision")
        return _known(cls, {
            **data,
            "pending": tuple(data["pending"]),
            "red": _player_view_from_dict(data["red"]),
            "blue": _player_view_from_dict(data["blue"]),
            "temples": tuple(tuple(row) for row in data["temples"]),
            "decision": None if decision is None else _known(Decision, {
                **decision,
                "squares": tuple(tuple(sq) for sq in decision["squares"]),
                "hand": tuple(decision["hand"]),
            }),
        })

    def player(self, player: Player | str) -> PlayerView:
        return self.red if str(player) == "red" else self.blue


def _player_view(state: GameState, p: int, viewer: int | None) -> PlayerView:
    cartouches = state.cartouches[p]
    shown = 4 if viewer == p else state.revealed[p]  # a player knows their own cartouches
    faces: tuple[int | None, ...] = (
        tuple(cartouches[c] if c < shown else None for c in range(4)) if cartouches else (None,) * 4
    )
    hidden = state.discard_hidden[p]
    return PlayerView(
        score=state.scores[p],
        supply=state.supply[p],
        dead=state.dead[p],
        on_board=state.stones[p].bit_count(),
        deck=len(state.decks[p]),
        discard=len(state.discard_public[p]) + len(hidden),
        discard_seen=tuple(sorted(state.discard_public[p])),
        hand=tuple(sorted(state.hands[p])) if viewer == p else None,
        hand_size=len(state.hands[p]),
        committed=cartouches is not None,
        cartouches=faces,
        revealed=state.revealed[p] if cartouches else 0,
        exchange_used=state.exchange_used[p],
    )


def _flat(obj, names: tuple[str, ...]) -> dict:
    return {name: getattr(obj, name) for name in names}


_VIEW_FIELDS = tuple(f.name for f in fields(View))
_PLAYER_FIELDS = tuple(f.name for f in fields(PlayerView))
_DECISION_FIELDS = tuple(f.name for f in fields(Decision))


def _known(cls, data: dict):
    """``cls(**data)`` with only the keys that are fields of ``cls``."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def _player_view_from_dict(data: dict) -> PlayerView:
    hand = data["hand"]
    return _known(PlayerView, {
        **data,
        "discard_seen": tuple(data["discard_seen"]),
        "hand": None if hand is None else tuple(hand),
        "cartouches": tuple(data["cartouches"]),
    })


def decision_for(state: GameState, player: int) -> Decision | None:
    sentence = decision_sentence(state, player)
    if sentence is None:
        return None
    if state.phase is COMMIT:
        return Decision(
            kind="commit",
            sentence=sentence,
            hand=tuple(sorted(state.hands[player])),
            can_exchange=not state.exchange_used[player],
        )
    return Decision(
        kind="remove" if state.phase is REMOVE else "place",
        sentence=sentence,
        count=state.remaining,
        range=state.range_value,
        owner=str(PLAYERS[state.target]) if state.phase is REMOVE else None,
        squares=tuple(square_set(state.legal_mask())),
    )


@lru_cache(maxsize=1024)
def temple_owners(red_stones: int, blue_stones: int) -> tuple[tuple[str | None, ...], ...]:
    """Whose stone stands on each square, temple by temple: "red", "blue" or None.

    Cached on the two stone masks: the views of all receivers of one move share it.
    """
    square_bits = (1 << SQUARES_PER_TEMPLE) - 1
    return tuple(
        _temple_row(red_stones >> shift & square_bits, blue_stones >> shift & square_bits)
        for shift in range(0, len(TEMPLES) * SQUARES_PER_TEMPLE, SQUARES_PER_TEMPLE)
    )


@lru_cache(maxsize=4096)
def _temple_row(red: int, blue: int) -> tuple[str | None, ...]:
    return tuple("red" if red >> bit & 1 else "blue" if blue >> bit & 1 else None
                 for bit in range(SQUARES_PER_TEMPLE))


def view(state: GameState, player: Player | int | None) -> View:
    """What ``player`` may know of ``state`` (None: a spectator)."""
    viewer = None if player is None else int(player)
    outcome = state.outcome()
    ended = {"winner": None, "reason": None} if outcome is None else outcome.to_dict()
    return View(
        viewer=None if viewer is None else str(PLAYERS[viewer]),
        round=state.round,
        phase=state.phase.value,
        pending=tuple(str(p) for p in state.pending()),
        first=None if state.first is None else str(PLAYERS[state.first]),
        active=None if state.active is None else str(PLAYERS[state.active]),
        range=state.range_value if state.active is not None else None,
        red=_player_view(state, 0, viewer),
        blue=_player_view(state, 1, viewer),
        temples=temple_owners(state.stones[0], state.stones[1]),
        winner=ended["winner"],
        reason=ended["reason"],
        decision=None if viewer is None else decision_for(state, viewer),
    )


def unseen_cards(v: View, player: Player | str) -> Counter:
    """The multiset of ``player``'s cards whose values the receiver of ``v`` has not seen.

    They are somewhere in that player's deck, hand, face-down cartouches or exchanged
    discards; a search bot deals them at random to sample a state consistent with ``v``.
    """
    pv = v.player(player)
    seen = Counter(pv.discard_seen)
    seen.update(c for c in pv.cartouches if c is not None)
    if pv.hand is not None:
        seen.update(pv.hand)
    pool = Counter(FULL_DECK)
    pool.subtract(seen)
    return Counter({value: pool[value] for value in CARD_VALUES if pool[value] > 0})
