"""SIGKILL the server in the middle of a game, restart it on the same database, finish the game."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Sequence

from aton.record import GameRecord, replay, summary
from protocol import messages as m
from protocol.commitment import seal
from server.export import export_games

from .players import Recorder, matched_pair

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ServerProcess:
    """``aton-server`` as a child process on a free loopback port."""

    def __init__(self, db: str, log_level: str = "warning", port: int = 0, extra: Sequence[str] = ()) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "--host", "127.0.0.1", "--port", str(port), "--db", db,
             "--log-level", log_level, *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        line = self.proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:"), line + self.proc.stderr.read()
        self.port = int(line.rsplit(":", 1)[1])

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=10)


async def play_until_killed(player: Recorder, rng: random.Random) -> None:
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, OSError):
        await player.play(rng)


async def test_sigkill_mid_game_loses_nothing_and_doubles_nothing(tmp_path):
    db = str(tmp_path / "crash.db")
    first = ServerProcess(db)
    red, blue = await matched_pair(first.port)
    game_id = red.game
    rngs = {"red": random.Random(11), "blue": random.Random(12)}
    tasks = [asyncio.create_task(play_until_killed(p, rngs[p.seat])) for p in (red, blue)]
    while red.version < 60 and not all(t.done() for t in tasks):
        await asyncio.sleep(0.001)
    first.kill()  # in the middle of play: both clients are sending moves
    await asyncio.gather(*tasks)
    assert red.view["winner"] is None, "the game should still be running when the server dies"
    in_flight = {seat: dict(p.sent) for seat, p in (("red", red), ("blue", blue))}
    seen = {player.seat: player.version for player in (red, blue)}

    second = ServerProcess(db)
    try:
        for player in (red, blue):
            player.acted_on = -1
            player.sent.clear()
            await player.client.reconnect("127.0.0.1", second.port)
            state = await player.expect(m.GameState)
            assert (state.game, state.seat) == (game_id, player.seat)
            assert state.version >= seen[player.seat]  # versions go on from the last one stored
        await asyncio.gather(red.play(rngs["red"]), blue.play(rngs["blue"]))
        assert red.view["winner"] == blue.view["winner"] is not None
    finally:
        assert second.terminate() == 0  # a clean stop on SIGTERM

    paths = export_games(db, tmp_path / "export")
    record = json.loads(paths[0].read_text())
    final = replay(GameRecord.from_dict(record))
    assert summary(final)["winner"] == red.view["winner"]
    assert summary(final)["scores"] == {"red": red.view["red"]["score"], "blue": red.view["blue"]["score"]}
    for player in (red, blue):
        stored = [{k: v for k, v in move.items() if k != "player"}
                  for move in record["moves"] if move["player"] == player.seat]
        acked = player.accepted
        # every acknowledged move is stored once, in order; a move in flight at the kill is
        # stored at most once (if it was committed before the process died)
        position = 0
        for move in acked:
            while stored[position] != move:
                assert stored[position] in in_flight[player.seat].values(), (stored[position], move)
                position += 1
            position += 1
        assert len(stored) - position <= len(in_flight[player.seat])


async def test_an_acknowledged_opening_survives_a_crash_before_the_other_opening(tmp_path):
    db = str(tmp_path / "crash.db")
    first = ServerProcess(db)
    red, blue = await matched_pair(first.port)
    openings = {}
    for player in (red, blue):  # sealed by hand: the client opens nothing by itself
        cards = tuple(player.view["decision"]["hand"])
        digest, nonce = seal(cards)
        openings[player.seat] = (cards, nonce)
        await player.send(m.Commit(game=player.game, digest=digest))
        await player.expect(m.Ack)
    await red.until(lambda f: m.commitments_of(f)["red"] == "awaiting_open", kind=m.Update)
    cards, nonce = openings["red"]
    await red.send(m.Open(game=red.game, cards=cards, nonce=nonce))
    acked = await red.expect(m.Ack)  # the server promises that red's opening is stored
    first.kill()

    second = ServerProcess(db)
    try:
        for player in (red, blue):
            await player.client.reconnect("127.0.0.1", second.port)
            state = await player.expect(m.GameState)
            assert state.commitments == {"red": "opened", "blue": "awaiting_open"}
            # the two seals, the call to open and red's opening were told after the last stored move
            assert state.version >= acked.version > 0
        # red, told that its opening was safe, never sends it again: blue's completes the round
        cards, nonce = openings["blue"]
        await blue.send(m.Open(game=blue.game, cards=cards, nonce=nonce))
        reveal = await red.until(lambda f: any(e["type"] == "card_revealed" for e in f.events), kind=m.Update)
        assert reveal.view["red"]["cartouches"][0] == openings["red"][0][0]
        assert not red.errors() and not blue.errors()
    finally:
        assert second.terminate() == 0
