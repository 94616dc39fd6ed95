"""The rules engine: a game state, the decisions pending in it, legal moves, and applying them.

``new_game`` starts a game; ``apply(state, player, move)`` returns the next state and
the events the move caused, leaving the given state untouched.  Search code that
plays many moves on a scratch copy uses ``GameState.play`` (in place, events
optional) and ``GameState.copy``.

Players are ``Player`` values, which also index the state's per-player lists
(``state.scores[player]``); square sets are bitmasks (see ``board``) and decks
are lists with the **top card last**, so that a draw is a cheap ``pop``.
Everything that leaves the state (events, views, records) uses top-first card
order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum

from . import events as E
from .board import (
    BLACK_MASK,
    BLUE_MASK,
    BONUS1_MASK,
    BONUS2_MASK,
    GREEN_MASK,
    RANGE_MASK,
    TEMPLE_MASK,
    TEMPLES,
    YELLOW_MASK,
    describe_temples,
    index_of,
)
from .cards import HAND_SIZE, check_deck, shuffled, starting_deck
from .errors import IllegalMove
from .moves import (
    EXCHANGE,
    RESIGN,
    Commit,
    Exchange,
    Move,
    Place,
    Remove,
    Resign,
    commit_moves,
    place_moves,
    remove_moves,
)
from .options import DEFAULT_RULES, Rules
from .outcome import Outcome, Termination
from .players import BLUE, PLAYERS, RED, Player

STONES_PER_PLAYER = 29
WINNING_SCORE = 40
KINGDOM_CAPACITY = 8


class Phase(StrEnum):
    COMMIT = "commit"
    REMOVE = "remove"
    PLACE = "place"
    OVER = "over"


COMMIT, REMOVE, PLACE, OVER = Phase.COMMIT, Phase.REMOVE, Phase.PLACE, Phase.OVER
_BOTH, _RED_ONLY, _BLUE_ONLY = PLAYERS, PLAYERS[:1], PLAYERS[1:]
#: The cartouches turned up together (indices): C1 at the reveal, then C2, then C3 and C4 with the turn.
_C1, _C2, _C3_C4 = range(0, 1), range(1, 2), range(2, 4)

#: The areas whose complete occupation wins at once, in the order the rules name them.
_AREA_WINS: tuple[tuple[Termination, int], ...] = (
    *((Termination.TEMPLE, TEMPLE_MASK[t]) for t in TEMPLES),
    (Termination.YELLOW, YELLOW_MASK),
    (Termination.GREEN, GREEN_MASK),
)


class GameState:
    """The complete state of one game, hidden information included (only the server holds it)."""

    __slots__ = (
        "rules", "seed", "round", "phase",
        "decks", "war_bottom", "hands", "discard_public", "discard_hidden", "shuffles",
        "cartouches", "revealed", "exchange_used",
        "scores", "supply", "dead", "retired", "stones",
        "first", "active", "turn_index", "remaining", "target", "range_value",
        "_outcome",
    )

    def __init__(self, rules: Rules, seed: int, decks: tuple[list[int], list[int]]) -> None:
        self.rules = rules
        self.seed = seed
        self.round = 0
        self.phase = COMMIT
        self.decks = [decks[0], decks[1]]  # top card last
        #: per deck: how many of its bottom cards were turned up in a war (everyone saw them)
        self.war_bottom = [0, 0]
        self.hands: list[tuple[int, ...]] = [(), ()]
        self.discard_public: list[list[int]] = [[], []]  # cards everyone has seen
        self.discard_hidden: list[list[int]] = [[], []]  # exchanged hands, never shown
        self.shuffles = [0, 0]
        self.cartouches: list[tuple[int, int, int, int] | None] = [None, None]
        self.revealed = [0, 0]  # how many cartouches (from 1) of each player are face up
        self.exchange_used = [False, False]
        self.scores = [0, 0]
        self.supply = [STONES_PER_PLAYER, STONES_PER_PLAYER]
        self.dead = [0, 0]
        self.retired = [0, 0]  # stones out of the game (only with dead_return_to_supply off)
        self.stones = [0, 0]  # bitmask of each player's stones on the board
        self.first: Player | None = None
        self.active: Player | None = None
        self.turn_index = 0
        self.remaining = 0
        self.target = RED  # whose stones are removed (during a removal)
        self.range_value = 0
        self._outcome: Outcome | None = None

    # ------------------------------------------------------------------ copying

    def copy(self) -> GameState:
        new = GameState.__new__(GameState)
        new.rules = self.rules
        new.seed = self.seed
        new.round = self.round
        new.phase = self.phase
        new.decks = [self.decks[0][:], self.decks[1][:]]
        new.war_bottom = self.war_bottom[:]
        new.hands = self.hands[:]
        new.discard_public = [self.discard_public[0][:], self.discard_public[1][:]]
        new.discard_hidden = [self.discard_hidden[0][:], self.discard_hidden[1][:]]
        new.shuffles = self.shuffles[:]
        new.cartouches = self.cartouches[:]
        new.revealed = self.revealed[:]
        new.exchange_used = self.exchange_used[:]
        new.scores = self.scores[:]
        new.supply = self.supply[:]
        new.dead = self.dead[:]
        new.retired = self.retired[:]
        new.stones = self.stones[:]
        new.first = self.first
        new.active = self.active
        new.turn_index = self.turn_index
        new.remaining = self.remaining
        new.target = self.target
        new.range_value = self.range_value
        new._outcome = self._outcome
        return new

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    def outcome(self) -> Outcome | None:
        """How the game ended (who won, and why); None while it goes on."""
        return self._outcome

    def pending(self) -> tuple[Player, ...]:
        """The players who have a decision to make now (both while committing)."""
        phase = self.phase
        if phase is COMMIT:
            red, blue = self.cartouches
            if red is None:
                return _BOTH if blue is None else _RED_ONLY
            return _BLUE_ONLY if blue is None else ()
        if phase is OVER:
            return ()
        active = self.active
        assert active is not None, "a removal or a placement has an active player"
        return (active,)

    def legal_mask(self) -> int:
        """The squares the active player may choose now (0 outside removal and placement).

        The moves themselves (``legal_moves``, ``_place``, ``_remove``, ``_advance``) spell the
        same two masks out in place: a method call per move is a measurable part of a playout."""
        phase = self.phase
        if phase is REMOVE:
            return self.stones[self.target] & RANGE_MASK[self.range_value]
        if phase is PLACE:
            return ~(self.stones[0] | self.stones[1]) & RANGE_MASK[self.range_value]
        return 0

    def legal_moves(self, player: Player, resign: bool = True) -> list[Move]:
        """Every legal move of ``player`` now; resignation is legal until the game is over."""
        phase = self.phase
        if phase is OVER:
            return []
        moves: list[Move]
        if phase is COMMIT:
            if self.cartouches[player] is None:
                moves = list(commit_moves(self.hands[player]))
                if not self.exchange_used[player]:
                    moves.append(EXCHANGE)
            else:
                moves = []
        elif player is not self.active:
            moves = []
        elif phase is REMOVE:
            moves = remove_moves(self.stones[self.target] & RANGE_MASK[self.range_value])
        else:
            stones = self.stones
            moves = place_moves(~(stones[0] | stones[1]) & RANGE_MASK[self.range_value])
        if resign:
            moves.append(RESIGN)
        return moves

    def owner(self, temple: int, square: int) -> Player | None:
        """Whose stone stands on (temple, square); None: the square is empty."""
        bit = 1 << index_of(temple, square)
        if self.stones[RED] & bit:
            return RED
        if self.stones[BLUE] & bit:
            return BLUE
        return None

    # ------------------------------------------------------------------ moves

    def play(self, player: Player, move: Move, events: list[E.Event] | None = None) -> None:
        """Apply ``move`` by ``player`` in place; append the events caused to ``events``.

        Raises IllegalMove (and leaves the state unchanged) when the move is not legal.
        """
        if self.phase is OVER:
            raise IllegalMove("the game is over")
        if type(move) is Place:  # (moves are final classes; their type is cheaper to test than isinstance)
            self._place(player, move, events)
        elif type(move) is Remove:
            self._remove(player, move, events)
        elif isinstance(move, Commit):
            self._commit(player, move.cards, events)
        elif isinstance(move, Exchange):
            self._exchange(player, events)
        elif isinstance(move, Resign):
            self.forfeit(player, Termination.RESIGN, events)
        else:
            raise IllegalMove(f"unknown move {move!r}")

    def forfeit(self, player: Player, termination: Termination, events: list[E.Event] | None = None) -> None:
        """End the game against ``player``, who gives it up (``termination`` is a forfeit:
        time or abandoning, decided outside the rules, or resigning)."""
        if not termination.is_forfeit:
            raise ValueError(f"{termination!r} is not a forfeit")
        if self.phase is OVER:
            raise IllegalMove("the game is over")
        if termination is Termination.RESIGN and events is not None:
            events.append(E.Resigned(player))
        self._finish(Outcome(termination, player.other), events)

    def _check_committing(self, player: Player, what: str) -> None:
        if self.phase is not COMMIT:
            raise IllegalMove(f"{what} is only possible in the commit phase; {self._whose_decision()}")
        if self.cartouches[player] is not None:
            raise IllegalMove("you have already committed this round")

    def _whose_decision(self) -> str:
        verb = "remove a stone" if self.phase is REMOVE else "place a stone"
        return f"it is {self.active}'s decision to {verb}"

    def _commit(self, player: Player, cards: tuple[int, int, int, int], events: list[E.Event] | None) -> None:
        self._check_committing(player, "committing cards")
        hand = self.hands[player]
        if sorted(cards) != sorted(hand):
            raise IllegalMove(f"{list(cards)} is not a permutation of your hand {sorted(hand)}")
        c1, c2, c3, c4 = cards  # (a tuple of its own, whatever sequence the move held)
        self.cartouches[player] = (c1, c2, c3, c4)
        self.hands[player] = ()
        if events is not None:
            events.append(E.Committed(player))
        if self.cartouches[player.other] is not None:
            self._resolve_round(events)

    def _exchange(self, player: Player, events: list[E.Event] | None) -> None:
        self._check_committing(player, "the exchange")
        if self.exchange_used[player]:
            raise IllegalMove("you have already used your exchange token")
        self.exchange_used[player] = True
        old_hand = self.hands[player]
        if events is not None:
            events.append(E.Exchanged(player))
        if len(self.decks[player]) < HAND_SIZE:
            if self.rules.exchange_reshuffle_excludes_hand:
                self._reshuffle_discards(player, events)
                self.discard_hidden[player].extend(old_hand)
            else:
                self.discard_hidden[player].extend(old_hand)
                self._reshuffle_discards(player, events)
        else:
            self.discard_hidden[player].extend(old_hand)
        self._draw(player, events)

    def _place(self, player: Player, move: Place, events: list[E.Event] | None) -> None:
        index = move.index
        if self.phase is PLACE and player is self.active and index >= 0:
            stones = self.stones
            free = ~(stones[0] | stones[1]) & RANGE_MASK[self.range_value]
            if free >> index & 1:
                bit = 1 << index
                stones[player] |= bit
                self.supply[player] -= 1
                if events is not None:
                    events.append(E.StonePlaced(player, move.temple, move.square))
                self.remaining -= 1
                if self.remaining and self.supply[player] and free ^ bit:
                    return  # the same player places again: nothing automatic can happen
                self._advance(events)
                return
        raise IllegalMove(self._why_illegal(player, move, placing=True))

    def _remove(self, player: Player, move: Remove, events: list[E.Event] | None) -> None:
        index = move.index
        if (self.phase is REMOVE and player is self.active and index >= 0
                and (self.stones[self.target] & RANGE_MASK[self.range_value]) >> index & 1):
            target = self.target
            self.stones[target] ^= 1 << index
            self.dead[target] += 1
            if events is not None:
                events.append(E.StoneRemoved(player, target, move.temple, move.square))
            self.remaining -= 1
            self._advance(events)
            return
        raise IllegalMove(self._why_illegal(player, move, placing=False))

    def _why_illegal(self, player: Player, move: Place | Remove, placing: bool) -> str:
        """The reason, in a player's words, that a legality check of a square move failed."""
        phase = self.phase
        if phase is COMMIT:
            return "it is the commit phase: put your four cards on the cartouches first"
        if player is not self.active:
            return f"it is {self.active}'s decision, not {player}'s"
        if placing and phase is REMOVE:
            return "you must remove a stone before placing"
        if not placing and phase is PLACE:
            return "the removal is over: place a stone"
        temple, square = move.temple, move.square
        if move.index < 0:
            return f"there is no square {square!r} in temple {temple!r} (temples 1–4, squares 0–11)"
        if not 1 << move.index & RANGE_MASK[self.range_value]:
            return f"temple {temple} is outside your range (cartouche 3 shows {self.range_value})"
        if placing:
            return f"square {square} of temple {temple} is occupied"
        target = self.target
        whose = "your own" if target is player else f"{target}'s"
        return f"square {square} of temple {temple} holds none of {whose} stones"

    # ------------------------------------------------------------------ the round

    def _start_round(self, events: list[E.Event] | None) -> None:
        self.round += 1
        self.phase = COMMIT
        self.first = self.active = None
        if events is not None:
            events.append(E.RoundStarted(self.round))
        for p in PLAYERS:
            if not self.decks[p]:
                self._reshuffle_discards(p, events)
            self._draw(p, events)

    def _draw(self, player: Player, events: list[E.Event] | None) -> None:
        deck = self.decks[player]
        hand = tuple(deck[-1:-HAND_SIZE - 1:-1])
        del deck[-HAND_SIZE:]
        self._deck_shrank(player)
        self.hands[player] = hand
        if events is not None:
            events.append(E.CardsDrawn(player, hand))

    def _deck_shrank(self, player: Player) -> None:
        """Cards left the top of ``player``'s deck: the war cards known at its bottom are at most all of it."""
        if self.war_bottom[player] > len(self.decks[player]):
            self.war_bottom[player] = len(self.decks[player])

    def _reshuffle_discards(self, player: Player, events: list[E.Event] | None) -> None:
        cards = self.discard_public[player] + self.discard_hidden[player]
        self.discard_public[player] = []
        self.discard_hidden[player] = []
        self._new_deck(player, cards, events)

    def _new_deck(self, player: Player, cards: list[int], events: list[E.Event] | None) -> None:
        self.shuffles[player] += 1
        deck = shuffled(cards, self.seed, player, self.shuffles[player])  # top card first
        deck.reverse()
        self.decks[player] = deck
        self.war_bottom[player] = 0
        if events is not None:
            events.append(E.DeckShuffled(player, len(cards)))

    def _reveal(self, player: Player, cartouches: range, events: list[E.Event] | None) -> None:
        self.revealed[player] = cartouches.stop
        if events is not None:
            cards = self.cartouches[player]
            assert cards is not None, "only committed cards are revealed"
            for c in cartouches:
                events.append(E.CardRevealed(player, c + 1, cards[c]))

    def _resolve_round(self, events: list[E.Event] | None) -> None:
        """Both have committed: cartouche 1 (points), cartouche 2 (order), then the first turn."""
        red, blue = self.cartouches
        assert red is not None and blue is not None, "a round is resolved once both have committed"
        for p in PLAYERS:
            self._reveal(p, _C1, events)
        diff = red[0] - blue[0]
        if diff:
            scorer = RED if diff > 0 else BLUE
            points = 2 * abs(diff)
            self.scores[scorer] += points
            if events is not None:
                events.append(E.PointsScored(
                    scorer, points, max(red[0], blue[0]), min(red[0], blue[0]),
                    self.scores[scorer]))
            if self.scores[scorer] >= WINNING_SCORE:
                self._finish(Outcome(Termination.POINTS, scorer), events)
                return
        for p in PLAYERS:
            self._reveal(p, _C2, events)
        if red[1] != blue[1]:
            first, reason, values = (RED if red[1] < blue[1] else BLUE), "cartouche2", (red[1], blue[1])
        elif red[0] != blue[0]:
            first, reason, values = (RED if red[0] < blue[0] else BLUE), "cartouche1", (red[0], blue[0])
        else:
            first, values = self._war(events)
            reason = "war"
        self.first = first
        if events is not None:
            events.append(E.TurnOrderDecided(first, reason, *values))
        self.turn_index = 0
        self._start_turn(first, events)
        self._advance(events)

    def _war(self, events: list[E.Event] | None) -> tuple[Player, tuple[int, int]]:
        """Turn up deck tops until they differ; the cards go back under their decks."""
        turned: tuple[list[int], list[int]] = ([], [])
        while True:
            for p in PLAYERS:
                if not self.decks[p]:
                    if self.discard_public[p] or self.discard_hidden[p]:
                        self._reshuffle_discards(p, events)
                    else:  # the freak case: only the turned-up cards are left
                        self._new_deck(p, turned[p], events)
                        turned[p].clear()
                turned[p].append(self.decks[p].pop())
                self._deck_shrank(p)
            red, blue = turned[0][-1], turned[1][-1]
            if events is not None:
                events.append(E.WarCardsTurned(red, blue))
            if red != blue:
                break
        for p in PLAYERS:
            self.decks[p][:0] = turned[p][::-1]  # the first card turned up lies above the later ones
            self.war_bottom[p] += len(turned[p])
        if events is not None:
            events.append(E.WarCardsReturned(tuple(turned[0]), tuple(turned[1])))
        return (RED if red < blue else BLUE), (red, blue)

    def _start_turn(self, player: Player, events: list[E.Event] | None) -> None:
        self.active = player
        other = player.other
        if self.turn_index == 0 and not self.rules.hide_second_player_until_turn:
            for p in (player, other):
                self._reveal(p, _C3_C4, events)
        elif self.revealed[player] < 4:
            self._reveal(player, _C3_C4, events)
        cards = self.cartouches[player]
        assert cards is not None, "a turn starts after both have committed"
        _, c2, c3, c4 = cards
        removal = c2 - 2
        self.range_value = c3
        if events is not None:
            events.append(E.TurnStarted(player, c3, 0 if self.round == 1 else removal, c4))
        if self.round == 1:
            if removal and events is not None:
                events.append(E.RemovalSkipped(player, removal))
            removal = 0
        self.phase = REMOVE
        if removal >= 0:
            self.target, self.remaining = other, removal
        else:
            self.target, self.remaining = player, 1

    def _advance(self, events: list[E.Event] | None) -> None:
        """Run the automatic steps until a player has a real choice or the game is over."""
        while True:
            player = self.active
            assert player is not None, "automatic steps belong to a player's turn"
            if self.phase is REMOVE:
                if self.remaining > 0:
                    if self.stones[self.target] & RANGE_MASK[self.range_value]:
                        return
                    if events is not None:
                        events.append(E.RemovalLapsed(player, self.remaining))
                cards = self.cartouches[player]
                assert cards is not None, "a turn is played with committed cards"
                self.phase = PLACE
                self.remaining = cards[3]
            if self.remaining > 0:
                if self.supply[player] == 0:
                    if events is not None:
                        events.append(E.PlacementLapsed(player, self.remaining))
                elif ~(self.stones[0] | self.stones[1]) & RANGE_MASK[self.range_value]:
                    return  # a square to place on: the player chooses
                else:
                    sent = min(self.remaining, self.supply[player])
                    self.supply[player] -= sent
                    self.dead[player] += sent
                    if events is not None:
                        events.append(E.StonesToKingdom(player, sent))
                        if sent < self.remaining:  # the supply ran dry as well
                            events.append(E.PlacementLapsed(player, self.remaining - sent))
                self.remaining = 0
            if self._check_area_win(player, events):
                return
            if self.turn_index == 0:
                self.turn_index = 1
                self._start_turn(player.other, events)
            else:
                self._end_round(events)
                return

    def _check_area_win(self, player: Player, events: list[E.Event] | None) -> bool:
        own = self.stones[player]
        for termination, mask in _AREA_WINS:
            if own & mask == mask:
                self._finish(Outcome(termination, player), events)
                return True
        return False

    def _end_round(self, events: list[E.Event] | None) -> None:
        for p, cards in zip(PLAYERS, self.cartouches, strict=True):
            assert cards is not None, "a round ends with both players' cards on their cartouches"
            self.discard_public[p].extend(cards)
        self.cartouches = [None, None]  # the cards are in the discard piles now
        self.revealed = [0, 0]
        self.active = None
        if self.dead[0] + self.dead[1] >= KINGDOM_CAPACITY:
            self._scoring_round(events)
            if self.phase is OVER:
                return
        if self.round >= self.rules.max_rounds:
            self._finish_on_points(Termination.ROUND_LIMIT, events)
            return
        self._start_round(events)

    # ------------------------------------------------------------------ scoring

    def _scoring_round(self, events: list[E.Event] | None) -> None:
        red, blue = self.stones
        if events is not None:
            events.append(E.ScoringStarted(self.dead[0] + self.dead[1]))
        for category, title, mask, award in _CATEGORIES:
            counts = ((red & mask).bit_count(), (blue & mask).bit_count())
            if counts[0] != counts[1]:
                leader = RED if counts[RED] > counts[BLUE] else BLUE
                points = [0, 0]
                points[leader] = award(self.stones[leader], counts[leader], counts[leader.other])
            elif counts[0] and not self.rules.scoring_tie_nobody_scores:
                points = [award(self.stones[p], counts[p], counts[p.other]) for p in PLAYERS]
            else:
                points = [0, 0]
            self._score_category(category, title, counts, points, events)
        bonus = [
            (s & BONUS1_MASK).bit_count() + 2 * (s & BONUS2_MASK).bit_count() for s in self.stones
        ]
        self._score_category(6, "bonus squares", (
            (red & (BONUS1_MASK | BONUS2_MASK)).bit_count(),
            (blue & (BONUS1_MASK | BONUS2_MASK)).bit_count()), bonus, events)
        returned = self.dead[:]
        if self.rules.dead_return_to_supply:
            self.supply = [self.supply[p] + returned[p] for p in PLAYERS]
        else:
            self.retired = [self.retired[p] + returned[p] for p in PLAYERS]
        self.dead = [0, 0]
        if events is not None:
            events.append(E.StonesReturned(returned[0], returned[1], self.rules.dead_return_to_supply))
        if max(self.scores) >= WINNING_SCORE and (self.scores[0] != self.scores[1] or self.rules.equal_points_draw):
            self._finish_on_points(Termination.SCORING, events)

    def _score_category(self, category: int, title: str, counts: tuple[int, int], points: list[int],
                        events: list[E.Event] | None) -> None:
        self.scores[0] += points[0]
        self.scores[1] += points[1]
        if events is not None:
            events.append(E.CategoryScored(category, title, counts[0], counts[1], points[0], points[1]))

    def _finish_on_points(self, termination: Termination, events: list[E.Event] | None) -> None:
        red, blue = self.scores
        self._finish(Outcome(termination, None if red == blue else RED if red > blue else BLUE), events)

    def _finish(self, outcome: Outcome, events: list[E.Event] | None) -> None:
        self.phase = OVER
        self._outcome = outcome
        self.active = None
        self.remaining = 0
        if events is not None:
            events.append(E.GameOver(outcome.winner, outcome.termination, self.scores[0], self.scores[1]))


# category number, title, the squares compared, points to the holder of the majority
# (as a function of the holder's stones, its count and the opponent's count)
_CATEGORIES: tuple[tuple[int, str, int, Callable[[int, int, int], int]], ...] = (
    (1, "temple 1", TEMPLE_MASK[1], lambda own, mine, theirs: mine - theirs),
    (2, "temple 2", TEMPLE_MASK[2], lambda own, mine, theirs: 5),
    (3, "temple 3", TEMPLE_MASK[3], lambda own, mine, theirs: mine),
    (4, "temple 4", TEMPLE_MASK[4], lambda own, mine, theirs: 3 * (own & BLUE_MASK).bit_count()),
    (5, "black squares", BLACK_MASK, lambda own, mine, theirs: 8),
)


def new_game(
    seed: int,
    decks: tuple[Sequence[int], Sequence[int]] | None = None,
    rules: Rules = DEFAULT_RULES,
) -> tuple[GameState, list[E.Event]]:
    """Start a game: decks from ``decks`` (red's then blue's, top card first) or from the seed.

    Returns the state at the first commit and the events of the opening draw.
    """
    if decks is None:
        top_first = (starting_deck(seed, RED), starting_deck(seed, BLUE))
    else:
        top_first = (check_deck(decks[RED]), check_deck(decks[BLUE]))
    state = GameState(rules, seed, (list(reversed(top_first[0])), list(reversed(top_first[1]))))
    events: list[E.Event] = []
    state._start_round(events)
    return state, events


def apply(state: GameState, player: Player, move: Move) -> tuple[GameState, list[E.Event]]:
    """The state after ``player`` plays ``move``, and the events it caused (``state`` is unchanged)."""
    new = state.copy()
    events: list[E.Event] = []
    new.play(player, move, events)
    return new, events


def decision_sentence(state: GameState, player: Player) -> str | None:
    """The decision ``player`` faces now, in one plain sentence (None: nothing to decide)."""
    phase = state.phase
    if phase is OVER:
        return None
    if phase is COMMIT:
        if state.cartouches[player] is not None:
            return None
        return "Put one card on each of your four cartouches"
    if player is not state.active:
        return None
    temples = describe_temples(state.range_value)
    n = state.remaining
    stones = "stone" if n == 1 else "stones"
    if phase is REMOVE:
        if state.target is player:
            return f"Remove one of your own stones from {temples}"
        return f"Remove {n} of {str(state.target).capitalize()}'s stones from {temples}"
    return f"Place {n} {stones} in {temples}"
