"""The terminal sizes the client is laid out for (README.md states the minimum)."""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen

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


def set_width_classes(screen: Screen, width: int) -> None:
    """Give a screen not yet mounted the class its app's ``HORIZONTAL_BREAKPOINTS`` give ``width``.

    Textual gives a screen its breakpoint class on its first resize, after every widget of it
    has been styled, and then styles them all again: a screen that has the class it will get
    from the start is styled once."""
    breakpoints = (screen.app.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is None
                   else screen.HORIZONTAL_BREAKPOINTS) or []
    classes = {name: False for _, name in breakpoints}
    reached = [(edge, name) for edge, name in breakpoints if width >= edge]
    if reached:
        classes[max(reached)[1]] = True
    screen.update_classes(classes, update=False)
