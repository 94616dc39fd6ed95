"""The events of Atlas & Zeus told in plain language, one line each, the receiver as "you".

``narrate(events, seat)`` tells the engine's events (``atlas_zeus.events``, imported as
``Z``) and leaves the arbiter's (chat, clocks, connections, rematches: ``protocol.events``)
to the Aton client's narration, which tells them the same way for every game.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from atlas_zeus import events as Z
from atlas_zeus.cards import Card
from atlas_zeus.outcome import Outcome, Termination
from atlas_zeus.players import strength_of
from atlas_zeus.views import View
from protocol import events as A
from protocol.game_frames import GameEvent

from .. import narrate as aton_words
from ..narrate import does, player_name, whose

#: Why the winner won, after "Red wins: " ({loser}: the other clan's colour).
REASONS = {
    Termination.ELIMINATED: "the last clan with a survivor",
    Termination.RESIGN: "{loser} resigned",
    Termination.TIME: "{loser} ran out of time",
    Termination.ABANDONED: "{loser} left the game",
}
#: A draw, by its reason.
DRAWS = {
    Termination.BOTH_ELIMINATED: "A draw: both clans died at once.",
    Termination.ROUND_LIMIT: "A draw at the round limit.",
}
ROLES = {40: "priest", 30: "lord", 20: "soldier"}
#: What a card did, after the person or island ("dies on island 7 …")
BY_CARD = {"crab": "to a Crab", "harpoon": "to a Harpoon", "volcano": "in the lava", "sinking": "as the island sinks"}
MARKERS = {"net": "net", "turtle": "turtle", "pilehouse": "pilehouse"}


def result_sentence(outcome: Outcome) -> str:
    """'Red wins: the last clan with a survivor.' or 'A draw: both clans died at once.'"""
    if outcome.winner is None:
        return DRAWS.get(outcome.termination, "A draw.")
    reason = REASONS.get(outcome.termination, "").format(loser=player_name(outcome.winner.other))
    return f"{player_name(outcome.winner)} wins: {reason}."


def situation(view: View) -> str:
    """Who does what now, in a live game or a replay: "Blue is programming", "Red decides on
    Harpoon (slot 3)", "Resolving" (no one to wait for: the cards resolve by themselves)."""
    if view.phase == "program":
        return f"{player_name(view.pending[0])} is programming" if view.pending else "Programming"
    if view.pending:
        card = next((title(e.card) for e in view.track if view.resolving is not None
                     and int(e.slot) == int(view.resolving) and e.card is not None), "a card")
        return f"{player_name(view.pending[0])} decides on {card} (slot {view.resolving})"
    return "Resolving"


def title(card: object) -> str:
    return Card(str(card)).title


def person_words(person: str, seat: object | None) -> str:
    """'your lord R3' or "Blue's priest B1"."""
    owner = "red" if person.startswith("R") else "blue"
    return f"{whose(owner, seat)} {ROLES.get(strength_of(person), 'person')} {person}"


def sentence(text: str) -> str:
    """``text`` with its first letter a capital (and nothing else changed: "B4" stays)."""
    return text[:1].upper() + text[1:]


def narrate(events: Iterable[GameEvent], seat: object | None) -> Iterator[str]:
    """Log lines for ``events`` as the receiver in ``seat`` (None: a spectator) saw them."""
    for event in events:
        line = _line(event, seat) if isinstance(event, Z.Event) else _arbiter(event, seat)
        if line:
            yield line


def _arbiter(event: GameEvent, seat: object | None) -> str | None:
    match event:
        case A.Committed(player):
            return f"{does(player, seat, 'have', 'has')} programmed (the cards stay face down)."
        case A.OpenRequested():
            return "Both have programmed: the programmings are opened."
    return next(iter(aton_words.narrate([event], seat)), None)  # type: ignore[arg-type]


def _programmed(e: Z.Programmed, seat: object | None) -> str:
    slots = ", ".join(str(s) for s in e.slots)
    if e.cards:
        cards = ", ".join(f"{title(c)} on {s}" for s, c in zip(e.slots, e.cards, strict=False))
        up = " face up (Open hand)" if e.face_up else ""
        return f"{does(e.player, seat, 'program', 'programs')}{up}: {cards}."
    return f"{does(e.player, seat, 'program', 'programs')} slots {slots}, face down."


def _line(event: Z.Event, seat: object | None) -> str | None:
    match event:
        case Z.RoundStarted(number, initiative):
            return f"── Round {number}: {player_name(initiative)} has the initiative ──"
        case Z.Programmed():
            return _programmed(event, seat)
        case Z.CardTurned(slot, player, card):
            return f"Slot {slot}: {whose(player, seat)} {title(card)}."
        case Z.CardWithoutEffect(slot, player, card, why):
            cause = "it is fogged" if why == "fogged" else "it has no target"
            return f"{sentence(whose(player, seat))} {title(card)} on slot {slot} is discarded: {cause}."
        case Z.PersonMoved(person, from_island, to_island, by):
            how = "escapes the lava" if by == "volcano" else f"moves ({title(by)})"
            return (f"{sentence(person_words(person, seat))} {how} from island {from_island} "
                    f"to island {to_island}.")
        case Z.PersonDied(person, island, by):
            return f"{sentence(person_words(person, seat))} dies on island {island} {BY_CARD.get(by, '')}.".replace(
                " .", ".")
        case Z.IslandSank(island):
            return f"Island {island} sinks."
        case Z.IslandErupted(island, player):
            return f"{does(player, seat, 'erupt', 'erupts')} volcanic island {island}: it leaves the ring."
        case Z.FloodMoved(from_island, to_island, by):
            cause = f" ({title(by)})" if by in ("surge", "flood") else ""
            return f"The flood marker moves from island {from_island} to island {to_island}{cause}."
        case Z.MarkerPlaced(player, marker, island, person):
            if marker == "turtle" and person is not None:
                return f"{sentence(person_words(person, seat))} becomes a turtle."
            return f"{does(player, seat, 'put', 'puts')} a {MARKERS.get(marker, marker)} on island {island}."
        case Z.MarkerReturned(player, marker, island, person, why):
            where = f"island {island}" if island is not None else f"{person}"
            return f"{sentence(whose(player, seat))} {MARKERS.get(marker, marker)} comes back ({where} {why})."
        case Z.OpenHandPlayed(player, _):
            return f"{does(player, seat, 'program', 'programs')} face up next time (Open hand)."
        case Z.Weakened(player):
            return (f"{sentence(whose(player, seat))} people count as strength 10 for Crab until the round "
                    "ends (Weakness).")
        case Z.CardsDrawn(player, count, cards):
            if cards:  # the receiver's own, or everything shown in a replay
                return f"{does(player, seat, 'draw', 'draws')} {', '.join(title(c) for c in cards)}."
            return f"{does(player, seat, 'draw', 'draws')} {count} card{'s' if count != 1 else ''}."
        case Z.PileReshuffled(player, size, by):
            how = "both piles together (Reshuffle)" if by == "reshuffle" else "the discard pile into a new draw pile"
            return f"{does(player, seat, 'shuffle', 'shuffles')} {how}: {size} cards."
        case Z.InitiativePassed(player):
            return f"The initiative passes to {player_name(player)}."
        case Z.GameOver():
            return f"Game over. {result_sentence(event.outcome)}"
    return None
