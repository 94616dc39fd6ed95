"""The two themes of the client: "aton-dark" (night over the Nile) and "aton-light" (papyrus).

Board colours are theme variables, used by the stylesheets; the dark values are
also the defaults, so that Textual's own themes draw a sensible board too.
"""

from __future__ import annotations

from pathlib import Path, PurePath

from textual.app import App
from textual.theme import Theme

#: The stylesheets of every app of the client (the game's and the replay viewer's), in order.
STYLESHEETS: list[str | PurePath] = [Path(__file__).parent / "styles" / f"{name}.tcss"
               for name in ("app", "board", "game", "lobby", "dialogs", "replay", "learn", "servers",
                                            "profile", "atlas_zeus")]

DARK_BOARD = {
    "board-bg": "#17130e",
    "sq-yellow": "#c49a2c",
    "sq-yellow-ink": "#2b2100",
    "sq-green": "#3f8a4f",
    "sq-green-ink": "#e2f2e2",
    "sq-black": "#3b3936",
    "sq-black-ink": "#c8c4bc",
    "sq-blue": "#24509a",
    "sq-blue-ink": "#dde7fb",
    "sq-bonus": "#8150a8",
    "sq-bonus-ink": "#f6ecff",
    "stone-red": "#e0483c",
    "stone-red-ink": "#ffffff",
    "stone-blue": "#59b0ff",
    "stone-blue-ink": "#06203d",
    "card-face": "#eadcb2",
    "card-face-ink": "#1f1a10",
    "card-back": "#6b4f2a",
    "card-back-ink": "#c9a66b",
    # Atlas & Zeus: the islands by kind, the sea (the flood marker), the track's colour pairs
    "isle-ordinary": "#4a3f2a",
    "isle-ordinary-ink": "#efe3c4",
    "isle-volcanic": "#6e2a1e",
    "isle-volcanic-ink": "#ffd9c8",
    "isle-holy": "#7a6616",
    "isle-holy-ink": "#fff6cf",
    "sea": "#4fa3e8",
    "pair-0": "#2c6e6a",
    "pair-1": "#8a5a1c",
    "pair-2": "#5b3f8a",
    "pair-ink": "#f4f0e6",
}

LIGHT_BOARD = {
    "board-bg": "#e9dfc8",
    "sq-yellow": "#e9c350",
    "sq-yellow-ink": "#3a2c00",
    "sq-green": "#7cc48a",
    "sq-green-ink": "#0f3318",
    "sq-black": "#55524d",
    "sq-black-ink": "#f2efe8",
    "sq-blue": "#7fa7e6",
    "sq-blue-ink": "#0d2149",
    "sq-bonus": "#b48ad6",
    "sq-bonus-ink": "#2a0f40",
    "stone-red": "#c0281e",
    "stone-red-ink": "#ffffff",
    "stone-blue": "#1d4fb8",
    "stone-blue-ink": "#ffffff",
    "card-face": "#fffaf0",
    "card-face-ink": "#1f1a10",
    "card-back": "#8a6a3c",
    "card-back-ink": "#f0d9a8",
    "isle-ordinary": "#e6d3a3",
    "isle-ordinary-ink": "#3a2c10",
    "isle-volcanic": "#e7a58f",
    "isle-volcanic-ink": "#3d1208",
    "isle-holy": "#f0d977",
    "isle-holy-ink": "#3a2e00",
    "sea": "#1d4fb8",
    "pair-0": "#8fcac5",
    "pair-1": "#efbf83",
    "pair-2": "#c7b1ea",
    "pair-ink": "#1f1a10",
}

ATON_DARK = Theme(
    name="aton-dark",
    primary="#d4a73a",
    secondary="#3f8a4f",
    accent="#f0c85a",
    warning="#f0a03c",
    error="#e0483c",
    success="#5fbf6f",
    foreground="#ece3cf",
    background="#0f0c08",
    surface="#1d1811",
    panel="#2a2218",
    dark=True,
    variables=DARK_BOARD,
)

ATON_LIGHT = Theme(
    name="aton-light",
    primary="#9a6b12",
    secondary="#2f7a40",
    accent="#b5651d",
    warning="#b86e00",
    error="#c0281e",
    success="#2f7a40",
    foreground="#2a2116",
    background="#f6f0e2",
    surface="#efe6d2",
    panel="#e2d5b8",
    dark=False,
    variables=LIGHT_BOARD,
)

THEMES = (ATON_DARK, ATON_LIGHT)


def use_themes(app: App, theme: str) -> None:
    """Give ``app`` the client's themes, and show ``theme`` (the player's setting)."""
    for each in THEMES:
        app.register_theme(each)
    app.theme = theme
