"""``?``: two pages.  *Help*: how to close it, the rules in short, the clocks, the settings
and every key (the key tables are made from the screens' own bindings, so they cannot drift
from them).  *Rules*: the complete rules, the very text of docs/rules.md (shipped in the
package as ``aton_tui/rules.md``, a link to it in the source tree)."""

from __future__ import annotations

import re
from importlib import resources

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, TabbedContent, TabPane

from protocol.game_frames import ATLAS_ZEUS
from protocol.messages import DEFAULT_GAME

from ..atlas_zeus import rules as atlas_zeus_rules
from ..settings import Settings
from .client_screen import ClientScreen

CLOSING = "**Esc**, **q** or **?** closes this help.  ↑ ↓ PgUp PgDn scroll it, **Tab** shows the complete rules."
RULES_CLOSING = "**Esc**, **q** or **?** closes this help.  ↑ ↓ PgUp PgDn scroll the rules, **Tab** shows the keys."

#: The pages of the help, by the id of their tab: the keys, Aton's rules, Atlas & Zeus's rules.
HELP_PAGE, RULES_PAGE, AZ_RULES_PAGE = "help-page", "rules-page", "az-rules-page"
#: The games (as a ``game_state``'s options name them), and the page of each one's complete rules.
ATON = DEFAULT_GAME
RULES_PAGES = {ATON: RULES_PAGE, ATLAS_ZEUS: AZ_RULES_PAGE}

#: A link to another page of the docs: [words](target), the target neither a web address nor an anchor.
DOCS_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:|#)[^)]*\)")
LEARN = ("**New to Aton?**  **l** plays the lesson: a guided first game against the bot, every rule "
         "in five rounds, Esc leaves it (not during a game of yours; `aton learn` in a shell, or Ctrl+p → "
         "Learn the game).")

RULES = """\
# Aton in short

Two priesthoods, **Red ●** and **Blue ■**, fight for four temples.  Each round:

1. **Draw** 4 cards (values 1–4).  Once per game you may **exchange** them for 4 new ones,
   before you commit.
2. **Commit** in secret: one card on each of your four **cartouches**.
3. **Cartouche 1 — points.** The higher card scores 2 × the difference (equal cards: nothing).
   40 points or more wins at once.
4. **Cartouche 2 — order and removal.** The lower card plays first (ties: the lower
   cartouche 1, then a *war* of deck cards).  It also says what its player removes: 4 → 2 of
   the opponent's stones, 3 → 1, 2 → none, 1 → one of their own.  Nobody removes anything in
   round 1.
5. Then each player's **turn**, first player first.  Your cartouches 3 and 4 turn up when
   your turn starts: the second player's stay hidden until then.
   - **Cartouche 3 — range.** Your removal and placement use temples 1 up to this value.
   - **Removal**, as cartouche 2 says, among the stones in range.  Removed stones go to the
     **Kingdom of the Dead**.
   - **Cartouche 4 — placement.** Place this many stones on empty squares in range.  Stones
     that find no empty square there go from your supply to the Kingdom of the Dead.

**Win at once** by owning a whole temple, all 14 yellow or all 14 green squares — checked
after your whole placement, not at the stone that completes it.

**Scoring round** — when the Kingdom of the Dead holds 8 stones or more at the end of a
round.  The player with more stones in a category scores it; **a tie scores nothing**:

| category | points to the majority |
|---|---|
| temple 1 | the difference in stones |
| temple 2 | 5 |
| temple 3 | 1 per own stone there |
| temple 4 | 3 per own stone on a blue square (all temples) |
| black squares | 8 |
| +1 / +2 squares | everyone scores their own bonus squares |

Then the stones in the Kingdom go back to their supplies.  40 points or more after a
scoring round ends the game: more points wins, **equal points are a draw**.

The complete rules: **Tab** (the Rules page of this help).

## The board

Each square shows its kind on top — **Y** yellow, **G** green, **K** black, **B** blue,
**+1**/**+2** bonus — and a stone below it: **●** red, **■** blue.  While you choose a square,
the ones you cannot choose are faded and the cursor's square is lit.

## Reviewing a game

In the replay viewer, **a** asks the bot to judge every decision of a finished game (in the
background: the bar shows how far it is, **a** again stops it).  Each decision that gave away
winning chances is marked in the log — **?!** an inaccuracy, **?** a mistake, **??** a
blunder, with the chance lost — and the graph (**g**) shows red's winning chance over the
whole game.  **n** / **N** go to the next / previous judged decision of the side shown; there
the bot's better move is shown: its square marked **★** on the board, or its four cards.

## Clocks

Each decision has its own time (the four cards, each stone to remove or place).  When it
runs out, a default move is made for you and **⚠** beside your clock counts the time-outs
in a row; any move of your own starts the count again.  The third time-out in a row loses
the game on time.
"""

#: How keys are written in the tables (Textual's names are for programs).
KEY_NAMES = {
    "left": "←", "right": "→", "up": "↑", "down": "↓", "enter": "Enter", "escape": "Esc",
    "space": "Space", "backspace": "Backspace", "delete": "Delete", "pageup": "PgUp", "pagedown": "PgDn",
    "question_mark": "?", "left_square_bracket": "[", "right_square_bracket": "]",
}


def key_label(key: str) -> str:
    """One key as a player reads it: "←", "Ctrl+q", "Shift+r", "F2", "h"."""
    key = key.strip()
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    if key.startswith("ctrl+"):
        return "Ctrl+" + key_label(key[5:])
    if len(key) == 1 and key.isupper():
        return f"Shift+{key.lower()}"
    if key[:1] == "f" and key[1:].isdigit():
        return key.upper()
    return key


def key_table(title: str, bindings: list[BindingType]) -> str:
    """A Markdown table of what the keys do; keys that do the same thing share a row, and
    every key of a binding is shown (``h`` beside ``←``), whatever the footer shows."""
    rows: dict[str, list[str]] = {}
    for binding in bindings:
        if isinstance(binding, Binding) and binding.description:
            shown = rows.setdefault(binding.tooltip or binding.description, [])
            for key in binding.key.split(","):
                label = key_label(key)
                if label not in shown:
                    shown.append(label)
    lines = [f"## {title}", "", "| keys | do |", "|---|---|"]
    lines += [f"| `{' '.join(keys)}` | {does} |" for does, keys in rows.items()]
    return "\n".join(lines)


def complete_rules() -> str:
    """The complete rules (docs/rules.md, shipped with the client) as the Rules page shows them:
    a link to another page of the docs is left as its words (that page is not in the client)."""
    text = resources.files("aton_tui").joinpath("rules.md").read_text(encoding="utf-8")
    return DOCS_LINK.sub(r"\1", text)


def complete_atlas_zeus_rules() -> str:
    """The complete rules of Atlas & Zeus (docs/atlas-zeus.md), links to other pages as words."""
    return DOCS_LINK.sub(r"\1", atlas_zeus_rules.complete_rules())


def pause_text(pause_left: float | None) -> list[str]:
    """Whether our clock stands still while this help is open (a game against the server's bot)."""
    if pause_left is None:
        return []
    minutes, seconds = divmod(int(pause_left), 60)
    return [f"*Against the server's bot your clock stands still while the help or a dialog is open: "
            f"{minutes}:{seconds:02d} of pausing are left in this game.*"]


def settings_text(settings: Settings) -> str:
    """The player's settings as they stand, and how to change them."""
    theme = "light" if settings.theme == "aton-light" else "dark"
    on_off = {True: "on", False: "off"}
    return "\n".join([
        "## Settings",
        "",
        f"Theme: **{theme}** (F2).  Forced moves made by themselves: **{on_off[settings.auto_forced]}** "
        f"(f in a game).  Bell: **{on_off[settings.bell]}** (Ctrl+g).  The command palette (Ctrl+p) "
        "has them too; they are kept for next time.",
    ])


class HelpScreen(ClientScreen, ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close help"),
        Binding("tab", "turn_page", "Keys/Rules", priority=True, tooltip="the other page: the keys or the rules"),
        Binding("l", "learn", "Learn the game", tooltip="the lesson: a guided first game"),
    ]

    def __init__(self, keymaps: list[tuple[str, list[BindingType]]], settings: Settings,
                 pause_left: float | None = None, page: str = HELP_PAGE, game: str = ATON,
                 rules: tuple[str, ...] = (ATON,)) -> None:
        super().__init__(classes="dialog")
        self.keymaps = keymaps
        self.settings = settings
        self.pause_left = pause_left  # seconds our clock may still stand still (None: it does not)
        self.page = page  # the page shown first
        self.game = game  # the game the Help page tells in short
        self.rules = rules  # the games whose complete rules have a page (in a game: that game's only)

    def compose(self) -> ComposeResult:
        short = [atlas_zeus_rules.IN_SHORT] if self.game == ATLAS_ZEUS else [LEARN, RULES]
        parts = [CLOSING, *pause_text(self.pause_left), *short, settings_text(self.settings),
                 *(key_table(t, b) for t, b in self.keymaps), CLOSING]
        with Vertical(classes="dialog-box help"), TabbedContent(initial=self.page):
            # links are not opened: a click must not open anything on the machine the client runs on
            with TabPane("Help", id=HELP_PAGE), VerticalScroll():
                yield Markdown("\n\n".join(parts), open_links=False)
            for game in self.rules:
                title = "Rules" if game == self.rules[0] else "Atlas & Zeus" if game == ATLAS_ZEUS else "Aton"
                text = complete_atlas_zeus_rules() if game == ATLAS_ZEUS else complete_rules()
                closing = RULES_CLOSING if len(self.rules) == 1 else RULES_CLOSING.replace("shows the keys",
                                                                                           "turns the page")
                with TabPane(title, id=RULES_PAGES[game]), VerticalScroll():
                    yield Markdown("\n\n".join([closing, text, closing]), open_links=False)

    def on_mount(self) -> None:
        self._focus_page()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_page()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link within the page (the rules' "the variants") scrolls to its heading."""
        if event.href.startswith("#"):
            event.markdown.goto_anchor(event.href[1:])

    def _focus_page(self) -> None:
        """The keys scroll the page shown (not the row of tabs)."""
        tabs = self.query_one(TabbedContent)
        self.query_one(f"#{tabs.active} VerticalScroll").focus()

    def action_turn_page(self) -> None:
        tabs = self.query_one(TabbedContent)
        pages = (HELP_PAGE, *(RULES_PAGES[game] for game in self.rules))
        tabs.active = pages[(pages.index(tabs.active) + 1) % len(pages)]

    def action_close(self) -> None:
        self.dismiss(None)

    async def action_learn(self) -> None:
        self.dismiss(None)
        await self.app.run_action("learn")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "learn":
            return self.app.check_action("learn", parameters)
        return True
