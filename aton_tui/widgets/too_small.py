"""What every screen shows instead of itself while the terminal is smaller than the client needs."""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Static

from ..sizes import MINIMUM


def too_small_text(size: Size) -> str:
    return (f"Terminal too small: {size.width}×{size.height}, needs at least {MINIMUM.width}×{MINIMUM.height}.\n"
            f"Make the window larger to go on (Ctrl+Q quits).")


class TooSmall(Static):
    def __init__(self, size: Size) -> None:
        super().__init__(too_small_text(size), markup=False)

    def show(self, size: Size) -> None:
        self.update(too_small_text(size))
