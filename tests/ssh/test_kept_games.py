"""A player over SSH whose connection drops between sealing the cartouches and opening them: the
client of the next login opens what the one before sealed (``protocol.handoff.KEPT_GAMES_VARIABLE``),
so the game goes on instead of being lost when the open clock runs out."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import asyncssh

from protocol import handoff
from protocol import messages as m
from server.gateway_keys import Vouch
from server.hosted_client import identity_environment
from server.kept_games import (
    KEPT_GAMES_DIRECTORY,
    KEPT_GAMES_MAX_AGE,
    PRUNING_INTERVAL,
    player_directory,
    prune_kept_games,
)
from server.ssh.identity import Identity
from tests.server.players import Recorder

from ..manual_clock import ManualClock
from .terminal import IN_LOBBY, connect, open_terminal

VOUCH = Vouch(assertion=b"the gateway's assertion", session_key="the-session-key")


def test_each_key_has_a_directory_of_its_own_for_every_login_and_a_guest_none(tmp_path):
    kept = tmp_path / KEPT_GAMES_DIRECTORY
    ann = Identity(name="ann", vouch=VOUCH, fingerprint="SHA256:ann")
    ann_again = Identity(name="ann (another login)", vouch=VOUCH, fingerprint="SHA256:ann")
    bob = Identity(name="bob", vouch=VOUCH, fingerprint="SHA256:bob")
    guest = Identity(name="gus", vouch=VOUCH, resume_token="resume-token-0123456789")  # a new session each login
    directories = [player_directory(kept, who) for who in (ann, ann_again, bob)]
    assert directories[0] == directories[1] != directories[2]
    assert all(d is not None and d.parent == kept for d in directories)
    assert player_directory(kept, guest) is None
    assert identity_environment(ann, handoff.HOSTED_BY_SSH, kept)[handoff.KEPT_GAMES_VARIABLE] == str(directories[0])
    assert handoff.KEPT_GAMES_VARIABLE not in identity_environment(ann, handoff.HOSTED_BY_SSH)
    assert handoff.KEPT_GAMES_VARIABLE not in identity_environment(guest, handoff.HOSTED_BY_SSH, kept)


def kept(directory: Path, changed: float, *files: str) -> Path:
    """A player's directory of kept games whose ``files`` last changed at ``changed`` (epoch seconds)."""
    directory.mkdir(parents=True)
    for name in files:
        (directory / name).write_text("{}")
        os.utime(directory / name, (changed, changed))
    return directory


def test_a_players_kept_games_go_once_nothing_in_them_changed_for_thirty_days(tmp_path):
    now = 2_000_000_000.0
    old, recent = now - KEPT_GAMES_MAX_AGE - 60, now - KEPT_GAMES_MAX_AGE + 60
    gone = kept(tmp_path / "gone", old, "seals.json", "deals.json")
    empty = kept(tmp_path / "empty", old)
    kept(tmp_path / "fresh", recent, "seals.json")
    partly = kept(tmp_path / "partly", old, "deals.json")
    (partly / "seals.json").write_text("{}")
    os.utime(partly / "seals.json", (recent, recent))  # a seal of last week, beside an old deal: all stay
    (tmp_path / "a file").write_text("not a player's")
    os.utime(tmp_path / "a file", (old, old))
    assert prune_kept_games(tmp_path, now) == 2
    assert not gone.exists() and not empty.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a file", "fresh", "partly"]
    assert sorted(p.name for p in partly.iterdir()) == ["deals.json", "seals.json"]
    assert prune_kept_games(tmp_path / "nowhere", now) == 0


async def test_a_gateway_prunes_its_players_kept_games_when_it_starts_and_every_day(tmp_path, stack_factory):
    """On the gateway's own clock: the first pruning as it starts, the next a day later."""
    games = tmp_path / "s0" / KEPT_GAMES_DIRECTORY  # (the data directory of the factory's first stack)
    now = time.time()
    long_gone = kept(games / "long-gone", now - KEPT_GAMES_MAX_AGE - 3600, "seals.json")
    yesterday = kept(games / "yesterday", now - 86400, "seals.json")
    clock = ManualClock()
    stack = await stack_factory(clock=clock)
    pruning = stack.gateway.pruning
    assert pruning.pruned is not None and await pruning.pruned == 1
    assert not long_gone.exists() and yesterday.exists()
    os.utime(yesterday / "seals.json", (now - KEPT_GAMES_MAX_AGE - 60,) * 2)  # (as if a month had passed)
    first = pruning.pruned
    clock.advance(PRUNING_INTERVAL - 1)
    assert pruning.pruned is first  # not yet
    clock.advance(1)
    assert pruning.pruned is not first and await pruning.pruned == 1
    assert not yesterday.exists() and games.exists()


async def test_a_player_whose_connection_drops_after_sealing_opens_on_the_next_login(stack):
    server = stack.server
    bob = await Recorder.connect(server.port, "bob", kind="human", lobby=False)
    alice = asyncssh.generate_private_key("ssh-ed25519")
    try:
        await bob.send(m.CreateTable(clock="relaxed"))
        await bob.expect(m.TableCreated)
        conn = await connect(stack.port, "alice", alice)
        chan, term = await open_terminal(conn)
        await term.wait_for(IN_LOBBY, timeout=30)
        await term.wait_for("bob", timeout=10)  # bob's open table
        chan.write(b"j")  # joins the selected open table
        await bob.expect(m.GameState)
        await term.wait_for("(you)", timeout=30)
        room = next(iter(server.rooms.values()))
        seat = next(s for s, held in room.seats.items() if held.name == "alice")
        hand = sorted(room.full_state(seat).view["decision"]["hand"], reverse=True)
        await term.wait_for("Put one card on each", timeout=10)
        chan.write("".join(map(str, hand)).encode() + b"\r")
        for _ in range(500):
            if seat in room.seals:
                break
            await asyncio.sleep(0.02)
        assert seat in room.seals, "alice sealed her cartouches"
        kept = stack.gateway.kept_games
        assert kept is not None and any(kept.glob("*/seals.json")), "her client kept them"

        conn.close()  # her connection drops: her client goes with it
        await asyncio.wait_for(term.closed.wait(), 15)
        for _ in range(500):
            if room.seats[seat].participant is None:
                break
            await asyncio.sleep(0.02)
        await bob.until(lambda msg: (bob.my_decision() or {}).get("kind") == "commit")
        await bob.client.commit(room.game_id, sorted((bob.my_decision() or {})["hand"]))
        await bob.expect(m.Ack)

        conn2 = await connect(stack.port, "alice", alice)  # she logs in again
        _chan2, term2 = await open_terminal(conn2)
        await term2.wait_for("(you)", timeout=30)
        revealed = await bob.until(lambda msg: isinstance(msg, m.Update) and msg.view["phase"] != "commit", timeout=20)
        assert isinstance(revealed, m.Update)
        assert not room.game.is_over, "nobody lost on time: her new client opened what the old one sealed"
        assert revealed.view[str(seat)]["cartouches"][:2] == hand[:2]  # (3 and 4 show later in the round)
        conn2.close()
    finally:
        await bob.client.close()
