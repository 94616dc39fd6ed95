"""Events told in plain language, with the reason for what happened.

``narrate(events, seat)`` turns the events of one update into log lines.  Both
players' reveals of the same cartouche become one line ("Cartouche 2 (order):
red 1, blue 3"), so that a round reads like a story rather than a dump.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from aton.board import LAYOUT, describe_temples
from aton.outcome import Outcome, Termination
from aton.players import PLAYERS, Player

CARTOUCHE_ROLES = {1: "points", 2: "order and removal", 3: "range", 4: "placement"}

#: Why the winner won, after "Red wins: ".
REASONS = {
    Termination.POINTS: "reached 40 points with cartouche 1",
    Termination.TEMPLE: "filled a whole temple",
    Termination.YELLOW: "holds all 14 yellow squares",
    Termination.GREEN: "holds all 14 green squares",
    Termination.SCORING: "has more points after a scoring round reached 40",
    Termination.ROUND_LIMIT: "has more points at the round limit",
    Termination.RESIGN: "won by resignation",
    Termination.TIME: "won on time",
    Termination.ABANDONED: "won: the opponent left the game",
}
_ACTIONS = {"commit": "committing", "open": "opening the commitment", "move": "moving"}


def player_name(seat: Player | str | None) -> str:
    """"Red", "Blue" ("?" for nobody); events still name players by their wire form."""
    return "?" if seat is None else str(seat).capitalize()


def square_name(temple: int, square: int) -> str:
    """'temple 2, black square' or 'temple 4, +2 square'."""
    kind = LAYOUT[temple - 1][square]
    return f"temple {temple}, {kind.value} square"


def stones(n: int) -> str:
    return f"{n} stone" if n == 1 else f"{n} stones"


def result_sentence(outcome: Outcome) -> str:
    """'Red wins: filled a whole temple.' or 'A draw: equal points.'"""
    if outcome.is_draw:
        at_the_limit = outcome.termination is Termination.ROUND_LIMIT
        return "A draw at the round limit." if at_the_limit else "A draw: equal points."
    return f"{player_name(outcome.winner)} wins: {REASONS[outcome.termination]}."


def narrate(events: Iterable[dict], seat: Player | None) -> Iterator[str]:
    """Log lines for ``events`` as the receiver in ``seat`` (None: a spectator) saw them."""
    reveals: list[dict] = []
    for event in events:
        if event.get("type") == "card_revealed":
            if reveals and reveals[0]["cartouche"] != event["cartouche"]:
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


def _reveals(reveals: list[dict]) -> str:
    number = reveals[0]["cartouche"]
    shown = ", ".join(f"{player_name(e['player'])} {e['value']}" for e in reveals)
    line = f"Cartouche {number} ({CARTOUCHE_ROLES[number]}): {shown}"
    if number == 1 and len(reveals) == 2 and reveals[0]["value"] == reveals[1]["value"]:
        line += " — equal, nobody scores"
    return line + "."


def _turn_started(e: dict) -> str:
    who = player_name(e["player"])
    removal = e["removal"]
    if removal > 0:
        takes = f"removes {removal} of {player_name(Player.parse(e['player']).other)}'s stones"
    elif removal < 0:
        takes = "removes one of their own stones (cartouche 2 is a 1)"
    else:
        takes = "removes nothing"
    return (f"{who}'s turn: range {describe_temples(e['range'])} (cartouche 3), {takes}, "
            f"places {stones(e['placement'])} (cartouche 4).")


def _turn_order(e: dict) -> str:
    who = player_name(e["first"])
    values = f"Red {e['red']}, Blue {e['blue']}"
    if e["reason"] == "cartouche2":
        return f"{who} plays first: lower cartouche 2 ({values})."
    if e["reason"] == "cartouche1":
        return f"{who} plays first: cartouche 2 is a tie, lower cartouche 1 ({values})."
    return f"{who} plays first: lower war card ({values})."


def _line(e: dict, seat: Player | None) -> str | None:
    kind = e.get("type")
    who = player_name(e.get("player"))
    if kind == "round_started":
        return f"── Round {e['round']} ──"
    if kind == "deck_shuffled":
        return f"{who} shuffles {e['size']} cards into a new deck."
    if kind == "cards_drawn":
        if e.get("cards"):
            return "You draw " + " ".join(str(c) for c in sorted(e["cards"])) + "."
        return None if seat is not None and e.get("player") == str(seat) else f"{who} draws 4 cards."
    if kind == "exchanged":
        return f"{who} spends the exchange token: 4 new cards."
    if kind == "committed":
        return f"{who} has committed (the cards stay hidden)."
    if kind == "open_requested":
        return "Both have committed: the cartouches are opened."
    if kind == "opened":
        return None  # the client opens by itself: open_requested said it, the reveals show it
    if kind == "points_scored":
        return (f"{who} scores {e['points']}: cartouche 1 {e['higher']} beats {e['lower']} "
                f"(2 × the difference) — now {e['total']}.")
    if kind == "war_cards_turned":
        return f"War! Cartouches 1 and 2 tie; deck tops turned up: Red {e['red']}, Blue {e['blue']}."
    if kind == "turn_order_decided":
        return _turn_order(e)
    if kind == "war_cards_returned":
        return "The war cards go back under their decks."
    if kind == "turn_started":
        return _turn_started(e)
    if kind == "removal_skipped":
        return "No stones are removed in the first round."
    if kind == "stone_removed":
        whose = "own" if e["owner"] == e["player"] else f"{player_name(e['owner'])}'s"
        return f"{who} removes {whose} stone from {square_name(e['temple'], e['square'])} → Kingdom of the Dead."
    if kind == "removal_lapsed":
        return f"{who} finds no more stones to remove: {e['count']} removal lapses."
    if kind == "stone_placed":
        return f"{who} places a stone on {square_name(e['temple'], e['square'])}."
    if kind == "stones_to_kingdom":
        return f"No empty square in range: {stones(e['count'])} of {who} go to the Kingdom of the Dead."
    if kind == "placement_lapsed":
        return f"{who}'s supply is empty: {stones(e['count'])} cannot be placed."
    if kind == "scoring_started":
        return f"The Kingdom of the Dead holds {e['dead']} stones: a scoring round!"
    if kind == "category_scored":
        return category_line(e)
    if kind == "stones_returned":
        where = "to their supplies" if e["to_supply"] else "out of the game"
        return f"The stones in the Kingdom go back {where} (Red {e['red']}, Blue {e['blue']})."
    if kind == "resigned":
        return f"{who} resigns."
    if kind == "game_over":
        outcome = Outcome(Termination(e["reason"]), Player.parse_optional(e.get("winner")))
        return (f"Game over. {result_sentence(outcome)} "
                f"Final score: Red {e['red_score']}, Blue {e['blue_score']}.")
    if kind == "timeout":
        ran_out = f"{who}'s time ran out while {_ACTIONS.get(e['action'], e['action'])}"
        if e.get("forfeit"):
            return f"{ran_out} (strike {e['strikes']}): {who} loses on time."
        return f"{ran_out}: a default move was played (strike {e['strikes']})."
    if kind == "disconnected":
        return f"{who} lost the connection; the seat is kept for {int(e['grace_s'])} s."
    if kind == "reconnected":
        return f"{who} is back."
    if kind == "chat":
        return f"{e['name']}: {e['text']}"
    if kind == "rematch_offered":
        return f"{who} offers a rematch."
    if kind == "rematch_declined":
        return f"{who} declines the rematch."
    if kind == "rematch_started":
        return "The rematch begins, with the colours swapped."
    return None


def category_line(e: dict) -> str:
    """One category of a scoring round: 'Temple 2: Red 4, Blue 2 → Red +5'."""
    title = e["title"][0].upper() + e["title"][1:]
    gains = [f"{player_name(s)} +{e[f'{s}_points']}" for s in PLAYERS if e[f"{s}_points"]]
    outcome = ", ".join(gains) if gains else "nobody scores"
    return f"{title}: Red {e['red_count']}, Blue {e['blue_count']} → {outcome}."
