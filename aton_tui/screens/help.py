"""``?``: the rules in short and the key map (made from the screens' own bindings)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

RULES = """\
# Aton in short

Two priesthoods, **red ●** and **blue ■**, fight for four temples.  Each round:

1. **Draw** 4 cards (values 1–4).  Once per game you may **exchange** them for 4 new ones.
2. **Commit** in secret: one card on each of your four **cartouches**.
3. **Cartouche 1 — points.** The higher card scores 2 × the difference.  40 points wins at once.
4. **Cartouche 2 — order and removal.** The lower card plays first (ties: lower cartouche 1,
   then a *war* of deck cards).  It also removes stones: 4 → 2 of the opponent's, 3 → 1,
   2 → none, 1 → one of your own.  Nobody removes anything in round 1.
5. **Cartouche 3 — range.** You may use temples 1 up to this value.
6. **Cartouche 4 — placement.** Place this many stones on empty squares in range.
   Removed stones go to the **Kingdom of the Dead**.

**Win at once** by owning a whole temple, all 14 yellow or all 14 green squares.

**Scoring round** — when the Kingdom of the Dead holds 8 stones at the end of a round.
The majority in each category scores:

| category | points to the majority |
|---|---|
| temple 1 | the difference in stones |
| temple 2 | 5 |
| temple 3 | 1 per own stone there |
| temple 4 | 3 per own stone on a blue square (all temples) |
| black squares | 8 |
| +1 / +2 squares | everyone scores their own bonus squares |

Then the stones in the Kingdom go back to their supplies.  40 points or more after a
scoring round ends the game: more points wins.

## The board

Each square shows its kind on top — **Y** yellow, **G** green, **K** black, **B** blue,
**+1**/**+2** bonus — and a stone below it: **●** red, **■** blue.  While you choose a square,
the ones you cannot choose are faded and the cursor's square is lit.
"""


def key_table(title: str, bindings: list[BindingType]) -> str:
    """A Markdown table of what the keys do; keys that do the same thing share a row."""
    rows: dict[str, list[str]] = {}
    for binding in bindings:
        if isinstance(binding, Binding) and binding.description:
            keys = binding.key_display or " ".join(k.strip() for k in binding.key.split(","))
            shown = rows.setdefault(binding.tooltip or binding.description, [])
            if keys not in shown:
                shown.append(keys)
    lines = [f"## {title}", "", "| keys | do |", "|---|---|"]
    lines += [f"| `{' '.join(keys)}` | {does} |" for does, keys in rows.items()]
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close help")]

    def __init__(self, keymaps: list[tuple[str, list[BindingType]]]) -> None:
        super().__init__(classes="dialog")
        self.keymaps = keymaps

    def compose(self) -> ComposeResult:
        text = "\n\n".join([RULES, *(key_table(title, b) for title, b in self.keymaps)])
        with VerticalScroll(classes="dialog-box help"):
            yield Markdown(text)

    def action_close(self) -> None:
        self.dismiss(None)
