"""What the lesson looks like: SVG snapshots of a few of its steps at 80×24, 120×40 and the smallest size.

The lesson has no clock and fixed cards, so it looks the same on every run.  After a deliberate
change, run ``pytest tests/aton_tui/test_learn_snapshots.py --snapshot-update`` and look at them.
"""

from __future__ import annotations

import pytest

from aton.moves import Commit
from aton_tui.app import AtonApp, Launch
from aton_tui.screens.learn import LearnScreen, LessonOffer

from .conftest import quiet_settings
from .driving import wait_until
from .scripted import FramesApp

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 18)], ids=["80x24", "120x40", "60x18"])


def lesson_at(step: int, wrong: Commit | None = None):
    """A run_before that plays the lesson's expected moves up to its ``step``-th step (then ``wrong``)."""
    async def run_before(pilot) -> None:
        app = pilot.app
        screen: list[LearnScreen] = []

        def waiting() -> bool:
            found = [s for s in app.screen_stack if isinstance(s, LearnScreen)]
            screen[:] = found
            return bool(found) and app.screen is found[0] and found[0].is_mounted and not found[0].playback.behind
        await wait_until(pilot, waiting, what="the lesson")
        lesson = screen[0]
        while lesson.guided.index < step:
            lesson._try(lesson.guided.expected[0])
            await wait_until(pilot, waiting, what="the next step")
        if wrong is not None:
            lesson._try(wrong)
        await pilot.pause()
    return run_before


def learn_app() -> AtonApp:
    return AtonApp(Launch(name="Ada", start="learn"), quiet_settings())


@SIZES
def test_the_first_step(snap_compare, size):
    assert snap_compare(learn_app(), terminal_size=size, run_before=lesson_at(1))


@SIZES
def test_removing_two_of_blues_stones(snap_compare, size):
    assert snap_compare(learn_app(), terminal_size=size, run_before=lesson_at(8))


@SIZES
def test_a_wrong_commitment_corrected(snap_compare, size):
    assert snap_compare(learn_app(), terminal_size=size, run_before=lesson_at(5, wrong=Commit((4, 4, 2, 1))))


@pytest.mark.parametrize("size", [(80, 24), (60, 18)], ids=["80x24", "60x18"])
def test_the_offer_to_a_new_player(snap_compare, size):
    async def offered(pilot) -> None:
        await pilot.pause()
        pilot.app.push_screen(LessonOffer())  # over the lobby, as aton shows it once connected
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, LessonOffer), what="the offer")
        await pilot.pause()

    assert snap_compare(FramesApp([]), terminal_size=size, run_before=offered)
