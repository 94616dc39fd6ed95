"""A reminder of the rules beside the board, for terminals with room to spare."""

from __future__ import annotations

from textual.widgets import Static

REMINDER = """\
[b]Reading the board[/b]
  yellow (Y) · green (G) · black (K) · blue (B) · +1 / +2 bonus squares
  ● a red stone · ■ a blue stone · faded squares cannot be chosen now

[b]The cartouches[/b]
  C1 points     the higher card scores 2 × the difference
  C2 order      the lower card plays first, and it removes stones:
                4 → 2 of theirs, 3 → 1 of theirs, 1 → 1 of yours (none in round 1)
  C3 range      temples 1 up to this card
  C4 placement  place this many stones

[b]Scoring round[/b] when the Kingdom of the Dead holds 8 stones
  temple 1 the difference · temple 2 5 · temple 3 1 per stone
  temple 4 3 per blue square · black squares 8 · bonus squares +1/+2 each

[b]Win at once[/b] with a whole temple, all 14 yellow or all 14 green squares,
  or 40 points"""


class Legend(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__(REMINDER, **kwargs)
