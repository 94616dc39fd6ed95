"""The screen of Atlas & Zeus driven by keys and clicks on fixed frames (``az_scripted``): what it
sends for each decision, and what it refuses to offer."""

from __future__ import annotations

from dataclasses import replace

from textual.pilot import Pilot

from atlas_zeus.moves import move_from_dict
from atlas_zeus.players import RED
from aton.players import RED as ATON_RED
from aton_tui.atlas_zeus.hand import Hand
from aton_tui.atlas_zeus.ring import Layout, Ring, token_lines
from aton_tui.atlas_zeus.screen import AtlasZeusScreen
from aton_tui.atlas_zeus.track import Track
from protocol import messages as m

from .az_scripted import AZFramesApp, ScriptedAZ, red_to
from .driving import click_content, wait_until
from .test_keys_and_help import Rings


async def shown(pilot: Pilot, script: ScriptedAZ) -> AtlasZeusScreen:
    app = pilot.app
    assert isinstance(app, AZFramesApp)
    await wait_until(pilot, lambda: isinstance(app.screen, AtlasZeusScreen) and app.model is not None
                     and app.model.version == script.version, what="the game of Atlas & Zeus")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, AtlasZeusScreen)
    return screen


def sent(app: AZFramesApp) -> list:
    return [s for s in app.recording.sent if isinstance(s, tuple)]


def legal(script: ScriptedAZ) -> list[dict]:
    return [move.to_dict() for move in script.state.legal_moves(RED)]


async def click_target(pilot: Pilot, screen: AtlasZeusScreen, target: tuple) -> None:
    """Click a person's token or an island's name on the ring, where the player sees it."""
    ring = screen.query_one(Ring)
    layout = Layout.fit(len(ring.islands), ring.content_size.width, ring.content_size.height)
    for position, island in enumerate(ring.islands):
        x, y = layout.place(position)
        if target == ("island", island.number):
            await click_content(pilot, ring, x + 1, y)
            return
        for line, marks in enumerate(token_lines(island.people, layout)):
            for index, mark in enumerate(marks):
                if not isinstance(mark, int) and target == ("person", mark.person):
                    await click_content(pilot, ring, x + index * 4 + 1, y + 1 + line)
                    return
    raise AssertionError(f"{target} is not on the ring")


async def test_a_programming_by_keys_sends_the_three_cards_sealed():
    script = ScriptedAZ()
    script.play_until(red_to("program", round_at_least=2))
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, script)
        await pilot.press("enter")  # not complete yet: nothing is sent
        assert not sent(app)
        await pilot.press("1", "4", "6")
        draft = screen.draft
        assert draft is not None and draft.complete
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(sent(app)), what="the programming")
        kind, game, move = sent(app)[0]
        assert kind == "program" and game == 21
        assert move == {"kind": "program", "cards": [[1, draft.hand[0]], [4, draft.hand[1]], [6, draft.hand[2]]]}
        assert move in legal(script)


async def test_a_programming_by_clicks_on_the_hand_and_the_track():
    script = ScriptedAZ()
    script.play_until(red_to("program", round_at_least=3))  # blue sealed first: red fills the free slots
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, script)
        draft = screen.draft
        assert draft is not None
        free = draft.slots
        track = screen.query_one(Track)
        await click_content(pilot, track, track.slot_x(1) + 1, 0)  # a slot blue holds: refused
        assert not draft.placed
        hand = screen.query_one(Hand)
        index, x = hand.rows(hand.content_size.width)[0][-1]  # the hand's last card
        await click_content(pilot, hand, x + 1, 0)
        assert draft.lit == index
        await click_content(pilot, track, track.slot_x(free[0]) + 1, 1)
        assert draft.on_track == {free[0]: draft.hand[index]}
        for slot in free[1:]:
            await click_content(pilot, track, track.slot_x(slot) + 1, 1)
        assert draft.complete
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(sent(app)), what="the programming")
        assert sent(app)[0][2] in legal(script)


async def test_a_harpoon_is_chosen_by_keys_among_the_targets_only():
    script = ScriptedAZ()
    script.play_until(red_to("harpoon"))
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, script)
        targets = screen.query_one(Ring).targets
        assert sorted(p for _, p in targets) == sorted(o["person"] for o in legal(script))
        await pilot.press("right", "enter")
        await wait_until(pilot, lambda: bool(sent(app)), what="the harpoon")
        assert sent(app)[0] == ("act", 21, {"kind": "harpoon", "person": targets[1][1]})


async def test_a_harpoon_is_chosen_by_a_click_on_the_person_and_a_click_elsewhere_does_nothing():
    script = ScriptedAZ()
    script.play_until(red_to("harpoon"))
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await shown(pilot, script)
        options = {o["person"] for o in legal(script)}
        mine = next(p.person for p in screen.view.people if p.clan is RED and p.island is not None)
        await click_target(pilot, screen, ("person", mine))  # not a target
        assert not sent(app)
        target = sorted(options)[-1]
        await click_target(pilot, screen, ("person", target))
        await wait_until(pilot, lambda: bool(sent(app)), what="the harpoon")
        assert sent(app)[0][2] == {"kind": "harpoon", "person": target}


async def test_a_transfer_step_by_step_by_keys_then_ended_with_d():
    script = ScriptedAZ()
    script.play_until(red_to("transfer", round_at_least=3))
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, script)
        await pilot.press("d")  # no step yet: the Transfer is compulsory
        assert not sent(app)
        await pilot.press("enter", "enter")  # the first mover, to the first island offered
        choice = screen.choice
        assert choice is not None and len(choice.steps) == 1
        await pilot.press("d")
        await wait_until(pilot, lambda: bool(sent(app)), what="the transfer")
        move = sent(app)[0][2]
        assert move["kind"] == "transfer" and len(move["steps"]) == 1
        script.state.check(RED, move_from_dict(move))  # legal: the engine says nothing against it


async def test_a_refusal_is_shown_in_the_servers_words_and_the_decision_starts_again():
    script = ScriptedAZ()
    script.play_until(red_to("harpoon"))
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot, script)
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.sent is not None, what="the harpoon sent")
        request = screen.sent
        assert request is not None
        screen.reply(request, m.Error(code="illegal_move", message="B3 is a turtle: a Harpoon cannot take it.",
                                      reply_to=request))
        await pilot.pause()
        assert "✕ B3 is a turtle: a Harpoon cannot take it." in str(screen.query_one("#az-decision").render())
        assert screen.decision is not None


async def bells_while_red_programs(remaining_ms: int) -> int:
    """The bells in the second after red's programming decision is shown with ``remaining_ms``
    on its clock (the clock is looked at every second; the app's clock stands still)."""
    script = ScriptedAZ()
    script.play_until(red_to("program", round_at_least=2))
    *before, last = script.frames
    clocks = {**last.clocks, ATON_RED: replace(last.clocks[ATON_RED], remaining_ms=remaining_ms)}
    app = AZFramesApp([*before, replace(last, clocks=clocks)], bell=True)
    rings = Rings(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, script)
        assert rings.count >= 1  # the decision (and red's decisions before it)
        shown_with = rings.count
        await pilot.pause(1.2)
        return rings.count - shown_with


async def test_the_bell_rings_once_when_the_clock_of_a_decision_runs_low():
    assert await bells_while_red_programs(84_000) == 0
    assert await bells_while_red_programs(5_000) == 1  # under 10 s
