"""What the screens look like, as SVG snapshots at 80×24, 120×40, 160×48 and the smallest size (60×18).

Every screen is driven by fixed frames (``scripted``): a seeded game with seeded
choices, no server, frozen clocks.  After a deliberate change of the looks, run
``pytest tests/aton_tui/test_snapshots.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Markdown

from aton import BLUE, RED, Outcome, Termination
from aton.views import View
from aton_tui.app import Frame, StatusChanged
from aton_tui.screens.end import EndScreen
from aton_tui.screens.game import GameScreen
from aton_tui.screens.help import RULES_PAGE, HelpScreen
from aton_tui.screens.leaderboard import LeaderboardScreen
from aton_tui.screens.lobby import LobbyScreen
from aton_tui.screens.profile import ProfileScreen
from aton_tui.screens.scoring import ScoringScreen
from aton_tui.session import Status
from bots.hints import HINT_ITERATIONS, Hint, hint
from protocol import messages as m
from protocol.account_keys import AccountKey

from ..manual_clock import ManualClock
from .driving import wait_until
from .scripted import PLAYERS, FramesApp, ScriptedGame, blue_opens_a_round, frames_after, just_scored, red_to

#: (size, theme): every screen at the default size, the large layout, the smallest size, in both themes
LOOKS = [((80, 24), "aton-dark"), ((120, 40), "aton-dark"), ((160, 48), "aton-dark"), ((60, 18), "aton-dark"),
         ((80, 24), "aton-light"), ((120, 40), "aton-light"), ((60, 18), "aton-light")]
SIZES = pytest.mark.parametrize(("size", "theme"), LOOKS, ids=[
    f"{w}x{h}" + ("" if theme == "aton-dark" else "-light") for (w, h), theme in LOOKS])
NOW = 1_700_000_000


def rating(value: int, provisional: bool = False, games: int = 0) -> dict:
    return {"rating": value, "provisional": provisional, "games": games}


def lobby_frame() -> m.Lobby:
    return m.Lobby(
        players=({"name": "Ada", "kind": "human", "status": "lobby",
                  "ratings": {"blitz": rating(1500, True), "normal": rating(1623, games=40),
                              "relaxed": rating(1500, True)}},
                 {"name": "Bea", "kind": "human", "status": "waiting",
                  "ratings": {"blitz": rating(1847, games=12), "normal": rating(1502, True, 2),
                              "relaxed": rating(1500, True)}},
                 {"name": "~Cy", "kind": "human", "status": "playing"},
                 {"name": "Dee", "kind": "human", "status": "playing",
                  "ratings": {clock: rating(1500, True) for clock in m.CLOCKS}},
                 {"name": "Eve", "kind": "human", "status": "watching"}),
        tables=({"table": 31, "host": "Bea", "clock": "normal", "private": False, "since": NOW - 150,
                 "rated": True, "rating": rating(1502, True)},
                {"table": 34, "host": "~Fay", "clock": "blitz", "private": False, "since": NOW - 20,
                 "rated": False}),
        games=({"game": 12, "red": "~Cy", "blue": "Dee", "clock": "blitz", "spectators": 1, "round": 4,
                "scores": {"red": 12, "blue": 9}, "rated": False, "ratings": {"blue": rating(1500, True)}},
               {"game": 27, "red": "Gus", "blue": "Bot (hard)", "clock": "relaxed", "spectators": 0, "round": 9,
                "scores": {"red": 31, "blue": 38}, "rated": True,
                "ratings": {"red": rating(2012), "blue": rating(1704)}}),
    )


def shown(screen_type: type, version: int | None = None):
    """A run_before that waits until the frames are drawn and ``screen_type`` is on top."""
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: isinstance(app.screen, screen_type) and (
            version is None or (app.model is not None and app.model.version == version)), what=screen_type.__name__)
        await pilot.pause()
    return run_before


@SIZES
def test_lobby(snap_compare, size, theme):
    assert snap_compare(FramesApp([lobby_frame()], theme=theme), terminal_size=size, run_before=shown(LobbyScreen))


@SIZES
def test_commit_phase(snap_compare, size, theme):
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    script.blue_seals()
    hand = script.game.view(RED)["decision"]["hand"]
    press = [str(hand[-1]), str(hand[0])]  # the highest card on C1, the lowest on C2
    assert snap_compare(FramesApp(script.frames, theme=theme), press=press, terminal_size=size,
                        run_before=shown(GameScreen, script.version))


@SIZES
def test_placement_with_legal_squares(snap_compare, size, theme):
    script = ScriptedGame()
    script.play_until(red_to("place", round_at_least=3))
    assert snap_compare(FramesApp(script.frames, theme=theme), press=["right"], terminal_size=size,
                        run_before=shown(GameScreen, script.version))


@SIZES
def test_scoring_breakdown(snap_compare, size, theme):
    script = ScriptedGame()
    script.play_until(just_scored)
    assert snap_compare(FramesApp(script.frames, theme=theme), terminal_size=size,
                        run_before=shown(ScoringScreen, script.version))


@SIZES
def test_end_screen(snap_compare, size, theme):
    script = ScriptedGame(seed=9)
    script.play_until(lambda s: False, limit=2000)
    assert script.game.outcome() == Outcome(Termination.TEMPLE, RED)
    frames = script.frames
    # the scoring rounds of the game come first; the end screen follows them
    scorings = sum(1 for f in frames for e in getattr(f, "events", ()) if e.get("type") == "scoring_started")

    async def run_before(pilot) -> None:
        for _ in range(scorings):
            await shown(ScoringScreen)(pilot)
            await pilot.press("enter")
        await shown(EndScreen, script.version)(pilot)

    assert snap_compare(FramesApp(frames, theme=theme), terminal_size=size, run_before=run_before)


ISSUE_SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 18)], ids=["80x24", "120x40", "60x18"])


@ISSUE_SIZES
def test_mid_reveal(snap_compare, size):
    """Blue's cartouches 1 to 3 turned over, the fourth not yet: the board still shows the
    round before blue's turn, and the log has told only what is turned."""
    script = ScriptedGame()
    state = blue_opens_a_round(script)
    pacing = ManualClock()
    delay = 0.35

    async def run_before(pilot) -> None:
        await shown(GameScreen, script.version)(pilot)
        for _ in range(3):  # red's commitment was told; then cartouches 1, 2 and blue's 3
            pacing.advance(delay)
            await pilot.pause()
            await pilot.pause()

    app = FramesApp(frames_after(script, state), pacing=pacing, reveal_delay=delay)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def finished_game() -> ScriptedGame:
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    script.resign(BLUE)
    return script


RATED_PLAYERS = {"red": {**PLAYERS["red"], "rating": 1500, "provisional": True},
                 "blue": {**PLAYERS["blue"], "rating": 1700, "provisional": False}}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_end_screen_of_a_rated_game(snap_compare, size):
    """The ratings beside the names, and what the game did to them on the end screen."""
    script = finished_game()
    first, *updates = script.frames
    assert isinstance(first, m.GameState)
    last = updates[-1]
    assert isinstance(last, m.Update)
    changes = ({"type": "rating_changed", "player": "red", "before": 1500, "after": 1662, "provisional": True},
               {"type": "rating_changed", "player": "blue", "before": 1700, "after": 1691, "provisional": False})
    rated = replace(last, version=last.version + 2,
                    events=(*last.events, *({**e, "version": last.version + 1 + i} for i, e in enumerate(changes))))
    frames = [replace(first, players=RATED_PLAYERS, options={**first.options, "rated": True}), *updates[:-1], rated]
    assert snap_compare(FramesApp(frames), terminal_size=size, run_before=shown(EndScreen, rated.version))


@ISSUE_SIZES
def test_help(snap_compare, size):
    script = ScriptedGame()
    assert snap_compare(FramesApp(script.frames), press=["question_mark"], terminal_size=size,
                        run_before=shown(GameScreen, script.version))


@ISSUE_SIZES
def test_help_rules_page(snap_compare, size):
    """help → Rules (Tab), scrolled to the temples: the board's diagram whole at every size."""
    script = ScriptedGame()

    async def run_before(pilot) -> None:
        await shown(GameScreen, script.version)(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="the help")
        await pilot.press("tab")
        rules = pilot.app.screen.query_one(f"#{RULES_PAGE} Markdown", Markdown)
        await wait_until(pilot, lambda: bool(rules.table_of_contents), what="the rules laid out")
        temples = next(id_ for _, title, id_ in rules.table_of_contents if title == "The temples")
        page = pilot.app.screen.query_one(f"#{RULES_PAGE} VerticalScroll", VerticalScroll)
        page.scroll_to_widget(rules.query_one(f"#{temples}"), animate=False, top=True)
        await pilot.pause()

    assert snap_compare(FramesApp(script.frames), terminal_size=size, run_before=run_before)


@ISSUE_SIZES
def test_end_screen_with_the_opponents_rematch_offer(snap_compare, size):
    script = finished_game()
    offer = m.Update(game=12, version=script.version + 1,
                     events=({"type": "rematch_offered", "player": "blue", "version": script.version + 1},),
                     view=script.game.view(RED), clocks=script.updates[-1].clocks)

    async def run_before(pilot) -> None:
        await shown(EndScreen, script.version + 1)(pilot)
        await pilot.pause(0.2)

    assert snap_compare(FramesApp([*script.frames, offer]), terminal_size=size, run_before=run_before)


@ISSUE_SIZES
def test_resign_asks_first(snap_compare, size):
    """Shift+R: the question, with "Play on" focused (what Enter answers)."""
    script = ScriptedGame()
    assert snap_compare(FramesApp(script.frames), press=["R"], terminal_size=size,
                        run_before=shown(GameScreen, script.version))


async def hint_here(view: View, seed: int, iterations: int = HINT_ITERATIONS) -> Hint:
    """The hint's very search, in this process: a snapshot waits for nothing but it."""
    return hint(view, seed=seed, iterations=iterations)


def against_the_servers_bot(frames: list) -> list:
    """The frames of a game against the server's bot (whose options say how long it may pause)."""
    first = frames[0]
    return [replace(first, options={**first.options, "pause_s": 600.0}), *frames[1:]]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("kind", ["commit", "place"])
def test_a_hint_on_the_board(snap_compare, size, kind):
    """i: the cards laid on the cartouches (or the square under the cursor) and the line of why."""
    script = ScriptedGame()
    script.play_until(red_to(kind, round_at_least=2))

    async def run_before(pilot) -> None:
        await shown(GameScreen, script.version)(pilot)
        screen = pilot.app.screen
        screen.ask_for_hint = hint_here
        await pilot.press("i")
        await wait_until(pilot, lambda: screen.hint is not None, what="the hint")
        for _ in range(3):  # drawn with the line, then the reminder beside it fitted again
            await pilot.pause()

    assert snap_compare(FramesApp(against_the_servers_bot(script.frames)), terminal_size=size, run_before=run_before)


def test_too_small(snap_compare):
    """Below the smallest size, the notice instead of the game."""
    script = ScriptedGame()
    script.play_until(red_to("commit", round_at_least=2))
    assert snap_compare(FramesApp(script.frames), terminal_size=(50, 15),
                        run_before=shown(GameScreen, script.version))


def against_a_person(frames: list) -> list:
    """The frames of a game against a person, Ben, instead of the bot."""
    first = frames[0]
    players = {**first.players, "blue": {"name": "Ben", "kind": "human", "connected": True}}
    return [replace(first, players=players), *frames[1:]]


@ISSUE_SIZES
def test_the_opponent_muted(snap_compare, size):
    """After the palette's "Mute the opponent's chat": the server's answer, its notice, and "(muted)"
    beside the opponent's name."""
    script = ScriptedGame()
    frames = [*against_a_person(script.frames), m.Mutes(names=("Ben",), reply_to=1)]
    assert snap_compare(FramesApp(frames), terminal_size=size, run_before=shown(GameScreen, script.version))


@ISSUE_SIZES
def test_report_asks_why(snap_compare, size):
    """The palette's "Report the opponent": one line to the server's operator."""
    script = ScriptedGame()

    async def run_before(pilot) -> None:
        await shown(GameScreen, script.version)(pilot)
        await pilot.app.screen.run_action("report_opponent")
        await wait_until(pilot, lambda: isinstance(pilot.app.focused, Input), what="the report's line, focused")
        pilot.app.screen.query_one(Input).cursor_blink = False  # its cursor shown steadily, whenever it is drawn
        await pilot.pause(0.2)

    assert snap_compare(FramesApp(against_a_person(script.frames)), terminal_size=size, run_before=run_before)


@ISSUE_SIZES
def test_banned_in_a_game(snap_compare, size):
    """The operator's ban reaches a player at the table: the server's line, and the banner says the
    connection is closed for good."""
    script = ScriptedGame()
    line = "You are banned from this server (reason: insults) until 2026-12-10 18:00 UTC."
    frames = [*against_a_person(script.frames), m.Error(code="banned", message=line), m.Bye(code="banned", reason=line)]

    async def run_before(pilot) -> None:
        await shown(GameScreen, script.version)(pilot)
        pilot.app.post_message(StatusChanged(Status("failed", line)))
        await pilot.pause(0.2)

    assert snap_compare(FramesApp(frames), terminal_size=size, run_before=run_before)


#: An account with two keys, the first one this connection's (days at noon UTC: the same date everywhere).
ACCOUNT = m.AccountInfo(name="Ada", guest=False, kind="human", key="SHA256:qHx7U/c4fXuVHjIDKOanaKfLnvra1eI7bHRwtFbUBRA",
                        keys=({"fingerprint": "SHA256:qHx7U/c4fXuVHjIDKOanaKfLnvra1eI7bHRwtFbUBRA",
                               "added": 1_699_963_200, "last_seen": 1_700_049_600, "logins": 12},
                              {"fingerprint": "SHA256:0ZlNWbRiVnT7J9Ph7Vq7fVXl8zGk2Qw3Rl4mYbH6bX8",
                               "added": 1_700_049_600, "last_seen": None, "logins": 0}))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("info", [ACCOUNT, m.AccountInfo(name="~ada", guest=True, kind="human")],
                         ids=["account", "guest"])
def test_account(snap_compare, size, info):
    app = FramesApp([lobby_frame(), info])
    app.proof = AccountKey.from_seed(b"Ada")
    assert snap_compare(app, press=["a"], terminal_size=size, run_before=shown(LobbyScreen))


def profile_frame(reply_to: int) -> m.Profile:
    """A profile's first page: finished games of every kind, and one still played; an opponent
    who renamed himself since (Cyrus, then Cy)."""
    results = [("playing", None, None, None, "Bea"), ("won", "temple", 7, 1130, "Bot (hard)"),
               ("lost", "points", 9, 1515, "Cyrus"), ("drawn", "scoring", 14, 2400, "Dee"),
               ("won", "resign", 3, 260, "Eve"), ("lost", "time", 5, 610, "Fay"),
               ("won", "green", 11, 1744, "Gus with a long name"), ("won", "abandoned", 1, 75, "Hal")]
    games = tuple({"game": 120 - i, "started": f"2026-12-0{3 - i // 4}T1{8 - i}:2{i}:00Z", "clock": "normal",
                   "seat": "red" if i % 2 else "blue", "opponent": opponent, "result": result, "reason": reason,
                   "rounds": rounds, "seconds": seconds, "opponent_then": "Cy" if opponent == "Cyrus" else None}
                  for i, (result, reason, rounds, seconds, opponent) in enumerate(results))
    ratings = {"blitz": {"rating": 1500, "provisional": True, "games": 0},
               "normal": {"rating": 1623, "provisional": False, "games": 18},
               "relaxed": {"rating": 1488, "provisional": True, "games": 3}}
    return m.Profile(name="Ada", guest=False, played=23, won=12, lost=9, drawn=2, games=games, page=0, more=True,
                     ratings=ratings, reply_to=reply_to)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 18)], ids=["80x24", "120x40", "60x18"])
def test_profile(snap_compare, size):
    app = FramesApp([lobby_frame()])
    assert snap_compare(app, terminal_size=size, run_before=answered_from_the_lobby(
        app, "p", m.GetProfile, profile_frame, lambda screen: isinstance(screen, ProfileScreen) and screen.profile))


def answered_from_the_lobby(app: FramesApp, key: str, request: type[m.Message], answer, shown_when):
    """A run_before: ``key`` in the lobby sends ``request``, the server's ``answer(reply_to)``
    comes, and the screen on top is ``shown_when`` it says so."""
    async def run_before(pilot) -> None:
        await shown(LobbyScreen)(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: any(isinstance(sent, request) for sent in app.recording.sent),
                         what=f"{request.TYPE} sent")
        app.post_message(Frame(answer(len(app.recording.sent))))
        await wait_until(pilot, lambda: bool(shown_when(app.screen)), what="the answer shown")
        await pilot.pause()
    return run_before


def leaderboard_frame(reply_to: int) -> m.Leaderboard:
    """A leaderboard's first page, people and a bot, a name of the longest kind among them."""
    names = ["Bea", "Bot (hard)", "Gus with a long name", "Ada", "Cy", "Dee", "Eve", "Fay", "Hal", "Ivy"]
    entries = tuple({"rank": i + 1, "name": name, "kind": "bot" if name.startswith("Bot") else "human",
                     "rating": 1912 - 37 * i, "rd": 52 + 5 * i, "games": 140 - 11 * i} for i, name in enumerate(names))
    return m.Leaderboard(clock="normal", total=57, entries=entries, page=0, more=True, reply_to=reply_to)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 18)], ids=["80x24", "120x40", "60x18"])
def test_leaderboard(snap_compare, size):
    app = FramesApp([lobby_frame()])
    assert snap_compare(app, terminal_size=size, run_before=answered_from_the_lobby(
        app, "l", m.GetLeaderboard, leaderboard_frame,
        lambda screen: isinstance(screen, LeaderboardScreen) and screen.board))
