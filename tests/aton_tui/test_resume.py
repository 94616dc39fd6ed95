"""Starting ``aton`` again takes back the unfinished game; session tokens are kept privately."""

from __future__ import annotations

import json
import stat

from aton_tui.app import AtonApp, Launch
from aton_tui.cli import build_app, build_parser
from aton_tui.narrate import narrate
from aton_tui.saved_deals import MAX_GAMES, SavedDeals, deals_path
from aton_tui.saved_sessions import MAX_SERVERS, SavedSessions
from aton_tui.widgets.game_log import GameLog
from protocol import messages as m
from protocol.fairness import DealWitness, server_commitment
from protocol.handoff import HOSTED_VARIABLE
from server.store import Store

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


def test_what_was_seen_of_deals_is_kept_per_server_privately_and_for_recent_games_only(tmp_path):
    path = tmp_path / "data" / "deals.json"
    here, there = SavedDeals(path, "local:/db"), SavedDeals(path, "example.org:2866")
    assert here.load() == {}
    witnesses = {game: DealWitness(game, "red", server_commitment(bytes(32)), bytes([game]) * 32)
                 for game in range(1, MAX_GAMES + 6)}
    witnesses[3].saw({"type": "card_revealed", "player": "blue", "cartouche": 1, "value": 4, "version": 7})
    here.keep(witnesses)
    there.keep({1: witnesses[1]})
    assert SavedDeals(path, "local:/db").load() == {game: witnesses[game] for game in range(6, MAX_GAMES + 6)}
    assert there.load() == {1: witnesses[1]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    here.keep({})  # every deal revealed: the server's entry goes
    assert list(json.loads(path.read_text())) == ["example.org:2866"]


def test_a_damaged_deals_file_or_entry_is_left_out(tmp_path):
    path = tmp_path / "deals.json"
    path.write_text("[1, 2")
    assert SavedDeals(path, "x:1").load() == {}
    good = DealWitness(4, "blue", server_commitment(bytes(32)))
    path.write_text(json.dumps({"x:1": {"3": {"game": 3, "seat": "red"}, "4": good.to_dict()}, "y:1": [1]}))
    assert SavedDeals(path, "x:1").load() == {4: good} and SavedDeals(path, "y:1").load() == {}


def test_aton_keeps_its_deals_beside_its_tokens_and_a_hosted_client_keeps_none(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    app = build_app(build_parser().parse_args([]), {})
    assert app.deals == deals_path() == tmp_path / "aton" / "deals.json"
    assert app.sessions is not None and app.sessions.path.parent == app.deals.parent
    hosted = build_app(build_parser().parse_args(["connect", "example.org:2866"]), {HOSTED_VARIABLE: "1"})
    assert hosted.deals is None and hosted.sessions is None


def bot_game_app(tmp_path, sessions: SavedSessions) -> AtonApp:
    """``aton`` as the command starts it: its session tokens, its account keys and what it saw of
    its deals kept between runs."""
    launch = Launch(name="tester", serve="127.0.0.1", db_path=str(tmp_path / "aton.db"),
                    start="bot", level="random", clock="relaxed")
    return AtonApp(launch, quiet_settings(), sessions=sessions, keys=tmp_path / "data" / "keys",
                   deals=tmp_path / "data" / "deals.json")


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
        assert SavedDeals(tmp_path / "data" / "deals.json", f"local:{tmp_path / 'aton.db'}").load() == {}
        await second.action_quit()
    store = Store(tmp_path / "aton.db")
    try:
        assert [g.id for g in store.load_games()] == [game]
    finally:
        store.close()
