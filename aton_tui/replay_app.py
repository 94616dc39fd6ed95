"""``aton replay FILE`` in a terminal: a replay viewer on its own, with no server.

``ViewerApp`` shows one viewer and ends when it closes; ``ReplayApp`` is Aton's (with its
analysis), ``ZeusReplayApp`` Atlas & Zeus's.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.screen import Screen

from bots.analysis import AnalysisSettings, GameAnalysis

from .atlas_zeus.replay import ZeusReplayScreen
from .atlas_zeus.replay_model import ZeusReplayModel
from .replay_model import Perspective, ReplayModel
from .screens.client_screen import DrawnAfterBatches
from .screens.replay import ReplayScreen
from .settings import Settings
from .themes import DARK_BOARD, STYLESHEETS, use_themes


class ViewerApp(DrawnAfterBatches, App[None]):
    """Shows the screen ``viewer`` makes; closing it ends the app."""

    CSS_PATH = STYLESHEETS

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DARK_BOARD)

    def viewer(self) -> Screen[None]:
        raise NotImplementedError

    def on_mount(self) -> None:
        use_themes(self, self.settings.theme)
        self.push_screen(self.viewer(), lambda _: self.exit())


class ReplayApp(ViewerApp):
    """Shows one Aton record in the replay viewer."""

    TITLE = "Aton replay"

    def __init__(self, model: ReplayModel, perspective: Perspective = Perspective.RED,
                 settings: Settings | None = None, *, record_path: Path | None = None,
                 analysis: GameAnalysis | None = None, analysis_settings: AnalysisSettings | None = None) -> None:
        """``record_path``: the record's file (its analysis is kept beside it); ``analysis``: one to
        show at once; ``analysis_settings``: the budget of an analysis made in the viewer."""
        super().__init__(settings)
        self.model = model
        self.perspective = perspective
        self.record_path = record_path
        self.analysis = analysis
        self.analysis_settings = analysis_settings

    def viewer(self) -> ReplayScreen:
        return ReplayScreen(self.model, self.perspective, record_path=self.record_path,
                            analysis=self.analysis, analysis_settings=self.analysis_settings)


class ZeusReplayApp(ViewerApp):
    """Shows one Atlas & Zeus record in its replay viewer."""

    TITLE = "Atlas & Zeus replay"

    def __init__(self, model: ZeusReplayModel, perspective: Perspective = Perspective.RED,
                 settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.model = model
        self.perspective = perspective

    def viewer(self) -> ZeusReplayScreen:
        return ZeusReplayScreen(self.model, self.perspective)
