"""Schema versions: a database made before them (tests/fixtures/store-v0.sqlite, see
tests/fixtures/make_store_v0.py) opens under this code with every game kept, resumable and
exportable; a database newer than the code is refused; each migration is all or nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aton_tui.cli import main as aton_main
from protocol import messages as m
from server import store as store_module
from server.accounts import Accounts, bot_name
from server.app import ArbiterServer
from server.config import ServerConfig
from server.ratings import BOT_START, Ratings
from server.room import token_hash
from server.store import SCHEMA_VERSION, NewerSchema, Store

from ..manual_clock import ManualClock
from .players import Recorder
from .test_crash_safety import ROOT

FIXTURE = Path(__file__).parent.parent / "fixtures" / "store-v0.sqlite"
#: The resume token the fixture's blue player was given (printed by make_store_v0).
BLUE_TOKEN = "BAjAzxrnSh4ODtEKpVPvpZ3oLuWrQdisPikj0O6wEI0"
#: What the fixture holds, read with sqlite3 alone: game id -> (status, moves).
FIXTURE_GAMES = {1: ("over", 80), 2: ("over", 94), 3: ("over", 82), 4: ("playing", 8)}


@pytest.fixture
def old_db(tmp_path) -> Path:
    """A copy of the fixture database (the fixture itself is never written)."""
    copy = tmp_path / "aton.db"
    shutil.copy(FIXTURE, copy)
    return copy


def rows(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_the_fixture_is_a_database_from_before_schema_versions():
    assert rows(FIXTURE, "PRAGMA user_version") == [(0,)]
    games = rows(FIXTURE, "SELECT g.id, g.status, count(m.seq) FROM games g JOIN moves m ON m.game = g.id "
                          "GROUP BY g.id")
    assert {gid: (status, moves) for gid, status, moves in games} == FIXTURE_GAMES


def test_an_unversioned_database_is_migrated_with_every_game_and_move_kept(old_db):
    before = rows(old_db, "SELECT game, seq, seat, move, at FROM moves ORDER BY game, seq")
    games_before = rows(old_db, "SELECT id, seed, rules, options, seats, status, result, version FROM games")
    store = Store(old_db)
    assert store.schema_version == SCHEMA_VERSION
    loaded = {g.id: g for g in store.load_games()}
    assert {gid: (g.status, len(g.moves)) for gid, g in loaded.items()} == FIXTURE_GAMES
    assert loaded[4].seals["red"]["digest"] is not None and loaded[4].pause is not None
    store.close()
    assert rows(old_db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert rows(old_db, "SELECT game, seq, seat, move, at FROM moves ORDER BY game, seq") == before
    assert rows(old_db, "SELECT id, seed, rules, options, seats, status, result, version FROM games") == games_before
    # the ratings' tables (version 6) are there, and empty: no game before them was rated
    assert rows(old_db, "SELECT (SELECT count(*) FROM ratings), (SELECT count(*) FROM rating_changes)") == [(0, 0)]
    # every game before version 7 is Aton's, and no seal shows anything before it is opened
    assert {g.game for g in loaded.values()} == {"aton"} and loaded[4].seals["red"]["claim"] is None
    # the database as it was is kept beside it, and opening again migrates nothing more
    backup = old_db.with_name("aton.db.schema-0.bak")
    assert rows(backup, "PRAGMA user_version") == [(0,)]
    assert rows(backup, "SELECT game, seq, seat, move, at FROM moves ORDER BY game, seq") == before
    assert backup.stat().st_mode & 0o777 == 0o600
    Store(old_db).close()
    assert rows(old_db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]


def test_an_old_database_gets_the_moderation_tables_and_the_operator_works_on_it(old_db, capsys):
    from server.cli import main as server_main

    assert server_main(["admin", "ban", "203.0.113.0/24", "--db", str(old_db)]) == 0  # migrates it first
    assert {row[0] for row in rows(old_db, "SELECT name FROM sqlite_master WHERE type = 'table'")} >= {
        "bans", "chat_mutes", "player_mutes", "reports", "logins"}
    capsys.readouterr()
    listed = {}
    for listing in ("bans", "logins", "reports", "mutes"):
        assert server_main(["admin", listing, "--json", "--db", str(old_db)]) == 0
        listed[listing] = len(json.loads(capsys.readouterr().out))
    assert listed == {"bans": 1, "logins": 0, "reports": 0, "mutes": 0}
    assert rows(old_db, "SELECT count(*) FROM games") == [(len(FIXTURE_GAMES),)]


async def test_the_unfinished_game_of_an_old_database_resumes_on_the_real_server(old_db):
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(old_db)), clock=ManualClock())
    await server.start()
    try:
        assert set(server.rooms) == {4}
        blue = await Recorder.connect(server.port, "ignored", kind="bot", resume=BLUE_TOKEN, lobby=False)
        state = await blue.expect(m.GameState)
        assert (state.game, state.seat, state.view["round"]) == (4, "blue", 2)
        decision = blue.my_decision()
        assert decision is not None and decision["kind"] == "commit"
        assert state.commitments == {"red": "sealed", "blue": "none"}
        await blue.close()
    finally:
        await server.stop()


def test_an_old_databases_games_are_found_by_their_players_sessions(old_db):
    store = Store(old_db)
    try:
        games = store.games_of(token_hash(BLUE_TOKEN), None, limit=10)
        assert [g.id for g in games] == [4, 3, 2, 1]  # newest first, each with its seat of blue's
        assert [g.status for g in games] == ["playing", "over", "over", "over"]
        assert store.games_of(token_hash(BLUE_TOKEN), None, limit=2, skip=1)[0].id == 3
        assert store.games_of(token_hash("someone else"), None, limit=10) == []
    finally:
        store.close()


async def test_an_old_databases_finished_game_is_served_from_it_by_get_record(old_db):
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(old_db)), clock=ManualClock())
    await server.start()
    try:
        blue = await Recorder.connect(server.port, "ignored", kind="bot", resume=BLUE_TOKEN, lobby=False)
        await blue.send(m.GetRecord(game=1))
        record = (await blue.expect(m.GameRecordReply)).record
        assert len(record["moves"]) == FIXTURE_GAMES[1][1] and record["meta"]["started"].endswith("Z")
        await blue.close()
    finally:
        await server.stop()


def test_every_game_of_an_old_database_is_exported_and_replays(old_db, tmp_path, capsys):
    out = tmp_path / "records"
    done = subprocess.run([sys.executable, "-m", "server.cli", "export", "--db", str(old_db), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"exported 4 game(s) to {out}"
    for gid, (status, moves) in FIXTURE_GAMES.items():
        record = json.loads((out / f"game-{gid}.json").read_text())
        assert (record["meta"]["status"], len(record["moves"])) == (status, moves)
        capsys.readouterr()
        assert aton_main(["replay", str(out / f"game-{gid}.json"), "--json"]) == 0
        final = json.loads(capsys.readouterr().out)
        assert (final["winner"] is None) == (status == "playing")
        if status == "over":
            assert final["winner"] == record["meta"]["result"]["winner"]


def test_a_database_newer_than_the_code_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "aton.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    content = path.read_bytes()
    with pytest.raises(NewerSchema, match=f"schema version {SCHEMA_VERSION + 1}; this release knows versions up to"):
        Store(path)
    assert path.read_bytes() == content
    done = subprocess.run([sys.executable, "-m", "server.cli", "--port", "0", "--db", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]  # (after the log's lines about how it would serve)
    assert last.startswith(f"aton-server: {path} was written by a newer release of aton-server")
    assert "Traceback" not in done.stderr


def test_a_failing_migration_leaves_the_database_at_the_version_before(old_db, monkeypatch):
    def half_done(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half (x)")
        raise sqlite3.OperationalError("the disk is full")

    migrations = (*store_module.MIGRATIONS, half_done)
    monkeypatch.setattr(store_module, "MIGRATIONS", migrations)
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", len(migrations))
    with pytest.raises(sqlite3.OperationalError, match="the disk is full"):
        Store(old_db)
    assert rows(old_db, "PRAGMA user_version") == [(len(migrations) - 1,)]
    assert rows(old_db, "SELECT name FROM sqlite_master WHERE name = 'half'") == []
    assert rows(old_db, "SELECT count(*) FROM moves") == [(sum(moves for _, moves in FIXTURE_GAMES.values()),)]


def test_the_respaced_bot_levels_start_their_ratings_again_and_nothing_else_moves(tmp_path, monkeypatch):
    path = tmp_path / "aton.db"
    monkeypatch.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:7])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 7)
    store = Store(path)  # a database of version 7, with ratings from before the levels were spaced again
    accounts = Accounts(store)
    ids = {name: accounts.create(name, kind).id for name, kind in (
        (bot_name("random"), "bot"), (bot_name("normal"), "bot"), (bot_name("hard"), "bot"), ("alice", "human"))}
    store.create_game(1, 7, {}, {"clock": "normal"}, {})
    store.commit()
    for account in ids.values():
        store.db.execute("INSERT INTO ratings (account, clock, rating, rd, volatility, games, updated) "
                         "VALUES (?, 'normal', 1650, 80, 0.09, 30, 0)", (account,))
        store.db.execute("INSERT INTO rating_changes VALUES (1, ?, 'normal', 1600, 90, 1650, 80)", (account,))
    store.commit()
    store.close()
    monkeypatch.undo()

    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION >= 8
    kept = {account for (account,) in store.db.execute("SELECT account FROM ratings")}
    assert kept == {ids[bot_name("random")], ids["alice"]}  # random plays as before; people keep theirs
    assert store.db.execute("SELECT count(*) FROM rating_changes").fetchone() == (4,)  # history as it was
    hard = Ratings(store, bot_levels={ids[bot_name("hard")]: "hard"}).get(ids[bot_name("hard")], "normal")
    assert (hard.rating, hard.rd) == BOT_START["hard"]
    store.close()
