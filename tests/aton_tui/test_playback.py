"""The reveal and the turns after it are played back one moment at a time (issue 13, defect 4).

The server sends the reveals and the first turn in one update and a bot's moves right
after; the board, the player table and the log must tell the same moment: the reveal,
then the first turn, then the second.  The playback's pauses run on a clock the test
moves by hand (``ManualClock``), so no test waits on wall-clock time.
"""

from __future__ import annotations

from itertools import pairwise

from aton.events import CardRevealed, PointsScored, StonePlaced, TurnOrderDecided, TurnStarted
from aton.players import BLUE, RED, Player
from aton.views import View, temple_owners
from aton_tui.app import AtonApp, Launch
from aton_tui.narrate import player_name
from aton_tui.playback import Moment, cut, moments
from aton_tui.screens.game import GameScreen
from aton_tui.widgets.board import Board
from aton_tui.widgets.players import PlayersPanel
from protocol import events as A
from protocol import messages as m
from protocol.game_frames import typed
from server.app import ArbiterServer
from server.config import ServerConfig

from ..manual_clock import ManualClock
from .conftest import quiet_settings
from .driving import decision_of, model_of, wait_until
from .scripted import FramesApp, ScriptedGame, blue_opens_a_round, frames_after, red_to
from .test_chat import log_text

DELAY = 0.35  # the default pause between two moments (Settings.reveal_delay)
SIZE = (120, 40)
GAME_SEED = 1  # the server's: colours, decks and the bot's choices


def scripted_round() -> tuple[ScriptedGame, m.GameState]:
    script = ScriptedGame()
    state = blue_opens_a_round(script)
    return script, state


def game(app: AtonApp) -> GameScreen:
    screen = app.screen
    assert isinstance(screen, GameScreen)
    return screen


def on_board(app: AtonApp) -> tuple[tuple[Player | None, ...], ...]:
    return game(app).query_one(Board).temples


def stones_of(temples: tuple[tuple[Player | None, ...], ...], seat: Player) -> int:
    return sum(row.count(seat) for row in temples)


def told(app: AtonApp) -> str:
    """The log's text, its wrapped lines joined."""
    return " ".join(log_text(app).split())


def cartouches(app: AtonApp, seat: Player) -> list[str]:
    row = next(r for r in game(app).query_one(PlayersPanel).rows if r.seat is seat)
    return [c.state for c in row.cartouches]


async def started(pilot, app: FramesApp, script: ScriptedGame) -> None:
    """Every frame is in the model and the screen shows the first moment after the state."""
    await wait_until(pilot, lambda: isinstance(app.screen, GameScreen) and model_of(app).version == script.version,
                     what="all the frames")
    await pilot.pause()


async def next_moment(pilot, pacing: ManualClock) -> None:
    pacing.advance(DELAY)
    await pilot.pause()
    await pilot.pause()


async def test_after_sealing_the_board_waits_for_the_reveal_and_the_turns_come_one_stone_at_a_time():
    script, state = scripted_round()
    before = View.from_dict(state.view).temples
    pacing = ManualClock()
    app = FramesApp(frames_after(script, state), pacing=pacing, reveal_delay=DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app, script)
        present = model_of(app).view
        assert stones_of(present.temples, BLUE) > stones_of(before, BLUE), "blue has placed stones by now"
        # the moment after sealing: nothing of the reveal or of blue's turn is shown or told
        assert on_board(app) == before
        assert cartouches(app, BLUE) == ["back"] * 4
        text = told(app)
        assert "You have committed" in text
        assert "Cartouche 1" not in text and "Blue places a stone" not in text
        assert game(app).decision is None and app.recording.sent == []
        # (a key of red's decision would jump to the present: tests/aton_tui/test_screens.py)

        seen = []  # per moment: blue's face-up cartouches, the board, the log
        while game(app).playback.behind:
            await next_moment(pilot, pacing)
            seen.append((cartouches(app, BLUE).count("up"), on_board(app), log_text(app)))
        # the reveal first: all four of blue's cartouches are up before blue's first stone
        first_stone = next(i for i, (_, board, _) in enumerate(seen)
                           if stones_of(board, BLUE) > stones_of(before, BLUE))
        assert all(up == 4 for up, _, _ in seen[first_stone:])
        assert [up for up, _, _ in seen[:first_stone]] != [4] * first_stone, "the cartouches turned one by one"
        # then one stone per moment, each told as it is shown
        boards = [before, *(board for _, board, _ in seen)]
        for earlier, later in pairwise(boards):
            changed = sum(a != b for t1, t2 in zip(earlier, later, strict=True)
                          for a, b in zip(t1, t2, strict=True))
            assert changed <= 1
        for _, board, text in seen:
            text = " ".join(text.split())  # the log's lines wrap
            placed, own = text.count("Blue places a stone"), text.count("Blue removes their own stone")
            assert placed - own == stones_of(board, BLUE) - stones_of(before, BLUE)
            assert text.count("Blue removes your stone") == stones_of(before, RED) - stones_of(board, RED)
        # the present is reached: the board agrees with the server, and red decides
        assert on_board(app) == present.temples
        decision = game(app).decision
        assert decision is not None and decision.kind in ("remove", "place")
        await pilot.press("enter")
        assert [type(sent) for sent in app.recording.sent] == [m.Remove if decision.kind == "remove" else m.Place]


async def test_space_jumps_to_the_present():
    script, state = scripted_round()
    pacing = ManualClock()
    app = FramesApp(frames_after(script, state), pacing=pacing, reveal_delay=DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app, script)
        assert game(app).playback.behind
        await pilot.press("space")
        present = model_of(app).view
        assert on_board(app) == present.temples
        assert cartouches(app, BLUE) == ["up"] * 4
        assert "Blue places a stone" in told(app)
        assert game(app).decision is not None and not game(app).playback.behind


async def test_the_commitment_takes_keys_while_the_opponents_news_is_still_being_told():
    """What is still to be played back may not change the player's decision (blue seals, blue
    chats): the keys work as soon as the decision is shown."""
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    state = script.game_state()
    script.blue_seals()
    script.blue_says("good luck")
    decision = View.from_dict(state.view).decision
    assert decision is not None
    pacing = ManualClock()
    app = FramesApp(frames_after(script, state), pacing=pacing, reveal_delay=DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app, script)
        assert game(app).playback.behind and "good luck" not in told(app)
        await pilot.press(*(str(v) for v in decision.hand), "enter")
        assert app.recording.sent == [("commit", 12, decision.hand)]
        await next_moment(pilot, pacing)
        assert "good luck" in told(app)


async def test_without_a_pause_everything_is_shown_at_once():
    script, state = scripted_round()
    app = FramesApp(frames_after(script, state))  # the tests' settings: reveal_delay 0
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app, script)
        assert on_board(app) == model_of(app).view.temples
        assert game(app).decision is not None


def test_an_update_is_cut_at_each_cartouche_turned_over():
    script = ScriptedGame()
    blue_opens_a_round(script)
    update = next(typed(u) for u in script.updates if any(e["type"] == "open_requested" for e in u.events))
    parts = cut([n.event for n in update.events])
    kinds = [[type(e) for e in part] for part in parts]
    assert kinds[0] == [A.Committed, A.OpenRequested]
    assert kinds[1][:2] == [CardRevealed, CardRevealed] and set(kinds[1][2:]) <= {PointsScored}
    assert kinds[2][:2] == [CardRevealed, CardRevealed] and TurnOrderDecided in kinds[2]
    assert kinds[3] == [CardRevealed] and kinds[4] == [CardRevealed]  # blue's cartouches 3 and 4
    assert kinds[5][0] is TurnStarted
    assert cut([]) == [()]


def test_the_moments_before_the_last_move_the_view_on_and_the_last_is_the_servers():
    script = ScriptedGame()
    state = blue_opens_a_round(script)
    before = Moment((), View.from_dict(state.view), {RED: "none", BLUE: "sealed"})
    updates = [typed(u) for u in script.updates if u.version > state.version]
    reveal = next(u for u in updates if any(isinstance(n.event, A.OpenRequested) for n in u.events))
    shown = moments(before, [n.event for n in reveal.events], reveal.view, {})
    assert shown[-1].view == reveal.view
    assert all(moment.view.decision is None for moment in shown[:-1])
    assert [moment.view.blue.revealed for moment in shown[:-1]] == [0, 1, 2, 3, 4]
    assert shown[1].view.red.score == reveal.view.red.score and shown[1].view.blue.score == reveal.view.blue.score
    stone = next(u for u in updates if any(isinstance(n.event, StonePlaced) for n in u.events))
    placed = next(n.event for n in stone.events if isinstance(n.event, StonePlaced))
    moved = moments(shown[-1], [placed, CardRevealed(RED, 3, 1)], stone.view, {})[0].view
    assert temple_owners(*moved.stones)[placed.temple - 1][placed.square] is BLUE
    assert moved.blue.supply == shown[-1].view.blue.supply - 1


async def idle(pilot, screen: GameScreen, pacing: ManualClock) -> None:
    """Play back all that came, and let the last pause run out."""
    for _ in range(200):
        if not screen.playback.behind and screen.pacing is None:
            return
        await next_moment(pilot, pacing)
    raise AssertionError("the playback does not end")


async def test_against_the_real_server_the_bots_turn_waits_for_the_reveal(tmp_path):
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED))
    await server.start()
    pacing = ManualClock()
    app = AtonApp(Launch(name="tester", port=server.port, start="bot", level="random"),
                  quiet_settings(reveal_delay=DELAY), pacing=pacing)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), what="the game")
            screen = game(app)
            await idle(pilot, screen, pacing)
            await wait_until(pilot, lambda: screen.decision is not None, what="the first commitment")
            hand = sorted(decision_of(app).hand)
            await pilot.press(str(hand[0]), str(hand[3]), str(hand[1]), "enter")  # the highest on C2: the bot first
            model = model_of(app)
            await wait_until(pilot, lambda: model.decision is not None and model.decision.kind != "commit",
                             what="the bot's turn played, in the model")
            bot = model.opponent
            assert stones_of(model.view.temples, bot) > 0, "the bot played first"
            # the moment after sealing: the board is empty, the bot's cartouches face down, nothing told
            assert stones_of(on_board(app), bot) == 0
            assert cartouches(app, bot) == ["back"] * 4
            text = told(app)
            assert "Cartouche 1" not in text and f"{player_name(bot)} places a stone" not in text
            assert screen.decision is None
            await idle(pilot, screen, pacing)
            text = told(app)
            assert on_board(app) == model.view.temples
            assert text.count(f"{player_name(bot)} places a stone") == stones_of(model.view.temples, bot)
            assert "Cartouche 4" in text and cartouches(app, bot) == ["up"] * 4
            assert screen.decision is not None
            await app.action_quit()
    finally:
        await server.stop()
