"""How a serving process tunes CPython's cyclic garbage collector, so that it does not pause
every game at once.

A server's heap is mostly long-lived: the modules it imported, and then its connections and
games.  With CPython's defaults a full collection walks all of it every time the long-lived
objects grow by a quarter, which at 2,000 games and 4,000 connections (some 350,000 tracked
objects) stops the event loop for 100–250 ms on a 2-core machine, several times a minute while
games start, and every reveal waiting in that turn waits with it (issue 17: the reveal's p99
was 93–438 ms at 2,000 games at human pace, 12–41 ms with this policy; docs/hosting.md).

So, once a serving process has imported what it serves with, and before it holds any game:

- what exists then (the imported modules and the configuration) is moved out of the
  collector's sight with ``gc.freeze()``: it lives as long as the process.  It runs before
  the server resumes any game from its database, because what is frozen and later dropped in a
  reference cycle would never be collected (reference counting frees the rest);
- young collections run after ``YOUNG_OBJECTS`` net allocations instead of 700, so that the
  objects of a move (frames, views, events), which reference counting frees at once, never
  meet the collector, and the older generations are reached far less often; a full
  collection still runs, by CPython's own rule, when the long-lived objects have grown by a
  quarter, and no more often than every ``YOUNG_OBJECTS × MIDDLE_COLLECTIONS ×
  OLD_COLLECTIONS`` net allocations (at 2,000 games, about once in one to two minutes).

Garbage in reference cycles is still collected, only later: at most ``YOUNG_OBJECTS`` young
objects wait for a collection (a few megabytes).
"""

from __future__ import annotations

import gc
import logging

#: net allocations of tracked objects between two young collections (CPython: 700)
YOUNG_OBJECTS = 20_000
#: young collections between two collections of the middle generation (CPython: 10)
MIDDLE_COLLECTIONS = 20
#: middle collections between two looks at the oldest generation (CPython: 10)
OLD_COLLECTIONS = 10


def settle_for_serving() -> None:
    """Collect once, freeze what the process holds (its modules, its configuration), and collect
    less often from now on.

    Call it once, when the process has imported what it serves with and before it holds any game
    or session.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, MIDDLE_COLLECTIONS, OLD_COLLECTIONS)
    logging.getLogger(__name__).info(
        "garbage collector: %d objects frozen (modules, configuration); young collections every %d allocations",
        gc.get_freeze_count(), YOUNG_OBJECTS)
