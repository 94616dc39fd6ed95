"""Accounts (issue 15, point 1): the tables, the lookups, the hosted bots' accounts, each seat's
account kept with its game, and the SSH gateway's remembered keys folded into accounts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol import messages as m
from server.accounts import Account, Accounts, NameTaken, bot_name
from server.app import ArbiterServer
from server.config import ServerConfig
from server.store import MIGRATIONS, Store

from ..manual_clock import ManualClock
from .players import Recorder

#: The gateway's table before accounts, as the releases before them made it.
SSH_IDENTITIES = """CREATE TABLE ssh_identities (fingerprint TEXT PRIMARY KEY, name TEXT NOT NULL,
    first_seen REAL NOT NULL, last_seen REAL NOT NULL, logins INTEGER NOT NULL DEFAULT 1)"""


def test_names_are_owned_by_what_they_look_like(tmp_path):
    store = Store(tmp_path / "aton.db")
    accounts = Accounts(store)
    alice = accounts.create("Alice", "human", fingerprint="SHA256:alice")
    assert alice == Account(alice.id, "Alice", "human")
    assert accounts.by_id(alice.id) == accounts.by_fingerprint("SHA256:alice") == alice
    for lookalike in ("alice", "ALICE", "Alicé", "A1ice", "аlice", "a l i c e"):  # Cyrillic а too
        assert accounts.by_name(lookalike) == alice, lookalike
        with pytest.raises(NameTaken):
            accounts.create(lookalike, "human")
    assert accounts.free_variant("alice") == "alice-2"
    assert accounts.by_fingerprint("SHA256:nobody") is None and accounts.by_id(alice.id + 100) is None
    store.close()


def database_before_accounts(path: Path, remembered: dict[str, str]) -> None:
    """A database as the release before accounts left it, whose SSH gateway remembered these
    names for these keys (fingerprint -> name), each key first seen after the one before."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    for migration in MIGRATIONS[:2]:
        migration(db)
    db.execute("PRAGMA user_version = 2")
    db.execute(SSH_IDENTITIES)
    db.executemany("INSERT INTO ssh_identities VALUES (?, ?, ?, ?, ?)",
                   [(fp, name, 100.0 * n, 100.0 * n + 50, n) for n, (fp, name) in enumerate(remembered.items(), 1)])
    db.commit()
    db.close()


def test_the_ssh_gateways_remembered_keys_become_accounts_with_free_valid_names(tmp_path):
    path = tmp_path / "aton.db"
    # a second key took the same name, as names were not owned; an older server kept a name not valid today
    remembered = {"SHA256:first": "alice", "SHA256:second": "Alice", "SHA256:bob": "bob",
                  "SHA256:old": "bad\x1b[2Jname", "SHA256:older": "x" * 30}
    database_before_accounts(path, remembered)
    store = Store(path)
    accounts = Accounts(store)
    names = {fp: account.name for fp in remembered if (account := accounts.by_fingerprint(fp)) is not None}
    assert names == {"SHA256:first": "alice", "SHA256:second": "Alice-2", "SHA256:bob": "bob",
                     "SHA256:old": "player", "SHA256:older": "player-2"}
    assert accounts.by_fingerprint("SHA256:bob") == accounts.by_name("bob")
    kept = store.db.execute("SELECT added, last_seen, logins FROM account_keys WHERE fingerprint = 'SHA256:first'")
    assert kept.fetchall() == [(100.0, 150.0, 1)]
    store.close()


async def test_hosted_bots_have_accounts_and_every_seat_keeps_its_account_across_a_restart(tmp_path):
    config = ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), game_seed=7)
    server = ArbiterServer(config, clock=ManualClock())
    await server.start()
    bots = {level: account for level in m.BOT_LEVELS if (account := server.accounts.by_name(bot_name(level)))}
    assert set(bots) == set(m.BOT_LEVELS) and all(account.kind == "bot" for account in bots.values())
    player = await Recorder.connect(server.port, "ann", lobby=False)
    ann = server.accounts.by_name("ann")
    assert ann is not None and ann.kind == "human"
    await player.send(m.PlayBot(level="easy", clock="relaxed"))
    state = await player.expect(m.GameState)
    room = server.rooms[state.game]
    seats = {str(seat): held for seat, held in room.seats.items()}
    assert state.seat is not None and seats[state.seat].account == ann.id
    bot_seat = "red" if state.seat == "blue" else "blue"
    assert seats[bot_seat].account == bots["easy"].id
    await player.close()
    await server.stop()

    again = ArbiterServer(config, clock=ManualClock())
    assert {level: again.accounts.by_name(bot_name(level)) for level in m.BOT_LEVELS} == bots  # made once
    await again.start()
    restored = {str(seat): held.account for seat, held in again.rooms[state.game].seats.items()}
    assert restored == {state.seat: ann.id, bot_seat: bots["easy"].id}
    await again.stop()
