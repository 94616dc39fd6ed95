"""Tens of thousands of hostile frames beside live games: no crash, the games unharmed, nothing hidden leaks.

A real server on a loopback port; two SDK bots play game after game on it (fixed seeds)
while ``HostileLoad`` sends its budget of bad frames (``--abuse-frames``, default 30,000)
and watchers spectate every game.  Then: the server still answers a fresh client and
logged no error; every game the bots played finished and is exactly what the server's
export replays to (each view and event they received, each move acknowledged); and no
frame that a hostile, spectating or opposing client received holds a game's seed or a
commitment's nonce, while every view a spectator received is the engine's public one.
"""

from __future__ import annotations

import asyncio
import logging
import time

from aton.outcome import Outcome
from bots.strategy import make_strategy
from protocol import messages as m
from protocol.client import Client
from server import cli
from server.app import ArbiterServer
from server.config import ServerConfig

from .conftest import size, until
from .hostile import HOSTILE_SOURCES, HostileLoad
from .witness import Secrets, WitnessBot, check_events, check_views, exported_games

SEED = 2026


def counted(counter) -> str:
    return ", ".join(f"{key} {count:,}" for key, count in counter.most_common()) or "none"


async def test_hostile_frames_beside_live_games(tmp_path, figures, caplog, request):
    budget = size(request.config, "abuse-frames")
    caplog.set_level(logging.WARNING)
    db = tmp_path / "aton.db"
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(db), game_seed=SEED))
    await server.start()
    started = time.perf_counter()
    try:
        load = HostileLoad(server.port, budget, seed=SEED)
        stop = asyncio.Event()
        attacking = asyncio.create_task(load.run(stop))
        ada = WitnessBot(make_strategy("random", seed=1), "127.0.0.1", server.port, name="ada")
        bob = WitnessBot(make_strategy("random", seed=2), "127.0.0.1", server.port, name="bob")
        played: list[tuple] = []
        while not played or not load.sent_all.is_set():  # game after game, for as long as the load lasts
            more = len(played) + 1  # (a bot's results are counted across its calls of play)
            results_a, results_b = await asyncio.gather(ada.play(more), bob.play(more))
            played.append((results_a[-1], results_b[-1]))
        games = [a.game for a, _ in played]
        await until(lambda: all(w.saw_the_end(g) for w in load.watching for g in games),
                    "the watchers to see the end of every game")
        stop.set()
        await attacking

        fresh = await Client.connect("127.0.0.1", server.port, name="fresh", lobby=False)
        await fresh.send(m.Ping())
        await fresh.expect(m.Pong)
        await fresh.send(m.Watch(game=games[-1]))
        fresh_view = (await fresh.expect(m.GameState)).view
        await fresh.send(m.GetRecord(game=games[-1]))
        fresh_record = (await fresh.expect(m.GameRecordReply)).record
        await fresh.close()
    finally:
        await server.stop()
    seconds = time.perf_counter() - started
    assert cli.main(["export", "--db", str(db), "--out", str(tmp_path / "export")]) == 0
    exported = exported_games(tmp_path / "export")

    # -- the games beside the load, against the export
    assert sorted(exported) == sorted(set(games)) == games, "one game a pair of results, and no other game"
    moves = views = events = 0
    for a, b in played:
        game = exported[a.game]
        assert b.game == a.game and game.record["meta"]["status"] == "over"
        assert Outcome.from_dict(game.record["meta"]["result"]) == a.outcome == b.outcome
        assert not a.outcome.termination.is_forfeit, f"game {a.game} ended by {a.outcome.termination}"
        for bot in (ada, bob):
            seat = bot.seat(a.game)
            acknowledged = [sent.move for sent in bot.acknowledged(a.game)]
            assert acknowledged == game.moves_of(seat), f"game {a.game}: {bot.name}'s moves"
            views += check_views(game, seat, bot.frames(a.game))
            events += check_events(game, seat, bot.frames(a.game), whole=True)
        moves += len(game.record["moves"])
    assert Outcome.from_dict(fresh_view) == played[-1][0].outcome and fresh_record == exported[games[-1]].record

    # -- what hostile and spectating clients received (and the bots, of each other)
    secrets = Secrets({g.game: g.seed for g in exported.values()}, set(ada.nonces + bob.nonces))
    received = [f for peer in load.peers for f in peer.frames]
    received += [msg.to_wire() for bot in (ada, bob) for c in bot.clients for msg in c.received]
    leaks = [(f.get("type"), found) for f in received for found in secrets.found_in(f)]
    spectated = spectator_views = 0
    for peer in load.peers:
        parsed = (m.parse(f, m.Direction.SERVER) for f in peer.frames if f.get("type") in ("game_state", "update"))
        frames = [f for f in parsed if isinstance(f, (m.GameState, m.Update))]
        for game_id in {f.game for f in frames} & exported.keys():
            spectator_views += check_views(exported[game_id], None, frames)
            spectated += check_events(exported[game_id], None, frames, whole=False)

    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    tally = load.tally
    figures.add("hostile frames sent", tally.frames_sent)
    figures.add("hostile connections", f"{tally.connections:,} from {len(HOSTILE_SOURCES)} loopback addresses "
                                       f"({counted(tally.attacks)})")
    figures.add("answers", f"{sum(tally.answers.values()):,} ({counted(tally.answers)})")
    figures.add("closed by the server", f"{counted(tally.byes)}; without a bye: {tally.closed_without_bye:,}")
    figures.add("slowloris", f"{load.slowloris} connections, {tally.slowloris_bytes:,} bytes trickled")
    figures.add("crashes (errors logged by the server)", len(errors))
    figures.add("a fresh client after the load", "answered: ping, watch, record")
    figures.add("games beside the load", f"{len(played)} finished, {len(played)} consistent with the export "
                                         f"({moves:,} moves; {views:,} views and {events:,} events of the bots)")
    figures.add("frames received by hostile, spectating and playing clients, checked for hidden values",
                len(received))
    figures.add("hidden values found", len(leaks))
    figures.add("spectators' views and events equal to the engine's public ones",
                f"{spectator_views:,} views, {spectated:,} events")
    figures.add("seconds", f"{seconds:.1f}")

    assert tally.frames_sent >= budget
    assert not errors, [r.getMessage() for r in errors[:5]]
    assert tally.answers["error:internal"] == 0
    assert not tally.invalid_from_server, tally.invalid_from_server[:5]
    assert tally.unanswered == 0
    assert not leaks, leaks[:5]
