"""Hosted bots under load, on a real server: one player's many bot games cannot make
another player's bot miss its clock (issue 11, defect 4).

The server runs on a manual clock: the games' clocks move only when a test says so; and
its searches are fake workers that end only when a test says so (the budgets they were
given are still the scheduler's).  So no test here waits on time or depends on how fast
the machine is (tests/aton_tui/test_play.py plays a real worker process).
"""

from __future__ import annotations

from aton.players import BLUE
from protocol import messages as m
from server.app import ArbiterServer
from server.bot_scheduler import SEARCH_BUDGET_MS
from server.config import TIME_CONTROLS, HostedBotSettings, Limits, ServerConfig
from server.hosted_bots import HostedBot

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .fake_workers import FakeWorkers
from .players import Recorder

COMMIT_SECONDS = TIME_CONTROLS["blitz"].commit


async def started_server(tmp_path, **config) -> tuple[ArbiterServer, FakeWorkers, ManualClock]:
    workers, clock = FakeWorkers(), ManualClock()
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED, **config),
                           clock=clock, think=workers.think)
    await server.start()
    return server, workers, clock


def hosted_bot(server: ArbiterServer, game: int) -> HostedBot:
    """The server's bot in seat blue of ``game``."""
    bot = server.rooms[game].seats[BLUE].participant
    assert isinstance(bot, HostedBot)
    return bot


def bot_events(recorder: Recorder, bot_seat: str, kind: str) -> list[dict]:
    return [e for e in recorder.events() if e["type"] == kind and e.get("player") == bot_seat]


async def flood_and_play(server: ArbiterServer, games: int) -> Recorder:
    """One connection starts ``games`` hard-bot games at once; then another player starts one."""
    flooder = await Recorder.connect(server.port, "flood", kind="human", lobby=False)
    for _ in range(games):
        await flooder.send(m.PlayBot(level="hard", clock="blitz", seat="red"))
    for _ in range(games):
        await flooder.expect(m.GameState)
    player = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
    await player.send(m.PlayBot(level="hard", clock="blitz", seat="red"))
    await player.expect(m.GameState)
    return player


async def test_another_players_bot_decides_after_at_most_one_decision_of_each_flooding_game(tmp_path):
    flood = 8
    server, workers, _ = await started_server(tmp_path, hosted_bots=HostedBotSettings(workers=1, round_seconds=0.5))
    try:
        player = await flood_and_play(server, flood)
        decision = hosted_bot(server, player.game).decision
        assert decision is not None
        ahead = 0
        while workers.searches[-1][0] is not decision:  # the searches ahead of it end one by one
            assert ahead <= flood, f"{ahead} searches started ahead of the bot's"
            await workers.finish(ahead)
            ahead += 1
        await workers.finish(ahead)
        await player.until(lambda f: bot_events(player, "blue", "committed"))

        assert decision.waited_behind is not None and decision.budget_ms is not None
        assert decision.waited_behind <= flood
        assert decision.budget_ms < SEARCH_BUDGET_MS["hard"]  # it shared a round with the waiting games
    finally:
        await server.stop()


async def test_a_bot_stuck_behind_other_games_searches_still_commits_before_its_time_runs_out(tmp_path):
    reserve = 2.0
    server, workers, clock = await started_server(tmp_path, hosted_bots=HostedBotSettings(
        workers=1, round_seconds=60, reserve_seconds=reserve))
    try:
        player = await flood_and_play(server, 4)
        first = hosted_bot(server, player.game).decision
        assert first is not None
        clock.advance(COMMIT_SECONDS - reserve)  # the first search ahead never ends: the light level answers
        await player.until(lambda f: bot_events(player, "blue", "exchanged"))  # (dealt this seed: it exchanges)
        clock.advance(reserve)  # the human's commitment time runs out
        await player.until(lambda f: any(e["type"] == "timeout" for e in player.events()))
        clock.advance(COMMIT_SECONDS - 2 * reserve)  # the bot's new commitment, stuck as well, meets its reserve
        await player.until(lambda f: any(e["type"] == "card_revealed" for e in player.events()))

        assert bot_events(player, "blue", "timeout") == []
        assert [e["player"] for e in player.events() if e["type"] == "timeout"] == ["red"]
        second = hosted_bot(server, player.game).decision
        assert second is not None and second is not first
        assert [d.budget_ms for d in (first, second)] == [None, None]  # the light level answered both
        assert len(workers.searches) == 1  # the one search ahead, still running
    finally:
        await server.stop()


async def test_a_bot_asks_once_per_decision_whatever_else_happens_in_its_game(tmp_path):
    """The opponent's commitment and chat lines while the bot thinks do not queue it again."""
    server, workers, _ = await started_server(tmp_path, hosted_bots=HostedBotSettings(workers=1),
                                              limits=Limits(chat_interval=0))
    try:
        player = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
        await player.send(m.PlayBot(level="hard", seat="red"))
        await player.expect(m.GameState)
        await player.client.commit(player.game, list(player.view["decision"]["hand"]))
        for line in ("hello", "are you there?", "take your time"):
            await player.send(m.Chat(game=player.game, text=line))
        await player.until(lambda f: len([e for e in player.events() if e["type"] == "chat"]) == 3)
        await workers.finish(0)  # only now does the bot's search end
        await player.until(lambda f: bot_events(player, "blue", "committed"))

        seen = [e["type"] for e in player.events() if e["type"] in ("chat", "committed")]
        assert seen == ["committed", "chat", "chat", "chat", "committed"]  # all while its search ran
        assert workers.games == [player.game] and server.bot_scheduler.started == 1  # one decision, one search
    finally:
        await server.stop()


async def test_an_answer_that_comes_after_its_seat_timed_out_is_dropped_quietly(tmp_path, caplog):
    server, workers, clock = await started_server(tmp_path, hosted_bots=HostedBotSettings(workers=1))
    try:
        player = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
        await player.send(m.PlayBot(level="hard", clock="blitz", seat="red"))
        await player.expect(m.GameState)
        await player.client.commit(player.game, list(player.view["decision"]["hand"]))
        await player.until(lambda f: isinstance(f, m.Ack))
        # in one step: the light level answers at the reserve, then the seat times out before
        # that answer is played
        clock.advance(COMMIT_SECONDS)
        await player.until(lambda f: any(e["type"] == "card_revealed" for e in player.events()))
        await workers.finish(0)  # and the search ends after all

        assert len(bot_events(player, "blue", "timeout")) == 1
        assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
    finally:
        await server.stop()
