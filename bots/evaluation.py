"""A fast heuristic evaluation of Aton positions, and the cheap policies built on it.

Everything here works on bitmasks and counts, in "points" from one player's
side: the score difference, plus ``board_weight`` (2: the board stays between
scorings) times what the board would bring at a scoring round now (each majority
category with a smoothed sign, so that a lead of one stone counts less than a
lead of three; the bonus squares), plus the area win conditions as threats (a
temple, all yellow, all green: worth more the fewer squares are missing, much
less when opponent stones must be removed first; the opponent's threats count
against), plus either side's chance to reach 40 with the next cartouche 1.  The
weights (the constants below) were chosen by playing variants of ``greedy`` against each
other; ``win_probability`` squashes the value with a logistic scale fitted to
the outcomes of greedy-against-greedy games.

Squares of the same temple and colour are interchangeable under the rules (no
rule looks at adjacency), so the board falls into 20 *square classes*, and the
value of placing or removing a stone is computed once per class from the
category counts: ``class_deltas`` is the core of the greedy decisions and of the
rollout policy of the search bot.

Used by ``greedy`` on states built from its view and by ``mcts`` on sampled
states; nothing here ever sees more than the caller gives it.
"""

from __future__ import annotations

import math

from aton.board import (
    BLACK_MASK,
    BLUE_MASK,
    BONUS1_MASK,
    BONUS2_MASK,
    GREEN_MASK,
    RANGE_MASK,
    TEMPLE_MASK,
    TEMPLES,
    YELLOW_MASK,
)
from aton.game import PLACE, GameState
from aton.moves import EXCHANGE, Commit, Move, commit_moves, place_move, remove_move
from aton.players import Player

T1, T2, T3, T4 = TEMPLE_MASK[1], TEMPLE_MASK[2], TEMPLE_MASK[3], TEMPLE_MASK[4]
K, B, P1, P2, Y, G = BLACK_MASK, BLUE_MASK, BONUS1_MASK, BONUS2_MASK, YELLOW_MASK, GREEN_MASK

# ---------------------------------------------------------------------- weights and tables

#: Smoothed sign of a majority lead of 0, 1, 2, 3 stones (4 and more: 1.0).
SIGN_STEPS = (0.0, 0.35, 0.6, 0.8, 0.9)
#: The value of completing an area (a temple, all yellow, all green), in points.
AREA_WIN = 25.0
#: Weight of an area threat by its distance (empty squares + 2 per enemy stone in it).
THREAT_STEPS = (1.0, 0.55, 0.5, 0.42, 0.35, 0.16, 0.08, 0.04, 0.02, 0.01)
#: How much the board's value at the next scoring counts against points already scored.
BOARD_WEIGHT = 2.0
#: Logistic scale from points to a win probability.
SCALE = 18.0
#: The worth of a chance to win by cartouche 1 next round (times that chance), in points.
C1_RACE = 60.0

#: ``SIGN[d + 20]``: the smoothed sign of a lead of ``d`` stones (-20 to 20).
SIGN = tuple(math.copysign(SIGN_STEPS[abs(d)] if abs(d) < len(SIGN_STEPS) else 1.0, d) for d in range(-20, 21))
_THREAT = THREAT_STEPS + (0.0,) * 48


def _threat(n: int, m: int, size: int) -> float:
    """The threat of ``n`` own stones against ``m`` enemy ones in an area of ``size`` squares."""
    empty = size - n - m
    if empty < 0 or not n + m:
        return 0.0
    return AREA_WIN * _THREAT[empty + 2 * m]


def _net_area(n: int, m: int, size: int) -> float:
    """Own threat minus the opponent's threat in an area of ``size`` squares."""
    return _threat(n, m, size) - _threat(m, n, size) if n + m <= size else 0.0


def _table(value) -> tuple[tuple[float, ...], ...]:
    """``value(n, m)`` for own and opponent counts 0-15, indexed ``[n][m]``."""
    return tuple(tuple(value(n, m) for m in range(16)) for n in range(16))


def _temple1(n: int, m: int) -> float:
    """Temple 1's category: the difference in stones, to the majority holder."""
    return n - m


def _temple2(n: int, m: int) -> float:
    """Temple 2's category: 5 to the majority holder."""
    return 5 * SIGN[n - m + 20]


def _temple3(n: int, m: int) -> float:
    """Temple 3's category: 1 per own stone there, to the majority holder."""
    return SIGN[n - m + 20] * (n + m) / 2 + (n - m) / 2


def _black(n: int, m: int) -> float:
    """The black squares' category: 8 to the majority holder."""
    return 8 * SIGN[n - m + 20]


# The temple tables: the majority value of the temple's scoring category + the temple's area.
NET_T1 = _table(lambda n, m: _temple1(n, m) + _net_area(n, m, 12))
NET_T2 = _table(lambda n, m: _temple2(n, m) + _net_area(n, m, 12))
NET_T3 = _table(lambda n, m: _temple3(n, m) + _net_area(n, m, 12))
NET_T4 = _table(lambda n, m: _net_area(n, m, 12))  # + the blue term of _v4
NET_K = _table(_black)
NET_Y = NET_G = _table(lambda n, m: _net_area(n, m, 14))


def _v4(n4: int, m4: int, bn: int, bm: int) -> float:
    """Temple 4's category: 3 per blue square of the majority holder (all temples)."""
    return SIGN[n4 - m4 + 20] * 1.5 * (bn + bm) + 1.5 * (bn - bm)


# ---------------------------------------------------------------------- the board


def board_value(own: int, opp: int) -> float:
    """What the board is worth to the owner of ``own``, in points (opponent's side subtracted)."""
    n1, m1 = (own & T1).bit_count(), (opp & T1).bit_count()
    n2, m2 = (own & T2).bit_count(), (opp & T2).bit_count()
    n3, m3 = (own & T3).bit_count(), (opp & T3).bit_count()
    n4, m4 = (own & T4).bit_count(), (opp & T4).bit_count()
    return (
        NET_T1[n1][m1] + NET_T2[n2][m2] + NET_T3[n3][m3] + NET_T4[n4][m4]
        + _v4(n4, m4, (own & B).bit_count(), (opp & B).bit_count())
        + NET_K[(own & K).bit_count()][(opp & K).bit_count()]
        + NET_Y[(own & Y).bit_count()][(opp & Y).bit_count()]
        + NET_G[(own & G).bit_count()][(opp & G).bit_count()]
        + (own & P1).bit_count() - (opp & P1).bit_count()
        + 2 * ((own & P2).bit_count() - (opp & P2).bit_count())
    )


def evaluate(state: GameState, player: Player) -> float:
    """The position's value for ``player`` in points (terminal: +-1000, draw 0)."""
    if (outcome := state.outcome()) is not None:
        winner = outcome.winner
        if winner is None:
            return 0.0
        return 1000.0 if winner is player else -1000.0
    other = player.other
    own, opp = state.stones[player], state.stones[other]
    mine, theirs = state.scores[player], state.scores[other]
    return (mine - theirs) + BOARD_WEIGHT * board_value(own, opp) + _race(mine, theirs)


def _race(mine: int, theirs: int) -> float:
    """Either side's chance to reach 40 points with the next cartouche 1, in points."""
    if mine >= 34 or theirs >= 34:
        return C1_RACE * (_C1_REACH[min(mine, 40)] - _C1_REACH[min(theirs, 40)])
    return 0.0


# ---------------------------------------------------------------------- the terms, one by one

#: The scoring categories with a majority, by the name of their term: the category's words.
CATEGORIES = {"temple 1": "temple 1", "temple 2": "temple 2", "temple 3": "temple 3", "temple 4": "temple 4",
              "black": "black squares"}
#: The areas whose filling wins at once, by name: their masks and sizes.
AREA_MASKS = {"temple 1": T1, "temple 2": T2, "temple 3": T3, "temple 4": T4, "yellow": Y, "green": G}
AREAS = {name: mask.bit_count() for name, mask in AREA_MASKS.items()}


def stone_counts(own: int, opp: int) -> dict[str, tuple[int, int]]:
    """Each side's stones in each area, on the black and the blue squares, and each side's
    points on the bonus squares (``"bonus points"``)."""
    counts = {name: ((own & mask).bit_count(), (opp & mask).bit_count()) for name, mask in AREA_MASKS.items()}
    counts["black"] = ((own & K).bit_count(), (opp & K).bit_count())
    counts["blue"] = ((own & B).bit_count(), (opp & B).bit_count())
    counts["bonus points"] = ((own & P1).bit_count() + 2 * (own & P2).bit_count(),
                              (opp & P1).bit_count() + 2 * (opp & P2).bit_count())
    return counts


def evaluation_terms(state: GameState, player: Player) -> dict[str, float]:
    """``evaluate`` term by term (they add up to it), for explaining a choice: ``"points"``
    (the score difference), each majority category (``CATEGORIES``), ``"bonus"``, each area's
    threat for ``player`` (``"own yellow"``) and against them (``"their yellow"``), and
    ``"race"`` (the race to 40 by cartouche 1); a finished game is the one term ``"outcome"``."""
    if state.outcome() is not None:
        return {"outcome": evaluate(state, player)}
    other = player.other
    own, opp = state.stones[player], state.stones[other]
    counts = stone_counts(own, opp)
    w = BOARD_WEIGHT
    (n4, m4), (bn, bm) = counts["temple 4"], counts["blue"]
    terms = {
        "points": float(state.scores[player] - state.scores[other]),
        "temple 1": w * _temple1(*counts["temple 1"]),
        "temple 2": w * _temple2(*counts["temple 2"]),
        "temple 3": w * _temple3(*counts["temple 3"]),
        "temple 4": w * _v4(n4, m4, bn, bm),
        "black": w * _black(*counts["black"]),
        "bonus": w * (counts["bonus points"][0] - counts["bonus points"][1]),
    }
    for area, size in AREAS.items():
        n, m = counts[area]
        terms[f"own {area}"] = w * _threat(n, m, size)
        terms[f"their {area}"] = -w * _threat(m, n, size)
    terms["race"] = _race(state.scores[player], state.scores[other])
    return terms


# the chance to reach 40 points with the next cartouche 1 (two cards uniform over 1-4)
_C1_REACH = [
    sum(1 for a in range(1, 5) for b in range(1, 5) if a > b and score + 2 * (a - b) >= 40) / 16
    for score in range(41)
]


def win_probability(state: GameState, player: Player) -> float:
    """``evaluate`` squashed to [0, 1]: 1 a win, 0 a loss, 0.5 even."""
    if (outcome := state.outcome()) is not None:
        winner = outcome.winner
        if winner is None:
            return 0.5
        return 1.0 if winner is player else 0.0
    e = evaluate(state, player) / SCALE
    if e > 30:
        return 1.0
    if e < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-e))


# ---------------------------------------------------------------------- square classes

#: The squares of the 20 classes of interchangeable squares: temple by temple, its yellow,
#: green, black, blue and bonus squares (the order of ``class_deltas``).
CLASS_MASKS = tuple(TEMPLE_MASK[t] & kind for t in TEMPLES for kind in (Y, G, K, B, P1 | P2))
assert all(CLASS_MASKS) and sum(m.bit_count() for m in CLASS_MASKS) == 48


def class_deltas(own: int, opp: int, step: int) -> list[float]:
    """For each square class: the change of ``board_value(own, opp)`` when ``own`` gains
    (``step`` = +1) or loses (``step`` = -1) one stone of that class."""
    n1, m1 = (own & T1).bit_count(), (opp & T1).bit_count()
    n2, m2 = (own & T2).bit_count(), (opp & T2).bit_count()
    n3, m3 = (own & T3).bit_count(), (opp & T3).bit_count()
    n4, m4 = (own & T4).bit_count(), (opp & T4).bit_count()
    nk, mk = (own & K).bit_count(), (opp & K).bit_count()
    nb, mb = (own & B).bit_count(), (opp & B).bit_count()
    ny, my = (own & Y).bit_count(), (opp & Y).bit_count()
    ng, mg = (own & G).bit_count(), (opp & G).bit_count()
    s = step
    # clamp at the table edges (a decrement of an empty count never happens in play)
    d1 = NET_T1[n1 + s][m1] - NET_T1[n1][m1] if n1 + s >= 0 else 0.0
    d2 = NET_T2[n2 + s][m2] - NET_T2[n2][m2] if n2 + s >= 0 else 0.0
    d3 = NET_T3[n3 + s][m3] - NET_T3[n3][m3] if n3 + s >= 0 else 0.0
    v4 = _v4(n4, m4, nb, mb)
    d4 = (NET_T4[n4 + s][m4] - NET_T4[n4][m4] + _v4(n4 + s, m4, nb, mb) - v4) if n4 + s >= 0 else 0.0
    d4b = (NET_T4[n4 + s][m4] - NET_T4[n4][m4] + _v4(n4 + s, m4, nb + s, mb) - v4) if n4 + s >= 0 else 0.0
    db = _v4(n4, m4, nb + s, mb) - v4 if nb + s >= 0 else 0.0
    dk = NET_K[nk + s][mk] - NET_K[nk][mk] if nk + s >= 0 else 0.0
    dy = NET_Y[ny + s][my] - NET_Y[ny][my] if ny + s >= 0 else 0.0
    dg = NET_G[ng + s][mg] - NET_G[ng][mg] if ng + s >= 0 else 0.0
    return [
        d1 + dy, d1 + dg, d1 + dk, d1 + db, d1 + s,
        d2 + dy, d2 + dg, d2 + dk, d2 + db, d2 + s,
        d3 + dy, d3 + dg, d3 + dk, d3 + db, d3 + s,
        d4 + dy, d4 + dg, d4 + dk, d4b, d4 + 2 * s,
    ]


def best_class(deltas: list[float], mask: int, maximize: bool = True) -> int:
    """The index of the best class that has a square in ``mask`` (-1 if none)."""
    best, best_value = -1, 0.0
    for c in range(20):
        if mask & CLASS_MASKS[c]:
            v = deltas[c] if maximize else -deltas[c]
            if best < 0 or v > best_value:
                best, best_value = c, v
    return best


def lowest_square(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


_SQUARE_CACHE: dict[tuple, int] = {}


def clear_caches() -> None:
    _SQUARE_CACHE.clear()


def greedy_square(state: GameState) -> int:
    """The bit index the heuristic picks for the pending removal or placement.

    The same choice as ``best_class(class_deltas(...))``, written out for speed (and
    remembered): this is the inner loop of the search bot's rollouts.
    """
    active = state.active
    assert active is not None, "a removal or a placement is pending"
    stones = state.stones
    rmask = RANGE_MASK[state.range_value]
    if state.phase is PLACE:
        own, opp = stones[active], stones[active.other]
        s, sign = 1, 1.0
        legal = ~(own | opp) & rmask
    else:
        target = state.target
        own, opp = stones[target], stones[target.other]
        s = -1
        sign = 1.0 if target is active else -1.0
        legal = own & rmask
    key = (own, opp, legal, sign)
    found = _SQUARE_CACHE.get(key)
    if found is not None:
        return found
    if len(_SQUARE_CACHE) > 100_000:
        _SQUARE_CACHE.clear()
    found = _SQUARE_CACHE[key] = _greedy_square(own, opp, legal, s, sign)
    return found


def _greedy_square(own: int, opp: int, legal: int, s: int, sign: float) -> int:
    sg = SIGN
    nk, mk = (own & K).bit_count(), (opp & K).bit_count()
    ny, my = (own & Y).bit_count(), (opp & Y).bit_count()
    ng, mg = (own & G).bit_count(), (opp & G).bit_count()
    dk = NET_K[nk + s][mk] - NET_K[nk][mk] if nk + s >= 0 else 0.0
    dy = NET_Y[ny + s][my] - NET_Y[ny][my] if ny + s >= 0 else 0.0
    dg = NET_G[ng + s][mg] - NET_G[ng][mg] if ng + s >= 0 else 0.0
    nb, mb = (own & B).bit_count(), (opp & B).bit_count()
    n4, m4 = (own & T4).bit_count(), (opp & T4).bit_count()
    sign4 = sg[n4 - m4 + 20]
    # the blue term of temple 4's category: 3 per blue square of the majority holder
    db = 1.5 * s * (sign4 + 1.0) if nb + s >= 0 else 0.0
    best, best_value = -1, -1e18
    classes = CLASS_MASKS
    for t in range(4):
        tmask = _TEMPLES[t]
        if not legal & tmask:
            continue
        if t == 0:
            n, m = (own & T1).bit_count(), (opp & T1).bit_count()
            dt = NET_T1[n + s][m] - NET_T1[n][m] if n + s >= 0 else 0.0
            dtb = dt + db
        elif t == 1:
            n, m = (own & T2).bit_count(), (opp & T2).bit_count()
            dt = NET_T2[n + s][m] - NET_T2[n][m] if n + s >= 0 else 0.0
            dtb = dt + db
        elif t == 2:
            n, m = (own & T3).bit_count(), (opp & T3).bit_count()
            dt = NET_T3[n + s][m] - NET_T3[n][m] if n + s >= 0 else 0.0
            dtb = dt + db
        else:
            if n4 + s >= 0:
                area = NET_T4[n4 + s][m4] - NET_T4[n4][m4]
                new_sign = sg[n4 + s - m4 + 20]
                dt = area + (new_sign - sign4) * 1.5 * (nb + mb)
                dtb = area + new_sign * 1.5 * (nb + s + mb) + 1.5 * (nb + s - mb) \
                    - sign4 * 1.5 * (nb + mb) - 1.5 * (nb - mb)
            else:
                dt = dtb = 0.0
        c = 5 * t
        bonus = 2 * s if t == 3 else s
        for k, v in ((0, dt + dy), (1, dt + dg), (2, dt + dk), (3, dtb), (4, dt + bonus)):
            if legal & classes[c + k]:
                v *= sign
                if v > best_value:
                    best, best_value = c + k, v
    square = legal & classes[best]
    return (square & -square).bit_length() - 1


_TEMPLES = (T1, T2, T3, T4)


# ---------------------------------------------------------------------- commits

_PERMS: dict[tuple[int, ...], tuple[tuple[int, int, int, int], ...]] = {}


def commit_options(hand: tuple[int, ...]) -> tuple[tuple[int, int, int, int], ...]:
    """The distinct assignments of a hand to cartouches 1-4 (sorted: the engine's commit moves)."""
    key = tuple(sorted(hand))
    found = _PERMS.get(key)
    if found is None:
        found = _PERMS[key] = tuple(move.cards for move in commit_moves(key))
    return found


_COMMIT_OBJ: dict[tuple[int, int, int, int], Commit] = {}


def commit_of(cards: tuple[int, int, int, int]) -> Commit:
    """The engine's shared Commit object for an assignment (no allocation in hot loops)."""
    move = _COMMIT_OBJ.get(cards)
    if move is None:
        move = _COMMIT_OBJ[cards] = next(m for m in commit_moves(cards) if m.cards == cards)
    return move


def commit_candidates(hand: tuple[int, ...], can_exchange: bool) -> list[Move]:
    """A commit decision's moves: every distinct assignment of the hand, then the exchange
    while it is on offer."""
    moves: list[Move] = [commit_of(cards) for cards in commit_options(hand)]
    if can_exchange:
        moves.append(EXCHANGE)
    return moves


def play_out_turns(state: GameState) -> None:
    """Play the pending removals and placements with ``greedy_square`` until the next
    commit phase (or the end of the game)."""
    play = state.play
    while (active := state.active) is not None:  # nobody is active in a commit phase, or at the end
        if state.phase is PLACE:
            play(active, place_move(greedy_square(state)))
        else:
            play(active, remove_move(greedy_square(state)))


__all__ = [
    "AREAS",
    "CATEGORIES",
    "CLASS_MASKS",
    "best_class",
    "board_value",
    "class_deltas",
    "commit_of",
    "commit_options",
    "evaluate",
    "evaluation_terms",
    "greedy_square",
    "lowest_square",
    "play_out_turns",
    "stone_counts",
    "win_probability",
]
