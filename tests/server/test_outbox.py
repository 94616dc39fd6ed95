"""The outbox: frames leave only after the turn's writes are committed; slow readers are dropped."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sqlite3

import pytest

from aton.players import Player
from protocol import messages as m
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.store import Store, StoreFailed

from .players import Recorder, matched_pair
from .test_bad_input import RawPeer


class StoredMoves:
    """A second, independent connection to the server's database: what a crash would leave."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)

    def last_move(self, game: int, seat: str) -> dict | None:
        row = self.db.execute("SELECT move FROM moves WHERE game = ? AND seat = ? ORDER BY seq DESC LIMIT 1",
                              (game, seat)).fetchone()
        return None if row is None else json.loads(row[0])

    def has_seal(self, game: int, seat: str) -> bool:
        count = self.db.execute("SELECT COUNT(*) FROM seals WHERE game = ? AND seat = ?", (game, seat)).fetchone()[0]
        return count == 1

    def close(self) -> None:
        self.db.close()


async def test_every_acknowledged_move_is_already_committed_when_its_ack_arrives(server):
    red, blue = await matched_pair(server.port)
    stored = StoredMoves(server.config.db_path)
    rng = random.Random(7)
    checked = {"commit": 0, "move": 0}

    async def play(player: Recorder) -> None:
        while not (player.view and player.view["winner"] is not None):
            await player.act(rng)
            pending = dict(player.sent)
            msg = await player.recv()
            if isinstance(msg, m.Ack) and msg.reply_to in pending:
                move = pending[msg.reply_to]
                if move["move"] == "commit":
                    assert stored.has_seal(player.game, player.seat), "a commitment was acknowledged unstored"
                    checked["commit"] += 1
                else:
                    assert stored.last_move(player.game, player.seat) == move, "a move was acknowledged unstored"
                    checked["move"] += 1

    try:
        await asyncio.wait_for(asyncio.gather(play(red), play(blue)), 60)
    finally:
        stored.close()
    assert checked["commit"] >= 4 and checked["move"] >= 4


async def test_a_client_that_does_not_read_is_dropped_and_the_game_beside_it_goes_on(tmp_path):
    limits = Limits(outbox_bytes=64 * 1024, messages_per_second=10_000, message_burst=10_000)
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "slow.db"), limits=limits))
    await srv.start()
    try:
        red, blue = await matched_pair(srv.port)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that barely reads
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", srv.port))
        mallory = RawPeer(*await asyncio.open_connection(sock=sock))
        mallory.send({"type": "hello", "version": "1.0", "name": "mallory", "kind": "human", "lobby": False})
        mallory.welcome = await mallory.read()
        assert mallory.welcome["type"] == "welcome"
        # a congested network: small kernel buffers on both sides, so what mallory does not
        # read piles up in the server's transport (loopback would otherwise absorb megabytes)
        served = next(c for c in srv.connections if c.name == mallory.welcome["name"])
        assert served.transport is not None
        served.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        for i in range(3000):  # each answer is the whole game: megabytes that are never read
            mallory.send({"type": "watch", "game": red.game, "id": i})
        await mallory.writer.drain()
        for _ in range(500):
            if not any(c.name == mallory.welcome["name"] for c in srv.connections):
                break
            await asyncio.sleep(0.01)
        assert not any(c.name == mallory.welcome["name"] for c in srv.connections), \
            "the slow reader is still connected"
        rng = random.Random(3)
        await asyncio.wait_for(asyncio.gather(red.play(rng), blue.play(rng)), 60)
        assert red.view["winner"] is not None
        assert not red.errors() and not blue.errors()
        mallory.close()
    finally:
        await srv.stop()


async def test_a_write_the_database_refuses_is_never_announced_and_the_server_stops(tmp_path):
    db = str(tmp_path / "refusing.db")
    srv = ArbiterServer(ServerConfig(port=0, db_path=db))
    await srv.start()
    try:
        red, _blue = await matched_pair(srv.port)
        game = red.game
        saboteur = sqlite3.connect(db)
        saboteur.execute("CREATE TRIGGER refuse BEFORE INSERT ON seals "
                         "BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END")
        saboteur.commit()
        await red.client.commit(game, sorted(red.view["decision"]["hand"]))
        await asyncio.wait_for(srv.failed.wait(), 10)
        heard: list[m.Message] = []
        try:
            while True:
                heard.append(await red.client.recv(5))
        except (ConnectionError, asyncio.IncompleteReadError, EOFError):
            pass
        assert not any(isinstance(f, (m.Ack, m.Update)) for f in heard), "an unstored commitment was announced"
        saboteur.execute("DROP TRIGGER refuse")
        saboteur.commit()
        saboteur.close()
    finally:
        await srv.stop()
    restarted = ArbiterServer(ServerConfig(port=0, db_path=db))
    await restarted.start()
    try:
        room = restarted.rooms[game]
        assert not room.seals and room.game.sealed and Player.parse(red.seat) in room.game.pending(), \
            "the game resumes before the refused write"
    finally:
        await restarted.stop()


def test_after_a_failed_commit_the_store_writes_nothing_more(tmp_path):
    """The games in memory are ahead of the database then: a later write would leave a gap."""
    store = Store(tmp_path / "latch.db")
    store.create_game(1, seed=5, rules={}, options={}, seats={})
    store.commit()
    saboteur = sqlite3.connect(tmp_path / "latch.db")
    saboteur.execute("CREATE TRIGGER refuse BEFORE INSERT ON moves BEGIN SELECT RAISE(ABORT, 'no'); END")
    saboteur.commit()
    store.save_moves(1, 0, [("red", {"move": "exchange"})], version=1)
    with pytest.raises(sqlite3.Error):
        store.commit()
    saboteur.execute("DROP TRIGGER refuse")
    saboteur.commit()
    store.save_moves(1, 1, [("blue", {"move": "exchange"})], version=2)
    with pytest.raises(StoreFailed):
        store.commit()
    store.close()
    assert saboteur.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0
    saboteur.close()


def test_a_database_from_before_seals_held_moves_opens_and_keeps_its_seals(tmp_path):
    """A database whose seals table held cards and no nonce (before protocol 1.3's server)."""
    old = sqlite3.connect(tmp_path / "old.db")
    old.executescript("""
        CREATE TABLE seals (game INTEGER NOT NULL, seat TEXT NOT NULL, digest BLOB, cards TEXT,
                            PRIMARY KEY (game, seat));
        INSERT INTO seals VALUES (1, 'red', x'00', NULL);
        INSERT INTO seals VALUES (1, 'blue', NULL, '[1, 2, 3, 4]');
    """)
    old.close()
    store = Store(tmp_path / "old.db")
    store.create_game(1, seed=5, rules={}, options={}, seats={})
    red_commit = {"move": "commit", "cards": [4, 3, 2, 1]}
    store.save_opening(1, "red", red_commit, b"nonce")
    store.close()
    reopened = Store(tmp_path / "old.db")
    assert reopened.load_games()[0].seals == {
        "red": {"digest": b"\x00", "move": red_commit, "nonce": b"nonce", "claim": None},
        "blue": {"digest": None, "move": {"move": "commit", "cards": [1, 2, 3, 4]}, "nonce": None, "claim": None},
    }
    reopened.close()
