"""What the screen of Atlas & Zeus looks like, as SVG snapshots at 80×24 and 120×40.

Every screen is driven by fixed frames (``az_scripted``): a seeded game with seeded choices,
no server, frozen clocks.  After a deliberate change of the looks, run
``pytest tests/aton_tui/test_atlas_zeus_snapshots.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import pytest
from textual.widgets import Markdown, TabbedContent

from atlas_zeus.players import BLUE, RED
from aton_tui.atlas_zeus.screen import AtlasZeusScreen
from aton_tui.screens.end import EndScreen
from aton_tui.screens.help import AZ_RULES_PAGE, HELP_PAGE, HelpScreen, complete_atlas_zeus_rules

from .az_scripted import AZFramesApp, ScriptedAZ, red_to
from .driving import wait_until

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def shown(screen_type: type, version: int):
    """A run_before that waits until every frame is drawn and ``screen_type`` is on top."""
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: isinstance(app.screen, screen_type) and app.model is not None
                         and app.model.version == version, what=screen_type.__name__)
        await pilot.pause()
    return run_before


@SIZES
def test_programming_half_made(snap_compare, size):
    """Red has the initiative: the first card of the hand on slot 2, the next but one on slot 3;
    the card lit now and its effect below the hand."""
    script = ScriptedAZ()
    script.play_until(red_to("program", round_at_least=2))
    assert script.state.initiative is RED
    assert snap_compare(AZFramesApp(script.frames), press=["2", "right", "3"], terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


@SIZES
def test_programming_on_the_free_slots_beside_sealed_cards(snap_compare, size):
    """Blue has the initiative and has sealed: its three slots face down, red's free slots lit."""
    script = ScriptedAZ()
    script.play_until(red_to("program", round_at_least=3))
    assert script.state.initiative is BLUE
    assert snap_compare(AZFramesApp(script.frames), terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


@SIZES
def test_a_harpoon_with_its_targets_lit_on_the_ring(snap_compare, size):
    script = ScriptedAZ()
    script.play_until(red_to("harpoon"))
    assert snap_compare(AZFramesApp(script.frames), press=["right"], terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


@SIZES
def test_a_transfer_with_one_step_chosen(snap_compare, size):
    """A person moved (drawn at its destination), the points left, the next movers lit."""
    script = ScriptedAZ()
    script.play_until(red_to("transfer", round_at_least=3))
    assert snap_compare(AZFramesApp(script.frames), press=["enter", "enter"], terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


@SIZES
def test_a_resolution_in_progress_while_blue_decides(snap_compare, size):
    script = ScriptedAZ()
    script.play_until(lambda s: s.state.round >= 2 and s.state.phase == "resolve" and BLUE in s.state.pending())
    assert snap_compare(AZFramesApp(script.frames), terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


@SIZES
def test_the_end_screen(snap_compare, size):
    script = ScriptedAZ()
    script.play_until(lambda s: False, limit=2000)
    assert script.state.is_over
    assert snap_compare(AZFramesApp(script.frames), terminal_size=size, run_before=shown(EndScreen, script.version))


@SIZES
def test_the_help_of_a_game_of_atlas_zeus(snap_compare, size):
    script = ScriptedAZ()
    assert snap_compare(AZFramesApp(script.frames), press=["question_mark"], terminal_size=size,
                        run_before=shown(AtlasZeusScreen, script.version))


async def test_the_help_of_a_game_tells_this_game_and_its_rules_saying_the_cards_are_reconstructed():
    """Not a snapshot: the Help page tells Atlas & Zeus in short and lists this screen's keys;
    Tab shows its complete rules (docs/atlas-zeus.md), and only those."""
    script = ScriptedAZ()
    app = AZFramesApp(script.frames)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(AtlasZeusScreen, script.version)(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        help_page = app.screen.query_one(f"#{HELP_PAGE} Markdown", Markdown).source
        assert "# Atlas & Zeus in short" in help_page and "The card texts are a reconstruction" in help_page
        assert "## Playing Atlas & Zeus" in help_page and "end a Transfer with the steps chosen so far" in help_page
        await pilot.press("tab")
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == AZ_RULES_PAGE
        rules = app.screen.query_one(f"#{AZ_RULES_PAGE} Markdown", Markdown).source
        assert complete_atlas_zeus_rules() in rules and "**The card texts are a reconstruction.**" in rules
        await pilot.press("tab")
        assert tabs.active == HELP_PAGE  # Aton's rules are not a page of this game's help
