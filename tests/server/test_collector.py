"""The serving process's collector policy (server.collector): what the started server holds is
frozen, and young collections wait for many more allocations than CPython's default."""

from __future__ import annotations

import gc
import weakref

from server.collector import MIDDLE_COLLECTIONS, OLD_COLLECTIONS, YOUNG_OBJECTS, settle_for_serving


class Node:
    itself: Node


def test_settling_freezes_what_exists_and_collects_less_often():
    before = gc.get_threshold()
    try:
        held = [[n] for n in range(1000)]  # tracked objects the "started server" holds
        settle_for_serving()
        assert gc.get_threshold() == (YOUNG_OBJECTS, MIDDLE_COLLECTIONS, OLD_COLLECTIONS)
        assert gc.get_freeze_count() >= len(held)
        tracked = {id(o) for o in gc.get_objects()}
        assert not any(id(o) in tracked for o in held)  # no collection walks them any more
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_a_cycle_made_after_settling_is_still_collected():
    before = gc.get_threshold()
    try:
        settle_for_serving()
        node = Node()
        node.itself = node
        alive = weakref.ref(node)
        del node
        gc.collect()
        assert alive() is None
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
