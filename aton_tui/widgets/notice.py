"""A line (or a few) that shows only while it has something to say."""

from __future__ import annotations

from textual.widgets import Static


class Notice(Static):
    def __init__(self, text: str = "", **kwargs) -> None:
        super().__init__(text, markup=False, **kwargs)
        self.set_class(bool(text), "-shown")

    def show(self, text: str) -> None:
        """Say ``text``; an empty text hides the notice."""
        self.update(text)
        self.set_class(bool(text), "-shown")
