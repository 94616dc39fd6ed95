"""The crash loop: SIGKILL the real server at random moments while bots play; no acknowledged move is lost.

``aton-server`` runs as a child process with its database in a temporary directory.
Four SDK bots (fixed seeds, two games at a time) play over TCP; the server is killed
after a seeded random number of frames (``--abuse-kills``, default 10 kills), and
started again at once on the same port and database; the bots reconnect by themselves
and play on.  Then every move a bot got an ``ack`` for must be in ``aton-server
export``'s record of its game, in the order it was sent (or, a commitment of a round
still sealed when the bots stop, in the database as that seat's seal), and every
finished game must replay to the result the bots were told.
"""

from __future__ import annotations

import asyncio
import random
from functools import partial

from aton.outcome import Outcome
from bots.network import Backoff
from bots.strategy import make_strategy
from server.store import Store

from .conftest import size, until
from .server_process import ServerProcess
from .witness import SentMove, WitnessBot, exported_games

SEED = 2027
BOTS = 4
#: A kill comes after the bots together receive between 1 and this many more frames.
MOST_FRAMES_BETWEEN_KILLS = 1500


def lost_moves(acknowledged: list[SentMove], stored: list[dict], sealed: bytes | None) -> int:
    """How many acknowledged moves are not found, in their order, among the stored ones.

    A commitment of a round still sealed when the bots stopped is not a move of the record
    yet: it is stored as the seat's seal (its digest is ``sealed``)."""
    lost, position = 0, 0
    for sent in acknowledged:
        try:
            position = stored.index(sent.move, position) + 1
        except ValueError:
            lost += sent.digest is None or sent.digest != sealed
    return lost


async def test_sigkill_loop_loses_no_acknowledged_move(tmp_path, figures, request):
    kills = size(request.config, "abuse-kills")
    rng = random.Random(SEED)
    server = ServerProcess(tmp_path)
    await server.start()
    bots = [WitnessBot(make_strategy("random", seed=SEED + i), "127.0.0.1", server.port, name=f"bot-{i}",
                       backoff=Backoff(first=0.05, cap=0.05)) for i in range(BOTS)]
    playing = [asyncio.create_task(bot.play(10**6)) for bot in bots]

    def frames() -> int:
        return sum(len(c.received) for bot in bots for c in bot.clients)

    def failed() -> bool:
        return any(task.done() for task in playing)

    def played_past(moment: int) -> bool:
        return frames() >= moment or failed()

    try:
        for _ in range(kills):
            moment = frames() + rng.randint(1, MOST_FRAMES_BETWEEN_KILLS)
            await until(partial(played_past, moment), "the bots to play on after a restart")
            if failed():
                break
            await server.kill()
            await server.start()
        finished = [len(bot.results) for bot in bots]
        await until(lambda: all(len(b.results) > n for b, n in zip(bots, finished, strict=True)) or failed(),
                    "every bot to finish a game after the last restart")
    finally:
        for task in playing:
            task.cancel()
        outcomes = await asyncio.gather(*playing, return_exceptions=True)
        status = await server.stop()
    crashed = [o for o in outcomes if not isinstance(o, asyncio.CancelledError)]
    assert not crashed, f"a bot stopped playing: {crashed[0]!r}"
    assert status == 0

    server.export(tmp_path / "export")
    exported = exported_games(tmp_path / "export")
    store = Store(server.db)
    sealed = {(g.id, seat): seal["digest"] for g in store.load_games("playing") for seat, seal in g.seals.items()}
    store.close()
    checked = lost = 0
    for game in exported.values():
        for bot in bots:
            acknowledged = bot.acknowledged(game.game)
            if acknowledged:
                seat = bot.seat(game.game)
                checked += len(acknowledged)
                lost += lost_moves(acknowledged, game.moves_of(seat), sealed.get((game.game, seat)))
    results = [result for bot in bots for result in bot.results]
    for result in results:  # the end each bot was told is where the export's moves lead
        game = exported[result.game]
        final = game.views[None][-1]
        assert game.record["meta"]["status"] == "over" and Outcome.from_dict(final) == result.outcome
        assert (final["red"]["score"], final["blue"]["score"]) == result.scores
    tracebacks = server.logged("Traceback", " CRITICAL ", " ERROR ")

    figures.add("kills (SIGKILL at random moments)", kills)
    figures.add("server starts", server.starts)
    figures.add("games in the export", f"{len(exported)}, of which {len({r.game for r in results})} finished "
                                       "where their bots were told (the others were cut short at the end)")
    figures.add("acknowledged moves checked against the export",
                f"{checked:,} (with the {len(sealed)} seal(s) of rounds not yet revealed when the bots stopped)")
    figures.add("moves lost", lost)
    figures.add("errors in the server's log", len(tracebacks))

    assert server.starts == kills + 1
    assert lost == 0
    assert not tracebacks, tracebacks[:5]
