"""The assignment of a hand to cartouches 1–4 while a player makes up their mind.

Pure logic, no widgets: the commit panel draws it and the game screen's keys and
clicks change it.  Values repeat in a hand, so the draft stores the value on each
cartouche; the cards still free are the hand minus what lies on the cartouches.
"""

from __future__ import annotations

from collections import Counter

CARTOUCHES = 4


class CommitDraft:
    def __init__(self, hand: tuple[int, ...]) -> None:
        self.hand = tuple(sorted(hand))
        self.slots: list[int | None] = [None] * CARTOUCHES
        self.selected = 0  # the cartouche (0-3) the next card goes on

    @property
    def free(self) -> list[int]:
        """The cards of the hand not yet on a cartouche, lowest first."""
        left = Counter(self.hand)
        left.subtract(v for v in self.slots if v is not None)
        return sorted(left.elements())

    @property
    def complete(self) -> bool:
        return all(v is not None for v in self.slots)

    @property
    def cards(self) -> tuple[int, ...]:
        """The four values for cartouches 1–4 (only when complete)."""
        assert self.complete
        return tuple(v for v in self.slots if v is not None)

    def lay(self, cards: tuple[int, ...]) -> None:
        """Put ``cards`` on cartouches 1–4 (a hint's suggestion: the player may still change it)."""
        if sorted(cards) != list(self.hand):
            raise ValueError(f"{cards} is not an assignment of the hand {self.hand}")
        self.slots = list(cards)
        self.selected = 0

    def select(self, index: int) -> None:
        self.selected = index % CARTOUCHES

    def move(self, step: int) -> None:
        self.select(self.selected + step)

    def put(self, value: int) -> bool:
        """Put a card of ``value`` on the selected cartouche (swapping if it lies elsewhere).

        Then the selection moves on to the next empty cartouche.  False if the hand holds
        no such card.
        """
        if not self._place(value):
            return False
        filled = self._fill_last()
        empty = [i for i in range(CARTOUCHES) if self.slots[i] is None]
        if empty:
            after = [i for i in empty if i > self.selected]
            self.selected = (after or empty)[0]
        elif filled is not None:
            self.selected = filled  # typing that last card too changes nothing
        return True

    def cycle(self, step: int) -> None:
        """Change the selected cartouche's card to the next (or previous) value of the hand."""
        values = sorted(set(self.hand))
        current = self.slots[self.selected]
        if current is None:
            target = values[0] if step > 0 else values[-1]
        else:
            target = values[(values.index(current) + step) % len(values)]
        self._place(target)
        self._fill_last()

    def take_back(self) -> None:
        """Return the selected cartouche's card to the hand."""
        self.slots[self.selected] = None

    def _place(self, value: int) -> bool:
        if value in self.free:
            self.slots[self.selected] = value
            return True
        if value in self.slots:
            other = self.slots.index(value)
            self.slots[other], self.slots[self.selected] = self.slots[self.selected], value
            return True
        return False

    def _fill_last(self) -> int | None:
        """With one cartouche left empty there is only one card to put there: the index filled."""
        empty = [i for i in range(CARTOUCHES) if self.slots[i] is None]
        if len(empty) != 1:
            return None
        self.slots[empty[0]] = self.free[0]
        return empty[0]
