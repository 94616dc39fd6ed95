"""The data directory and the database are private: they hold every live game's seed."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from protocol import messages as m
from server.app import ArbiterServer
from server.config import ServerConfig

from .players import matched_pair

DATABASE_FILES = ("aton.db", "aton.db-wal", "aton.db-shm")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def permissive_umask():
    """The usual umask of a service (022): what the server creates must not depend on it."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


async def play_one_commit(db: Path) -> None:
    """A real server on ``db`` stores a commitment (so the -wal and -shm exist), then stops."""
    server = ArbiterServer(ServerConfig(port=0, db_path=str(db)))
    await server.start()
    try:
        red, blue = await matched_pair(server.port)
        await red.client.commit(red.game, red.view["decision"]["hand"])
        await red.expect(m.Ack)
        assert all((db.parent / name).exists() for name in DATABASE_FILES)
        assert {name: mode(db.parent / name) for name in DATABASE_FILES} == dict.fromkeys(DATABASE_FILES, 0o600)
        await red.close()
        await blue.close()
    finally:
        await server.stop()


async def test_a_new_data_directory_is_0700_and_the_database_files_0600(tmp_path, permissive_umask):
    data = tmp_path / "state" / "aton"
    await play_one_commit(data / "aton.db")
    assert mode(data) == 0o700
    assert mode(data / "aton.db") == mode(data / "resume_secret") == 0o600


async def test_database_files_readable_by_others_are_made_private(tmp_path, permissive_umask):
    db = tmp_path / "aton.db"
    older = sqlite3.connect(db)  # an older server's files, 0644, with a -wal and -shm left open
    older.execute("PRAGMA journal_mode=WAL")
    older.execute("CREATE TABLE leftover (x)")
    older.execute("INSERT INTO leftover VALUES (1)")
    older.commit()
    assert {mode(tmp_path / name) for name in DATABASE_FILES} == {0o644}
    try:
        await play_one_commit(db)
    finally:
        older.close()
    assert mode(db) == 0o600
