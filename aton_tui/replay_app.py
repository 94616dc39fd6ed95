"""``aton replay FILE`` in a terminal: the replay viewer on its own, with no server."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from bots.analysis import AnalysisSettings, GameAnalysis

from .replay_model import Perspective, ReplayModel
from .screens.replay import ReplayScreen
from .settings import Settings
from .themes import DARK_BOARD, STYLESHEETS, use_themes


class ReplayApp(App[None]):
    """Shows one record in the replay viewer; closing the viewer ends the app."""

    TITLE = "Aton replay"
    CSS_PATH = STYLESHEETS

    def __init__(self, model: ReplayModel, perspective: Perspective = Perspective.RED,
                 settings: Settings | None = None, *, record_path: Path | None = None,
                 analysis: GameAnalysis | None = None, analysis_settings: AnalysisSettings | None = None) -> None:
        """``record_path``: the record's file (its analysis is kept beside it); ``analysis``: one to
        show at once; ``analysis_settings``: the budget of an analysis made in the viewer."""
        super().__init__()
        self.model = model
        self.perspective = perspective
        self.settings = settings or Settings()
        self.record_path = record_path
        self.analysis = analysis
        self.analysis_settings = analysis_settings

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DARK_BOARD)

    def on_mount(self) -> None:
        use_themes(self, self.settings.theme)
        screen = ReplayScreen(self.model, self.perspective, record_path=self.record_path,
                              analysis=self.analysis, analysis_settings=self.analysis_settings)
        self.push_screen(screen, lambda _: self.exit())
