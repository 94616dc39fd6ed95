"""Arranging a hand on the cartouches before sealing it."""

import pytest

from aton_tui.commit_draft import CommitDraft


def test_typing_fills_the_cartouches_in_order_and_the_last_card_goes_on_by_itself():
    draft = CommitDraft((4, 1, 3, 3))
    assert draft.put(3) and draft.put(1)
    assert draft.slots == [3, 1, None, None] and draft.selected == 2
    assert draft.put(4)
    assert draft.slots == [3, 1, 4, 3] and draft.complete and draft.cards == (3, 1, 4, 3)
    assert draft.put(3)  # typing the card that went on by itself changes nothing
    assert draft.cards == (3, 1, 4, 3)


def test_a_card_not_in_the_hand_is_refused():
    draft = CommitDraft((1, 1, 2, 2))
    assert not draft.put(4)
    assert draft.slots == [None] * 4 and draft.free == [1, 1, 2, 2]


def test_a_card_already_placed_moves_by_swapping():
    draft = CommitDraft((1, 2, 3, 4))
    draft.put(1)
    draft.put(2)
    draft.select(0)
    draft.put(2)  # no free 2: the 2 on cartouche 2 swaps with the 1 on cartouche 1
    assert draft.slots[:2] == [2, 1]


def test_arrows_change_the_card_on_the_lit_cartouche():
    draft = CommitDraft((1, 2, 2, 4))
    draft.cycle(1)
    assert draft.slots[0] == 1
    draft.cycle(1)
    assert draft.slots[0] == 2
    draft.cycle(-1)
    draft.cycle(-1)
    assert draft.slots[0] == 4


def test_taking_a_card_back_frees_it_and_selection_wraps():
    draft = CommitDraft((1, 2, 3, 4))
    draft.put(3)
    assert draft.selected == 1
    draft.move(-2)
    assert draft.selected == 3
    draft.select(0)
    draft.take_back()
    assert draft.slots[0] is None and 3 in draft.free


def test_a_hints_cards_are_laid_on_the_cartouches_and_can_still_be_changed():
    draft = CommitDraft((4, 1, 3, 3))
    draft.lay((3, 1, 4, 3))
    assert draft.complete and draft.cards == (3, 1, 4, 3) and draft.selected == 0
    draft.put(4)  # the player changes their mind: the 4 swaps onto cartouche 1
    assert draft.cards == (4, 1, 3, 3)
    with pytest.raises(ValueError, match="not an assignment of the hand"):
        draft.lay((4, 4, 1, 3))
