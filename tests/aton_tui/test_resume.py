"""Starting ``aton`` again takes back the unfinished game; session tokens are kept privately."""

from __future__ import annotations

import json
import stat

from aton_tui.app import AtonApp, Launch
from aton_tui.cli import build_app, build_parser
from aton_tui.narrate import narrate
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from protocol.handoff import HOSTED_VARIABLE
from protocol.saved_games import SavedGames
from protocol.saved_sessions import MAX_SERVERS, SavedSessions, sessions_path
from server.store import Store
from tests.server.players import Recorder

from .conftest import quiet_settings
from .driving import decision_of, game_screen, model_of, screen_of, wait_until


def tokens_file(tmp_path) -> SavedSessions:
    return SavedSessions(tmp_path / "data" / "sessions.json")


def test_tokens_are_kept_per_server_in_a_file_only_this_user_can_read(tmp_path):
    sessions = tokens_file(tmp_path)
    assert sessions.token("example.org:2866") is None
    sessions.remember("example.org:2866", "token-a" * 3)
    sessions.remember("local:/db", "token-b" * 3)
    assert SavedSessions(sessions.path).token("example.org:2866") == "token-a" * 3
    assert sessions.token("local:/db") == "token-b" * 3
    assert stat.S_IMODE(sessions.path.stat().st_mode) == 0o600


def test_a_damaged_tokens_file_is_ignored_and_only_recent_servers_are_kept(tmp_path):
    sessions = tokens_file(tmp_path)
    sessions.path.parent.mkdir(parents=True)
    sessions.path.write_text("{not json")
    assert sessions.token("x:1") is None
    for n in range(MAX_SERVERS + 5):
        sessions.remember(f"host{n}:1", f"token-{n:04d}-padding")
    kept = json.loads(sessions.path.read_text())
    assert len(kept) == MAX_SERVERS and "host0:1" not in kept and f"host{MAX_SERVERS + 4}:1" in kept


def test_aton_keeps_its_games_beside_its_tokens_and_a_hosted_client_keeps_none(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    app = build_app(build_parser().parse_args([]), {})
    assert app.sessions is not None and app.sessions.path == sessions_path() == tmp_path / "aton" / "sessions.json"
    assert app.kept_games == app.sessions.path.parent
    hosted = build_app(build_parser().parse_args(["connect", "example.org:2866"]), {HOSTED_VARIABLE: "1"})
    assert hosted.kept_games is None and hosted.sessions is None


def bot_game_app(tmp_path, sessions: SavedSessions) -> AtonApp:
    """``aton`` as the command starts it: its session tokens, its account keys and what it saw of
    its deals kept between runs."""
    launch = Launch(name="tester", serve="127.0.0.1", db_path=str(tmp_path / "aton.db"),
                    start="bot", level="random", clock="relaxed")
    return AtonApp(launch, quiet_settings(), sessions=sessions, keys=tmp_path / "data" / "keys",
                   kept_games=tmp_path / "data")


async def test_starting_aton_again_takes_back_the_unfinished_game(tmp_path):
    """With its log (issue 13, defect 15: it came back empty; its clock: see the server's tests),
    and what it saw of the deal: at the end the decks are checked as if it had never left."""
    sessions = tokens_file(tmp_path)
    first = bot_game_app(tmp_path, sessions)
    async with first.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: first.model is not None and model_of(first).decision is not None,
                         what="the first game")
        game, seat = model_of(first).game, model_of(first).seat
        await pilot.press(*(str(v) for v in sorted(decision_of(first).hand)), "enter")
        await wait_until(pilot, lambda: model_of(first).view.round == 1 and model_of(first).view.phase != "commit",
                         what="the first round's reveal")
        seen = [numbered.event for numbered in model_of(first).events]
        await first.action_quit()

    second = bot_game_app(tmp_path, sessions)
    async with second.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: second.model is not None and game_screen(second) is not None,
                         what="the game taken back")
        assert (model_of(second).game, model_of(second).seat) == (game, seat)
        assert [numbered.event for numbered in model_of(second).events][:len(seen)] == seen
        log = " ".join(" ".join(line.text for line in screen_of(second).query_one(GameLog).lines).split())
        for line in narrate(seen, model_of(second).seat):  # on the screen, wrapped at its width
            assert " ".join(line.split()) in log
        await pilot.pause(0.3)
        assert model_of(second).game == game, "no new game was started"
        await second.send(m.Resign(game=game))
        await wait_until(pilot, lambda: any(line.startswith("Decks verified: ") for _, line in
                                            screen_of(second).query_one(GameLog).story), what="the decks checked")
        assert SavedGames(tmp_path / "data", f"local:{tmp_path / 'aton.db'}").deals.load() == {}
        await second.action_quit()
    store = Store(tmp_path / "aton.db")
    try:
        assert [g.id for g in store.load_games()] == [game]
    finally:
        store.close()


async def test_aton_started_between_sealing_and_opening_shows_its_cards_and_opens_them(server, tmp_path):
    """ann seals her cartouches, quits before bob has sealed his, and starts again: her cartouches
    show the cards she sealed, and once bob commits her client opens them by itself (before,
    nothing could open them: her open clock ran out and she lost the game)."""
    sessions = tokens_file(tmp_path)

    def ann(start: str) -> AtonApp:
        return AtonApp(Launch(name="ann", port=server.port, start=start, clock="relaxed"), quiet_settings(),
                       sessions=sessions, keys=tmp_path / "data" / "keys", kept_games=tmp_path / "data")

    first = ann("table")
    bob = None
    try:
        async with first.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: bool(server.lobby.tables), what="ann's table")
            bob = await Recorder.connect(server.port, "bob", kind="human", lobby=False)
            await bob.send(m.JoinTable(table=next(iter(server.lobby.tables))))
            await bob.expect(m.GameState)
            await wait_until(pilot, lambda: first.model is not None and decision_of(first) is not None,
                             what="ann's commit")
            game, hand = model_of(first).game, sorted(decision_of(first).hand, reverse=True)
            await pilot.press(*(str(v) for v in hand), "enter")
            room = server.rooms[game]
            await wait_until(pilot, lambda: len(room.seals) == 1, what="ann's seal")
            await first.action_quit()

        second = ann("lobby")
        async with second.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: second.model is not None and game_screen(second) is not None,
                             what="the game taken back")
            screen, seat = game_screen(second), model_of(second).seat
            assert screen is not None and seat is not None
            assert [(face.state, face.value) for face in screen._cartouches(seat)] == [("mine", v) for v in hand]
            await bob.until(lambda msg: (bob.my_decision() or {}).get("kind") == "commit")
            await bob.client.commit(game, sorted((bob.my_decision() or {})["hand"]))
            await bob.until(lambda msg: isinstance(msg, m.Update) and msg.view["phase"] != "commit")  # (bob opens)
            await wait_until(pilot, lambda: model_of(second).view.phase.name != "COMMIT", what="the reveal")
            assert not room.game.is_over
            assert model_of(second).view.player(seat).cartouches == tuple(hand)
            await second.action_quit()
    finally:
        if bob is not None:
            await bob.client.close()
