"""Whole games of Atlas & Zeus against the server's random bot, through a real server with a fixed
game seed (what ``aton --game atlas-zeus`` asks of its own): one played with key presses only,
one with mouse clicks only."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from atlas_zeus.moves import PAIRS
from aton_tui.app import AtonApp, Launch
from aton_tui.atlas_zeus.hand import Hand
from aton_tui.atlas_zeus.screen import AtlasZeusScreen
from aton_tui.atlas_zeus.track import Track
from aton_tui.screens.end import EndScreen
from server.app import ArbiterServer

from .conftest import quiet_settings
from .driving import GAME_TIMEOUT, click_content, wait_until
from .test_atlas_zeus_screen import click_target


def az_screen(app: AtonApp) -> AtlasZeusScreen | None:
    return next((s for s in app.screen_stack if isinstance(s, AtlasZeusScreen)), None)


def ready(app: AtonApp) -> bool:
    """The end screen is up, or a decision of ours waits on the screen, its draft or choice made."""
    if isinstance(app.screen, EndScreen):
        return True
    screen = az_screen(app)
    return (screen is not None and app.screen is screen and screen.ready and screen.decision is not None
            and (screen.draft is not None or screen.choice is not None))


Act = Callable[[Pilot, AtlasZeusScreen, int], Awaitable[None]]


async def play_to_the_end(pilot: Pilot, act: Act) -> dict[str, int]:
    """Answer every decision with ``act`` until the end screen shows; the decisions made, by kind.
    ``act`` is told how many times the server refused this decision already (a Transfer's steps
    may be legal only together: the screen cannot know), to choose otherwise."""
    app = pilot.app
    assert isinstance(app, AtonApp)
    seen: dict[str, int] = {}
    refused = 0
    deadline = time.monotonic() + GAME_TIMEOUT
    while not isinstance(app.screen, EndScreen):
        assert time.monotonic() < deadline, "the game did not end in time"
        await wait_until(pilot, lambda: ready(app), timeout=30, what="a decision or the end")
        screen = az_screen(app)
        if isinstance(app.screen, EndScreen) or screen is None:
            break
        decision = screen.decision
        assert decision is not None
        seen[decision.kind] = seen.get(decision.kind, 0) + 1
        screen.refusal = ""
        moved_on = sent_or_moved_on(app, screen)
        await act(pilot, screen, refused)
        await wait_until(pilot, moved_on, what=f"the {decision.kind} sent")
        refused = refused + 1 if screen.refusal else 0
        assert refused < 10, f"refused again and again: {screen.refusal}"
    return seen


def sent_or_moved_on(app: AtonApp, screen: AtlasZeusScreen) -> Callable[[], bool]:
    """Whether the move is on its way, refused, or answered by an update since now (one may bring
    no event: a Volcano's island), or the game is over."""
    updates = screen.updates
    return lambda: (screen.sent is not None or bool(screen.refusal) or isinstance(app.screen, EndScreen)
                    or screen.updates != updates)


def first_slots(screen: AtlasZeusScreen) -> list[int]:
    """The first slot open to us in each colour pair."""
    draft = screen.draft
    assert draft is not None
    return [next(s for s in pair if s in draft.slots) for pair in PAIRS]


async def by_keys(pilot: Pilot, screen: AtlasZeusScreen, refused: int) -> None:
    if screen.draft is not None:
        await pilot.press(*(str(slot) for slot in first_slots(screen)), "enter")
        return
    choice = screen.choice
    assert choice is not None
    if choice.kind == "transfer":  # a mover to an island offered (after a refusal, others)
        await pilot.press(*["right"] * refused, "enter", *["right"] * refused, "enter")
        if screen.sent is None:
            await pilot.press("d")  # points left: the Transfer ends there
        return
    if choice.kind == "fish":
        await pilot.press("enter")  # the person first
    await pilot.press("right", "enter")


async def by_clicks(pilot: Pilot, screen: AtlasZeusScreen, refused: int) -> None:
    if screen.draft is not None:
        hand, track = screen.query_one(Hand), screen.query_one(Track)
        _, x = hand.rows(hand.content_size.width)[0][-1]
        await click_content(pilot, hand, x + 1, 0)  # the last card of the first line first
        for slot in first_slots(screen):  # then the lit card (the next free one) on each slot
            await click_content(pilot, track, track.slot_x(slot) + 1, 1)
        await pilot.press("enter")  # sealing is a key: there is no button for it
        return
    choice = screen.choice
    assert choice is not None
    for _ in range(3 if choice.kind == "transfer" else 2):
        targets = choice.targets()
        if screen.sent is not None or screen.choice is not choice or not targets:
            break  # sent, or answered already (a new decision, or none)
        target = targets[-1 - refused % len(targets)]
        if target[0] == "slot":
            track = screen.query_one(Track)
            await click_content(pilot, track, track.slot_x(int(target[1])) + 1, 1)
        else:
            await click_target(pilot, screen, target)
    if screen.sent is None and screen.choice is choice and choice.kind == "transfer":
        await pilot.press("d")


def client_of(server: ArbiterServer) -> AtonApp:
    """``aton --game atlas-zeus --level random``, its server the test's."""
    launch = Launch(name="tester", port=server.port, start="bot", level="random", clock="relaxed", game="atlas-zeus")
    return AtonApp(launch, quiet_settings())


async def test_a_whole_game_of_atlas_zeus_by_keys(server):
    app = client_of(server)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = await play_to_the_end(pilot, by_keys)
        assert seen.get("program", 0) >= 2
        assert isinstance(app.screen, EndScreen)


async def test_a_whole_game_of_atlas_zeus_by_mouse(server):
    app = client_of(server)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = await play_to_the_end(pilot, by_clicks)
        assert seen.get("program", 0) >= 2
        assert isinstance(app.screen, EndScreen)
