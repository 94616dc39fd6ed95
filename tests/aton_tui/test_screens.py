"""The game screen's behaviour, driven by fixed frames: what it sends, shows and saves."""

from __future__ import annotations

import json

from textual.widgets import Input

from aton.players import BLUE, RED
from aton_tui.app import Frame
from aton_tui.screens.dialogs import Confirm, Prompt
from aton_tui.screens.end import EndScreen
from aton_tui.screens.game import FORCED_MOVE_DELAY, GameScreen
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.widgets.players import PlayersPanel
from protocol import messages as m

from ..manual_clock import ManualClock
from .driving import model_of, wait_until
from .scripted import FramesApp, ScriptedGame, blue_opens_a_round, frames_after, red_to


def drawn(app: FramesApp, script: ScriptedGame):
    return lambda: isinstance(app.screen, GameScreen) and app.model is not None and app.model.version == script.version


def something_sent(app: FramesApp):
    return lambda: bool(app.recording.sent)


def held_playback(frames: list[m.Message], **settings) -> tuple[FramesApp, ManualClock]:
    """The client fed ``frames``, its playback's pauses ending only when the test advances the clock."""
    pacing = ManualClock()
    return FramesApp(frames, pacing=pacing, reveal_delay=0.35, **settings), pacing


def from_round_two_until(script: ScriptedGame, until) -> m.GameState:
    """Red's state at its commit of round 2; the script then plays on ``until``."""
    script.play_until(red_to("commit", round_at_least=2))
    state = script.game_state()
    script.play_until(until)
    return state


def blue_cartouches(app: FramesApp) -> list[str]:
    row = next(r for r in app.screen.query_one(PlayersPanel).rows if r.seat is BLUE)
    return [c.state for c in row.cartouches]


async def test_number_keys_arrange_the_hand_and_enter_seals_it():
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    hand = sorted(script.game.view(RED)["decision"]["hand"])
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        await pilot.press(str(hand[3]), str(hand[0]), str(hand[2]), "enter")
        assert app.recording.sent == [("commit", 12, (hand[3], hand[0], hand[2], hand[1]))]


async def test_the_exchange_asks_first():
    script = ScriptedGame()
    app = FramesApp([script.first])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        await pilot.press("x")
        assert isinstance(app.screen, Confirm) and app.recording.sent == []
        await pilot.press("y")
        await wait_until(pilot, lambda: app.recording.sent == [m.Exchange(game=12, id=None)])


async def test_cartouches_turn_over_one_by_one_and_space_skips_the_rest():
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    script.blue_seals()
    state = script.game_state(sealed=("blue",))
    script.commit_round()  # both cartouches 1 and 2 are revealed, then the first player's 3 and 4
    app, pacing = held_playback(frames_after(script, state))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        assert model_of(app).view.blue.cartouches[0] is not None
        assert blue_cartouches(app) == ["back"] * 4  # red's commitment told, nothing turned yet
        pacing.advance(0.35)
        await wait_until(pilot, lambda: blue_cartouches(app)[0] == "up", what="cartouche 1")
        assert blue_cartouches(app)[1:] == ["back"] * 3
        await pilot.press("space")
        assert blue_cartouches(app)[:2] == ["up", "up"]


async def test_a_forced_square_is_chosen_by_itself_when_the_setting_is_on():
    """A moment after the playback has shown it, never while the round is still played back.
    Waits for what it expects (it used to wait 0.8 s and failed under load)."""
    script = ScriptedGame()
    state = blue_opens_a_round(script)  # the updates after it play back blue's whole turn
    last = script.updates[-1]
    decision = {**last.view["decision"], "squares": [[2, 5]]}  # the server says: only one square
    forced = m.Update(game=12, version=last.version, events=(), view={**last.view, "decision": decision},
                      clocks=last.clocks)
    move = m.Place if decision["kind"] == "place" else m.Remove
    for auto, expected in ((True, [move(game=12, temple=2, square=5)]), (False, [])):
        app, _ = held_playback([*frames_after(script, state), forced], auto_forced=auto)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, drawn(app, script))
            screen = app.screen
            assert isinstance(screen, GameScreen) and screen.playback.behind
            await pilot.pause(3 * FORCED_MOVE_DELAY)
            assert screen.playback.behind and app.recording.sent == []  # not seen yet: not chosen
            await pilot.press("space")
            if expected:
                await wait_until(pilot, something_sent(app), what="the forced square")
            else:
                await pilot.pause(3 * FORCED_MOVE_DELAY)
            assert app.recording.sent == expected


async def test_the_game_is_saved_from_the_end_screen(tmp_path):
    script = ScriptedGame(seed=9)
    script.play_until(lambda s: False, limit=2000)
    app = FramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, EndScreen):
            await wait_until(pilot, lambda: isinstance(app.screen, (ScoringScreen, EndScreen)))
            if isinstance(app.screen, ScoringScreen):
                await pilot.press("enter")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, Prompt))
        app.screen.query_one(Input).value = str(tmp_path / "game.json")
        await pilot.press("enter")
        await wait_until(pilot, lambda: m.GetRecord(game=12, id=None) in app.recording.sent)
        request = len(app.recording.sent)  # the scripted session numbers requests by position
        record = {"format": "aton-record/1", "seed": 9, "moves": [], "meta": {"game": 12}}
        app.post_message(Frame(m.GameRecordReply(game=12, record=record, reply_to=request)))
        await wait_until(pilot, lambda: (tmp_path / "game.json").exists())
    assert json.loads((tmp_path / "game.json").read_text()) == record


async def test_lost_frames_are_made_good_by_one_sync():
    script = ScriptedGame()
    script.play_until(red_to("place", round_at_least=2))
    first, _, *later = script.updates  # the second update never arrives
    app = FramesApp([script.first, first, *later])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: bool(app.recording.sent), what="a sync")
        await pilot.pause(0.2)
        assert app.recording.sent == [m.Sync(game=12)]
        assert model_of(app).version == first.version  # nothing after the gap was taken


async def test_a_key_of_the_waiting_decision_jumps_over_the_playback_and_acts():
    """The player's clock runs during the playback: their keys work at once."""
    script = ScriptedGame()
    state = from_round_two_until(script, red_to("commit", round_at_least=3))  # a whole round to play back
    hand = sorted(script.game.view(RED)["decision"]["hand"])
    app, _ = held_playback(frames_after(script, state))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.playback.behind and screen.decision is None
        await pilot.press(str(hand[3]))  # at once the present, with the card put down
        assert not screen.playback.behind and screen.view == model_of(app).view
        await pilot.press(str(hand[0]), str(hand[2]), "enter")
        assert app.recording.sent == [("commit", 12, (hand[3], hand[0], hand[2], hand[1]))]


async def test_a_final_key_during_the_playback_only_jumps_to_the_present():
    script = ScriptedGame()
    state = from_round_two_until(script, red_to("commit", round_at_least=3))
    app, _ = held_playback(frames_after(script, state))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.playback.behind
        await pilot.press("x")  # the exchange asks first, but only once the present is shown
        assert not screen.playback.behind and not isinstance(app.screen, Confirm)
        assert app.recording.sent == []


async def test_during_the_playback_the_keys_of_the_other_kind_of_decision_do_nothing():
    script = ScriptedGame()
    state = from_round_two_until(script, red_to("place", round_at_least=2))  # the present: red places a stone
    app, _ = held_playback(frames_after(script, state))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, drawn(app, script))
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.playback.behind
        assert screen.check_action("card", (1,)) is False and screen.check_action("seal", ()) is False
        await pilot.press("enter")  # choose is final: it only jumps to the present, showing it
        assert not screen.playback.behind and app.recording.sent == []
        await pilot.press("enter")
        assert [type(s) for s in app.recording.sent] == [m.Place]


async def test_the_top_line_names_both_players_with_their_ratings_where_they_fit():
    """At the table the ratings stand beside the names in the top line (the player panel keeps
    the whole names first); where the line is too narrow for them they are left out, not the names."""
    from dataclasses import replace

    from .scripted import PLAYERS

    script = ScriptedGame()
    first = script.first
    long_name = {**PLAYERS["blue"], "name": "Nefertiti of Thebes"}
    for size, blue, expected in (
        ((80, 24), PLAYERS["blue"], " ATON  ·  Round 1  ·  game 12  ·  you are ● Red 1500? against Bot (normal) 1700"),
        ((60, 18), PLAYERS["blue"], " Round 1  ·  you are ● Red 1500? against Bot (normal) 1700"),
        ((60, 18), long_name, " Round 1  ·  you are ● Red against Nefertiti of Thebes"),
    ):
        rated = {"red": {**PLAYERS["red"], "rating": 1500, "provisional": True},
                 "blue": {**blue, "rating": 1700, "provisional": False}}
        app = FramesApp([replace(first, players=rated, options={**first.options, "rated": True})])
        async with app.run_test(size=size) as pilot:
            await wait_until(pilot, drawn(app, script))
            await pilot.pause()
            top = str(app.screen.query_one("#top-bar").render())
            assert top.rstrip() == expected
