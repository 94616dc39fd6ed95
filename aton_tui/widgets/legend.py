"""A reminder of the rules beside the board, for terminals with room to spare."""

from __future__ import annotations

from textual.widgets import Static

REMINDER = """\
[b]Board[/b]    Y yellow · G green · K black · B blue · +1/+2 bonus · ● Red · ■ Blue
[b]C1[/b] points    the higher card scores 2 × the difference
[b]C2[/b] order     the lower card plays first; each card removes:
             4 → 2 of theirs, 3 → 1 of theirs, 1 → 1 of yours (none in round 1)
[b]C3[/b] range     temples 1 up to this card      [b]C4[/b] placing  this many stones
[b]Scoring[/b]  once the Kingdom holds 8 stones: temple 1 the difference, temple 2 5,
         temple 3 1 per stone, temple 4 3 per blue square, black 8, bonus +1/+2
[b]Win[/b]      a whole temple, all 14 yellow or all 14 green squares, or 40 points
[b]⚠n[/b]       n time-outs in a row, each played by default: {strikes} lose the game\
"""
#: the reminder's height, in lines
LINES = REMINDER.count("\n") + 1


class Legend(Static):
    """The reminder; ``max_strikes``: the time-outs in a row that lose the game at this table."""

    def __init__(self, max_strikes: int, **kwargs) -> None:
        super().__init__(REMINDER.format(strikes=max_strikes), **kwargs)

    @property
    def needed_height(self) -> int:
        """The lines it takes whole."""
        return LINES + self.styles.padding.height
