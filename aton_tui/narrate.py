"""Events told in plain language, with the reason for what happened.

``narrate(events, seat)`` turns the events of one update — the engine's
(``aton.events``, imported as ``E``) and the arbiter's (``protocol.events``, as
``A``), as a client decodes them — into log lines.  Both
players' reveals of the same cartouche become one line ("Cartouche 2 (order):
red 1, blue 3"), so that a round reads like a story rather than a dump.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from aton import events as E
from aton.board import LAYOUT, describe_temples
from aton.moves import Commit, Exchange, Move, Place, Remove
from aton.outcome import Outcome, Termination
from aton.players import BLUE, RED, Player
from protocol import events as A
from protocol.game_frames import GameEvent, rating_text

CARTOUCHE_ROLES = {1: "points", 2: "order and removal", 3: "range", 4: "placement"}

#: Why the winner won, after "Red wins: " ({loser}: the other player's colour).
REASONS = {
    Termination.POINTS: "reached 40 points with cartouche 1",
    Termination.TEMPLE: "filled a whole temple",
    Termination.YELLOW: "holds all 14 yellow squares",
    Termination.GREEN: "holds all 14 green squares",
    Termination.SCORING: "more points when a scoring round reached 40",
    Termination.ROUND_LIMIT: "has more points at the round limit",
    Termination.RESIGN: "{loser} resigned",
    Termination.TIME: "{loser} ran out of time",
    Termination.ABANDONED: "{loser} left the game",
}
_ACTIONS = {"commit": "committing", "open": "opening the commitment", "move": "moving"}


def player_name(seat: object | None) -> str:
    """"Red", "Blue" ("?" for nobody); a seat of either game's engine."""
    return "?" if seat is None else str(seat).capitalize()


def square_name(temple: int, square: int) -> str:
    """'temple 2, black square' or 'temple 4, +2 square'."""
    kind = LAYOUT[temple - 1][square]
    return f"temple {temple}, {kind.value} square"


def move_words(move: Move) -> str:
    """A move in the log's words: 'cards 3-1-4-2' (cartouches 1 to 4), 'exchange', 'temple 2,
    black square' (the square placed on or removed from), 'resign'."""
    match move:
        case Commit(cards):
            return "cards " + "-".join(str(card) for card in cards)
        case Exchange():
            return "exchange"
        case Place(temple, square) | Remove(temple, square):
            return square_name(temple, square)
    return "resign"


def stones(n: int) -> str:
    return f"{n} stone" if n == 1 else f"{n} stones"


def result_sentence(outcome: Outcome) -> str:
    """'Red wins: filled a whole temple.' or 'A draw: equal points.'"""
    winner = outcome.winner
    if winner is None:
        at_the_limit = outcome.termination is Termination.ROUND_LIMIT
        return "A draw at the round limit." if at_the_limit else "A draw: equal points."
    reason = REASONS[outcome.termination].format(loser=player_name(winner.other))
    return f"{player_name(winner)} wins: {reason}."


def narrate(events: Iterable[GameEvent], seat: Player | None) -> Iterator[str]:
    """Log lines for ``events`` as the receiver in ``seat`` (None: a spectator) saw them."""
    reveals: list[E.CardRevealed] = []
    for event in events:
        if isinstance(event, E.CardRevealed):
            if reveals and reveals[0].cartouche != event.cartouche:
                yield _reveals(reveals)
                reveals = []
            reveals.append(event)
            continue
        if reveals:
            yield _reveals(reveals)
            reveals = []
        line = _line(event, seat)
        if line:
            yield line
    if reveals:
        yield _reveals(reveals)


def _reveals(reveals: list[E.CardRevealed]) -> str:
    number = reveals[0].cartouche
    shown = ", ".join(f"{player_name(e.player)} {e.value}" for e in reveals)
    line = f"Cartouche {number} ({CARTOUCHE_ROLES[number]}): {shown}"
    if number == 1 and len(reveals) == 2 and reveals[0].value == reveals[1].value:
        line += " — equal, nobody scores"
    return line + "."


def is_receiver(player: object, seat: object | None) -> bool:
    """Whether ``player`` is the receiver's seat (seats of either game's engine, by their wire name)."""
    return seat is not None and str(player) == str(seat)


def does(player: object, seat: object | None, you: str, they: str) -> str:
    """The subject and its verb, the receiver as "you": 'You place' or 'Red places'."""
    return f"You {you}" if is_receiver(player, seat) else f"{player_name(player)} {they}"


def whose(owner: object, seat: object | None) -> str:
    """'your' (the receiver's) or 'Red's'; capitalise it to begin a sentence."""
    return "your" if is_receiver(owner, seat) else f"{player_name(owner)}'s"


def _owner(player: Player, owner: Player, seat: Player | None) -> str:
    """Whose stone ``player`` removes: 'your own', 'their own', 'your' or "Blue's"."""
    if owner is player:
        return "your own" if player is seat else "their own"
    return whose(owner, seat)


def _turn_started(e: E.TurnStarted, seat: Player | None) -> str:
    yours = e.player is seat  # the receiver's own turn reads as instructions: "remove 2 …, place 3 …"
    if e.removal > 0:
        takes = f"remove{'' if yours else 's'} {e.removal} of {whose(e.player.other, seat)} stones"
    elif e.removal < 0:
        own = "your" if yours else "their"
        takes = f"remove{'' if yours else 's'} one of {own} own stones (cartouche 2 is a 1)"
    else:
        takes = f"remove{'' if yours else 's'} nothing"
    return (f"{whose(e.player, seat).capitalize()} turn: range {describe_temples(e.range)} (cartouche 3), "
            f"{takes}, place{'' if yours else 's'} {stones(e.placement)} (cartouche 4).")


def _turn_order(e: E.TurnOrderDecided, seat: Player | None) -> str:
    who = does(e.first, seat, "play", "plays")
    values = f"Red {e.red}, Blue {e.blue}"
    if e.reason == "cartouche2":
        return f"{who} first: lower cartouche 2 ({values})."
    if e.reason == "cartouche1":
        return f"{who} first: cartouche 2 is a tie, lower cartouche 1 ({values})."
    return f"{who} first: lower war card ({values})."


def _timed_out(e: A.TimedOut, seat: Player | None) -> str:
    ran_out = f"{whose(e.player, seat).capitalize()} time ran out while {_ACTIONS.get(e.action, e.action)}"
    if e.forfeit:
        loses = "you lose" if e.player is seat else f"{player_name(e.player)} loses"
        return f"{ran_out} (strike {e.strikes}): {loses} on time."
    return f"{ran_out}: a default move was played (strike {e.strikes})."


def _stones_to_kingdom(e: E.StonesToKingdom, seat: Player | None) -> str:
    moved = "stone goes" if e.count == 1 else f"{e.count} stones go"
    return f"No empty square in range: {whose(e.player, seat)} {moved} to the Kingdom of the Dead."


def _line(event: GameEvent, seat: Player | None) -> str | None:
    match event:
        case E.RoundStarted(round=number):
            return f"── Round {number} ──"
        case E.DeckShuffled(player, size):
            return f"{does(player, seat, 'shuffle', 'shuffles')} {size} cards into a new deck."
        case E.CardsDrawn(player, cards):
            if cards:  # ours, or anyone's in a finished game's replay that shows everything
                drawn = " ".join(str(c) for c in sorted(cards))
                return f"{does(player, seat, 'draw', 'draws')} {drawn}."
            return None if player is seat else f"{player_name(player)} draws 4 cards."
        case E.Exchanged(player):
            return f"{does(player, seat, 'spend', 'spends')} the exchange token: 4 new cards."
        case A.Committed(player):
            return f"{does(player, seat, 'have', 'has')} committed (the cards stay hidden)."
        case A.OpenRequested():
            return "Both have committed: the cartouches are opened."
        case A.Opened():
            return None  # the client opens by itself: open_requested said it, the reveals show it
        case E.PointsScored(player, points, higher, lower, total):
            return (f"{does(player, seat, 'score', 'scores')} {points}: cartouche 1 shows {higher} against {lower} "
                    f"(2 × the difference), now {total}.")
        case E.WarCardsTurned(red, blue):
            return f"War! Cartouches 1 and 2 tie; deck tops turned up: Red {red}, Blue {blue}."
        case E.TurnOrderDecided():
            return _turn_order(event, seat)
        case E.WarCardsReturned():
            return "The war cards go back under their decks."
        case E.TurnStarted():
            return _turn_started(event, seat)
        case E.RemovalSkipped():
            return "No stones are removed in the first round."
        case E.StoneRemoved(player, owner, temple, square):
            return (f"{does(player, seat, 'remove', 'removes')} {_owner(player, owner, seat)} stone "
                    f"from {square_name(temple, square)} → Kingdom of the Dead.")
        case E.RemovalLapsed(player, count):
            lapses = "removal lapses" if count == 1 else "removals lapse"
            return f"{does(player, seat, 'find', 'finds')} no more stones to remove: {count} {lapses}."
        case E.StonePlaced(player, temple, square):
            return f"{does(player, seat, 'place', 'places')} a stone on {square_name(temple, square)}."
        case E.StonesToKingdom():
            return _stones_to_kingdom(event, seat)
        case E.PlacementLapsed(player, count):
            return f"{whose(player, seat).capitalize()} supply is empty: {stones(count)} cannot be placed."
        case E.ScoringStarted(dead):
            return f"The Kingdom of the Dead holds {dead} stones: a scoring round!"
        case E.CategoryScored():
            return category_line(event)
        case E.StonesReturned(red, blue, to_supply):
            where = "to their supplies" if to_supply else "out of the game"
            return f"The stones in the Kingdom go back {where} (Red {red}, Blue {blue})."
        case E.Resigned(player):
            return f"{does(player, seat, 'resign', 'resigns')}."
        case E.GameOver():
            return (f"Game over. {result_sentence(event.outcome)} "
                    f"Final score: Red {event.red_score}, Blue {event.blue_score}.")
        case A.TimedOut():
            return _timed_out(event, seat)
        case A.Disconnected(player, grace_s):
            return f"{does(player, seat, 'lost', 'lost')} the connection; the seat is kept for {int(grace_s)} s."
        case A.Reconnected(player):
            return f"{does(player, seat, 'are', 'is')} back."
        case A.ChatSaid(name=name, text=text):
            return f"{name}: {text}"
        case A.ChatHidden():
            return None  # a line of a player the receiver muted: the point is to see nothing of it
        case A.RematchOffered(player):
            return f"{does(player, seat, 'offer', 'offers')} a rematch."
        case A.RematchDeclined(player):
            return f"{does(player, seat, 'decline', 'declines')} the rematch."
        case A.RematchStarted():
            return "The rematch begins, with the colours swapped."
        case A.RatingChanged(player, before, after, provisional):
            return (f"{whose(player, seat).capitalize()} rating: {before} → {rating_text(after, provisional)} "
                    f"({rating_change(before, after)}).")
        case A.ClockResumed(player, pause_left_s=0):  # stopping and starting again go untold
            return (f"{whose(player, seat).capitalize()} time to pause is used up: "
                    "the clock runs on, help and dialogs or not.")
    return None  # an event nobody tells: a newer server's (UnknownEvent), or the engine's own Committed


def rating_change(before: int, after: int) -> str:
    """A rating's change as players read it: "+12", "−9" (a minus sign), "±0"."""
    change = after - before
    return f"+{change}" if change > 0 else f"−{-change}" if change < 0 else "±0"


def category_line(e: E.CategoryScored) -> str:
    """One category of a scoring round: 'Temple 2: Red 4, Blue 2 → Red +5'."""
    title = e.title[0].upper() + e.title[1:]
    gains = [f"{player_name(seat)} +{points}" for seat, points in ((RED, e.red_points), (BLUE, e.blue_points))
             if points]
    outcome = ", ".join(gains) if gains else "nobody scores"
    return f"{title}: Red {e.red_count}, Blue {e.blue_count} → {outcome}."
