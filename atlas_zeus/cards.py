"""The action cards: their wire names, titles, one-line effects and the deck of §5."""

from __future__ import annotations

from enum import StrEnum


class Card(StrEnum):
    TRANSFER = "transfer"
    CRAB = "crab"
    HARPOON = "harpoon"
    FOG = "fog"
    SURGE = "surge"
    FISH = "fish"
    VOLCANO = "volcano"
    FLOOD = "flood"
    NET = "net"
    TURTLE = "turtle"
    PILEHOUSE = "pilehouse"
    RESHUFFLE = "reshuffle"
    OPEN_HAND = "open_hand"
    PRAYER = "prayer"
    WEAKNESS = "weakness"

    @property
    def title(self) -> str:  # type: ignore[override]  # the contract's name; str.title is of no use here
        """The card's name as the rules page prints it ("Tidal surge")."""
        return _TITLES[self]

    @property
    def effect(self) -> str:
        """What the card does, in one line."""
        return _EFFECTS[self]

    @classmethod
    def parse(cls, name: object) -> Card:
        """A wire name to a Card; ValueError names the unknown card."""
        try:
            return cls(name)  # type: ignore[arg-type]  # anything that is not a wire name fails here
        except ValueError:
            raise ValueError(f"unknown card {name!r}") from None


_TITLES = {
    Card.TRANSFER: "Transfer", Card.CRAB: "Crab", Card.HARPOON: "Harpoon", Card.FOG: "Fog",
    Card.SURGE: "Tidal surge", Card.FISH: "Flying fish", Card.VOLCANO: "Volcano", Card.FLOOD: "Flood",
    Card.NET: "Net", Card.TURTLE: "Turtle", Card.PILEHOUSE: "Pilehouse", Card.RESHUFFLE: "Reshuffle",
    Card.OPEN_HAND: "Open hand", Card.PRAYER: "Prayer", Card.WEAKNESS: "Weakness",
}

_EFFECTS = {
    Card.TRANSFER: "Move your people along the ring, 3 points in all, one point per island.",
    Card.CRAB: "Wherever you are stronger than the opponent's people, they die.",
    Card.HARPOON: "Kill one opponent person, not a turtle, on an island next to one of yours.",
    Card.FOG: "Discard one opponent card on a later slot without effect.",
    Card.SURGE: "Move the flood marker to a neighbouring island.",
    Card.FISH: "Move one of your people to any island with room.",
    Card.VOLCANO: "Erupt a volcanic island: its neighbours' people flee or die, it leaves the ring.",
    Card.FLOOD: "Move the flood marker to any island.",
    Card.NET: "Net an island: no Transfer step and no escape may start or end there.",
    Card.TURTLE: "One of your people becomes a turtle: no Harpoon can take it.",
    Card.PILEHOUSE: "A small island holds any number of people.",
    Card.RESHUFFLE: "Shuffle your discard pile into your draw pile.",
    Card.OPEN_HAND: "The opponent programs face up next round.",
    Card.PRAYER: "Draw a card for each of your people on a holy island.",
    Card.WEAKNESS: "Until the round ends, the opponent's people count as strength 10 for Crab.",
}

#: Copies of each card in a clan's deck (§5): 25 in all.
COPIES: dict[Card, int] = {
    Card.TRANSFER: 6, Card.CRAB: 3, Card.HARPOON: 2, Card.FOG: 2, Card.SURGE: 2, Card.FISH: 1,
    Card.VOLCANO: 1, Card.FLOOD: 1, Card.NET: 1, Card.TURTLE: 1, Card.PILEHOUSE: 1, Card.RESHUFFLE: 1,
    Card.OPEN_HAND: 1, Card.PRAYER: 1, Card.WEAKNESS: 1,
}
#: A clan's 25 cards, in card order (``Options.deck`` may give another list).
DECK: tuple[Card, ...] = tuple(card for card, n in COPIES.items() for _ in range(n))
#: The cards whose marker stays in play (the card is set aside meanwhile, §6).
MARKER_CARDS = frozenset({Card.NET, Card.TURTLE, Card.PILEHOUSE})
