"""Names the packages share are defined once (protocol/) and every user agrees with them."""

from __future__ import annotations

from aton_tui.cli import build_parser
from bots.atlas_zeus import STRATEGY_NAMES
from bots.strategy import LEVELS
from protocol import messages as m
from protocol.framing import MAX_FRAME_BYTES
from server.accounts import bot_name
from server.bot_scheduler import BotScheduler, Decision
from server.config import TIME_CONTROLS, HostedBotSettings, Limits
from server.games import GAMES
from server.games.atlas_zeus import BOT_STRATEGIES
from server.hosted_bots import HostedBot

from .manual_clock import ManualClock


def _choices(parser, dest: str) -> tuple:
    return tuple(next(a for a in parser._actions if a.dest == dest).choices)


def test_every_clock_has_a_time_control_and_nothing_else_does():
    assert tuple(TIME_CONTROLS) == m.CLOCKS


def test_every_bot_level_has_a_strategy_and_nothing_else_does():
    assert tuple(LEVELS) == m.BOT_LEVELS
    assert tuple(BOT_STRATEGIES) == m.BOT_LEVELS and set(BOT_STRATEGIES.values()) <= set(STRATEGY_NAMES)


def test_every_game_of_the_protocol_is_hosted_with_every_clock():
    assert tuple(GAMES) == m.GAMES
    for kind in GAMES.values():
        assert kind.time_controls is None or tuple(kind.time_controls) == m.CLOCKS


def test_the_aton_command_offers_the_protocols_clocks_and_levels():
    parser = build_parser()
    assert _choices(parser, "clock") == m.CLOCKS
    assert _choices(parser, "level") == m.BOT_LEVELS


def test_a_hosted_bot_is_named_after_its_level():
    assert [bot_name(level) for level in m.BOT_LEVELS] == ["Bot (random)", "Bot (easy)", "Bot (normal)",
                                                          "Bot (hard)"]
    async def never_asked(decision: Decision, budget: float) -> dict:
        raise AssertionError("a bot that only sits down thinks of nothing")

    scheduler = BotScheduler(HostedBotSettings(), ManualClock(), think=never_asked)
    assert HostedBot("easy", scheduler=scheduler).name == "Bot (easy)"


def test_the_server_frame_limit_is_the_protocols():
    assert Limits().frame_bytes == MAX_FRAME_BYTES == 65536
