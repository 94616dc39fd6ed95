"""``aton replay FILE`` in a terminal: the replay viewer on its own, with no server."""

from __future__ import annotations

from textual.app import App

from .replay_model import Perspective, ReplayModel
from .screens.replay import ReplayScreen
from .settings import Settings
from .themes import DARK_BOARD, STYLESHEETS, use_themes


class ReplayApp(App[None]):
    """Shows one record in the replay viewer; closing the viewer ends the app."""

    TITLE = "Aton replay"
    CSS_PATH = STYLESHEETS

    def __init__(self, model: ReplayModel, perspective: Perspective = Perspective.RED,
                 settings: Settings | None = None) -> None:
        super().__init__()
        self.model = model
        self.perspective = perspective
        self.settings = settings or Settings()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DARK_BOARD)

    def on_mount(self) -> None:
        use_themes(self, self.settings.theme)
        self.push_screen(ReplayScreen(self.model, self.perspective), lambda _: self.exit())
