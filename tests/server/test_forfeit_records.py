"""A game the arbiter ended (time, abandoned) is over in its record too (issue 13, defect 7):
the record a real server gives, replayed by the real ``aton replay`` command."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from protocol import messages as m

from .players import Recorder, matched_pair
from .test_reconnect_and_clocks import time_control, with_event

ROOT = Path(__file__).resolve().parents[2]


async def replayed(player: Recorder, tmp_path: Path) -> dict:
    """The game's record as the server sends it, through ``aton replay --json``."""
    await player.send(m.GetRecord(game=player.game))
    record = (await player.expect(m.GameRecordReply)).record
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "aton_tui", "replay", str(path), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    return json.loads(done.stdout)


async def test_a_game_lost_on_time_replays_as_lost_on_time(server, tmp_path):
    _red, blue = await matched_pair(server.port)
    rng = random.Random(9)
    while blue.view["winner"] is None:  # blue plays; red never moves and runs out of time
        if not await blue.act(rng) and blue.clocks["blue"]["for"] is None:
            server.clock.advance(blue.clocks["red"]["remaining_ms"] / 1000)
        await blue.recv()
    summary = await replayed(blue, tmp_path)
    assert (summary["phase"], summary["winner"], summary["reason"]) == ("over", "blue", "time")
    assert summary["round"] == blue.view["round"]
    assert summary["scores"] == {seat: blue.view[seat]["score"] for seat in ("red", "blue")}


async def test_an_abandoned_game_replays_as_abandoned(server, tmp_path):
    red, blue = await matched_pair(server.port)
    await red.close()
    await blue.until(with_event("disconnected"), kind=m.Update)
    server.clock.advance(time_control(blue)["grace"])
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    summary = await replayed(blue, tmp_path)
    assert (summary["phase"], summary["winner"], summary["reason"]) == ("over", "blue", "abandoned")
