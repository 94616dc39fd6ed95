"""The terminal sizes the client is laid out for (README.md states the minimum)."""

from __future__ import annotations

from textual.geometry import Size

#: the smallest terminal a whole game can be played in; below it a notice asks for a larger one
MINIMUM = Size(60, 18)
#: below this width, dialogs are slimmer (buttons one line high, fewer columns)
ROOMY_WIDTH = 80
#: from this height on, the board's tiles are two lines high (below it, one line: a compact board)
ROOMY_HEIGHT = 23
#: below this height (on a compact board) the log folds away while the cards are chosen
LOG_HEIGHT = 20
#: from this size on, the board's tiles grow and the log stands beside the players and a reminder of the rules
LARGE = Size(120, 40)


def too_small(size: Size) -> bool:
    return size.width < MINIMUM.width or size.height < MINIMUM.height
