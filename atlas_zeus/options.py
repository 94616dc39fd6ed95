"""Rule switches: every **[choice]** of the rules page as a named option with its default.

A table may offer a variant by passing other values; ``DEFAULT_OPTIONS`` are the rules this
project implements.  ``to_dict``/``from_dict`` give the plain form kept in records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from .cards import DECK, Card
from .ring import ISLAND_COUNT, ISLANDS, Island, Kind

#: Who chooses the person fleeing onto a small island (§5.2): the owner of the fleeing clan,
#: the erupting player (the fan's help text), or nobody: the strongest flees (the fan's code).
FLEE_CHOOSERS = ("owner", "erupting", "strongest")
_CARD_ORDER = list(Card)


@dataclass(frozen=True, slots=True)
class Options:
    #: The island table (§2): numbers 1..16 with their kind and size.
    islands: tuple[Island, ...] = ISLANDS
    #: A clan's cards (§5); both clans get the same.
    deck: tuple[Card, ...] = DECK
    #: Cards drawn at setup (rulebook).
    hand_size: int = 6
    #: Cards drawn at the end of each round (rulebook).
    draw_per_round: int = 3
    #: Movement points of a Transfer (rulebook).
    transfer_points: int = 3
    #: A Transfer may be declined with no step (``Transfer(())``) when some step is legal; the
    #: rulebook's "an allowance of one to three" read as "up to three" (§5.1).  False: the fan's
    #: text, "at least one movement must be made".
    transfer_may_pass: bool = False
    #: A Transfer step may not pass a netted island: it goes the other way round, at that cost,
    #: or not at all (the Net "shuts off movement", the fan's text, read along the way).  False:
    #: only the two ends of a step are checked, as the fan's code does (§5.1).
    nets_block_passing: bool = False
    #: The people of a Transfer move one after another, each stopping only where there is room
    #: when it arrives (the rulebook's "not to stop there" read step by step): no swap of two
    #: small islands.  False: room is counted after all the steps together, as the fan's code
    #: does (§5.1).
    room_checked_per_step: bool = False
    #: A turtle that moves, for any reason, stops being a turtle (§5.1, §6; the fan's text: "for
    #: as long as it remains on its current island").  False: the Turtle marker travels with its
    #: person, and leaves play only when that person dies.
    turtle_ends_when_moved: bool = True
    #: The strength of a weakened person for Crab (§5, Weakness).
    weakened_strength: int = 10
    #: Fog may also hit its own player's cards (the fan's code); False: opponent cards only.
    fog_own_cards: bool = False
    #: Who chooses the fleeing person (``FLEE_CHOOSERS``).
    flee_chooser: str = "owner"
    #: A card with no legal choice is discarded (§4.2); True: it goes back to its owner's hand.
    no_target_returns_to_hand: bool = False
    #: When a draw empties the draw pile, the cards left in it are drawn before the reshuffled
    #: discard pile (§4.4); False: they are shuffled in with the discard pile first.
    reshuffle_keeps_rest_first: bool = True
    #: An erupting island under the flood marker sends it on at once (§4.3); False: the marker
    #: waits off the ring and that round's sinking only moves it on (nothing sinks).
    eruption_advances_flood: bool = True
    #: The rulebook's "at any point": a clan loses the moment its last person dies, even in the
    #: middle of a card.  Only a Volcano kills at two moments (its lava islands, then its crater),
    #: so this decides one case: a clan wiped out by the lava loses before the crater takes the
    #: other's last people, where the check after the whole card (§7, §11.15) calls it a draw.
    end_check_at_any_point: bool = False
    #: Safety limit on rounds, a draw when passed (and a bug to flag, §7).
    max_rounds: int = 16

    def __post_init__(self) -> None:
        for f in fields(self):
            value, expected = getattr(self, f.name), type(f.default)
            if type(value) is not expected:
                raise ValueError(f"{f.name} must be {expected.__name__}, got {value!r}")
        if not all(isinstance(i, Island) and isinstance(i.kind, Kind) for i in self.islands):
            raise ValueError("islands must be Island values")
        if sorted(i.number for i in self.islands) != list(range(1, ISLAND_COUNT + 1)):
            raise ValueError(f"islands must number 1..{ISLAND_COUNT}, each once")
        if not all(isinstance(c, Card) for c in self.deck):
            raise ValueError("deck must hold cards")
        # one order for equal decks, so that equal options compare equal
        object.__setattr__(self, "deck", tuple(sorted(self.deck, key=_CARD_ORDER.index)))
        object.__setattr__(self, "islands", tuple(sorted(self.islands, key=lambda i: i.number)))
        if self.flee_chooser not in FLEE_CHOOSERS:
            raise ValueError(f"flee_chooser must be one of {', '.join(FLEE_CHOOSERS)}, got {self.flee_chooser!r}")
        for name in ("hand_size", "draw_per_round", "transfer_points", "weakened_strength", "max_rounds"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.hand_size < 3 or len(self.deck) < self.hand_size + 3:
            raise ValueError("the deck must allow a hand of at least 3 cards and a draw after it")

    def island(self, number: int) -> Island:
        """The island numbered ``number`` (1..16)."""
        return self.islands[number - 1]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "islands":
                value = [[i.number, i.kind.value, i.large] for i in value]
            elif f.name == "deck":
                value = {card.value: n for card, n in Counter(value).items()}
            data[f.name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        """The options of a plain form (missing keys take their defaults); ValueError names a
        wrong one."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(sorted(unknown))}")
        values = dict(data)
        if "islands" in values:
            try:
                values["islands"] = tuple(Island(int(n), Kind(kind), bool(large))
                                          for n, kind, large in values["islands"])
            except (TypeError, ValueError):
                raise ValueError("islands must be a list of [number, kind, large]") from None
        if "deck" in values:
            deck = values["deck"]
            if not isinstance(deck, dict) or not all(type(n) is int and n >= 0 for n in deck.values()):
                raise ValueError("deck must map card names to numbers of copies")
            values["deck"] = tuple(Card.parse(name) for name, n in deck.items() for _ in range(n))
        return cls(**values)


DEFAULT_OPTIONS = Options()
