"""A line (or a few) that shows only while it has something to say."""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from textual.widgets import Static


class NoticeText(NamedTuple):
    """What a notice says, and optionally a shorter form of it for where a line of it would wrap."""

    text: str = ""
    short: str = ""

    def fitting(self, width: int) -> str:
        """The text if each of its lines fits ``width`` cells (or no width is known yet, or there
        is no short form); else the short form."""
        if not self.short or width <= 0:
            return self.text
        fits = all(cell_len(line) <= width for line in self.text.splitlines())
        return self.text if fits else self.short

    @classmethod
    def of(cls, said: NoticeText | str) -> NoticeText:
        """``said`` as a notice's text (a plain string has no short form)."""
        return cls(said) if isinstance(said, str) else said


class Notice(Static):
    def __init__(self, said: NoticeText | str = "", **kwargs) -> None:
        self._said = NoticeText.of(said)
        self._shown = self._said.text
        super().__init__(self._shown, markup=False, **kwargs)
        self.set_class(bool(self._said.text), "-shown")

    def show(self, said: NoticeText | str) -> None:
        """Say ``said`` (in its short form where a line of it would wrap); an empty text hides the notice."""
        self._said = NoticeText.of(said)
        self._fit()
        self.set_class(bool(self._said.text), "-shown")

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        text = self._said.fitting(self.content_size.width)
        if text != self._shown:  # (an update that changes nothing would lay the screen out again)
            self._shown = text
            self.update(text)
