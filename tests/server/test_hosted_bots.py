"""Hosted bots under load, on a real server: one player's many bot games cannot make
another player's bot miss its clock (issue 11, defect 4)."""

from __future__ import annotations

from protocol import messages as m
from server.app import ArbiterServer
from server.config import HostedBotSettings, Limits, ServerConfig, TimeControl

from .players import Recorder

FLOOD_GAMES = 8
#: short enough that eight full "hard" searches in a row (8 s) overrun a commitment
SHORT_CLOCK = TimeControl(commit=4, open=4, move=4, grace=30)


def bot_events(recorder: Recorder, bot_seat: str, kind: str) -> list[dict]:
    return [e for e in recorder.events() if e["type"] == kind and e.get("player") == bot_seat]


async def started_server(tmp_path, **config) -> ArbiterServer:
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), **config))
    await server.start()
    return server


async def test_many_hard_bot_games_of_one_player_leave_another_players_bot_its_clock(tmp_path):
    settings = HostedBotSettings(workers=1, round_seconds=0.5, reserve_seconds=1.0)
    server = await started_server(tmp_path, hosted_bots=settings, time_controls={"blitz": SHORT_CLOCK})
    try:
        flooder = await Recorder.connect(server.port, "flood", kind="human", lobby=False)
        for _ in range(FLOOD_GAMES):
            await flooder.send(m.PlayBot(level="hard", clock="blitz", seat="red"))
        for _ in range(FLOOD_GAMES):
            await flooder.expect(m.GameState)
        player = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
        await player.send(m.PlayBot(level="hard", clock="blitz", seat="red"))
        await player.expect(m.GameState)
        await player.until(lambda f: bot_events(player, "blue", "committed") or bot_events(player, "blue", "timeout"))

        assert bot_events(player, "blue", "timeout") == []
        bot = server.rooms[player.game].seats["blue"].participant
        assert bot.decision.waited_behind <= FLOOD_GAMES  # at most one decision of each other game first
    finally:
        await server.stop()


async def test_a_bot_asks_once_per_decision_whatever_else_happens_in_its_game(tmp_path):
    """The opponent's commitment and chat lines while the bot thinks do not queue it again."""
    server = await started_server(tmp_path, hosted_bots=HostedBotSettings(workers=1),
                                  limits=Limits(chat_interval=0))
    try:
        player = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
        await player.send(m.PlayBot(level="hard", seat="red"))
        await player.expect(m.GameState)
        await player.client.commit(player.game, list(player.view["decision"]["hand"]))
        for line in ("hello", "are you there?", "take your time"):
            await player.send(m.Chat(game=player.game, text=line))
        await player.until(lambda f: bot_events(player, "blue", "committed"))

        seen = [e["type"] for e in player.events() if e["type"] in ("chat", "committed")]
        assert seen == ["committed", "chat", "chat", "chat", "committed"]  # all while its search ran
        assert server.bot_scheduler.started == 1
    finally:
        await server.stop()
