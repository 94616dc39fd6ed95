"""The command palette (Ctrl+P): the main actions, offered only when they can be done.

A client hosted for a remote player (over SSH) offers these and nothing else: Textual's
own system commands act on the machine the client runs on, which is then the server's."""

from __future__ import annotations

from functools import partial

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

#: Where an action of the palette runs.
ActionTarget = App[object] | Screen[object]

#: (title, help, where the action lives: "app" or "screen", action name)
COMMANDS = (
    ("Play a bot", "Start a game against a bot hosted by the server", "app", "play_bot"),
    ("Quick match", "Play the next player who asks for a quick match", "app", "quick_match"),
    ("Open a table", "Open a public or private table and wait for an opponent", "app", "new_table"),
    ("Join by invite code", "Sit down at a private table", "app", "join_invite"),
    ("Exchange cards", "Spend your exchange token: 4 new cards (once per game)", "screen", "exchange"),
    ("Hint", "The bot's suggestion for this decision, and why (against the server's bot)", "screen", "hint"),
    ("Resign", "Give up this game", "app", "resign"),
    ("Rematch", "Offer (or accept) a rematch with the colours swapped", "app", "rematch"),
    ("Decline the rematch", "Say no to the opponent's offer of a rematch", "app", "decline_rematch"),
    ("Leaderboard", "The best ratings of each clock (those no longer provisional)", "app", "leaderboard"),
    ("My profile", "Your games on this server: counted, and each openable in the replay viewer", "app", "profile"),
    ("Save the game", "Write the finished game's record (aton-record/1) to a file", "app", "save_record"),
    ("Mute the opponent's chat", "Hide their chat lines from you (only you; kept for your account) (M)", "screen",
     "mute_opponent"),
    ("Unmute the opponent's chat", "Show their chat lines to you again (M)", "screen", "unmute_opponent"),
    ("Report the opponent", "Tell the server's operator about their behaviour, with a reason", "screen",
     "report_opponent"),
    ("Back to the lobby", "Leave the game screen", "app", "lobby"),
    ("Back to the game", "Return to the game in progress", "app", "back_to_game"),
    ("Light or dark theme", "Switch between the papyrus and the night theme (F2)", "app", "toggle_theme"),
    ("Automatic forced moves", "Turn on/off playing a square by itself when it is the only choice",
     "app", "toggle_forced"),
    ("Bell on or off", "Ring when it is your turn, your clock runs low, a chat line or a rematch offer (Ctrl+G)",
     "app", "toggle_bell"),
    ("Your account", "Your name and keys on this server: rename, add or remove a key", "app", "account"),
    ("Sign a browser in", "A link that opens this server in a web browser as you (once, for minutes)", "app",
     "web_login"),
    ("Help", "The rules in short and every key", "app", "help"),
    ("Rules", "The complete rules of Aton", "app", "rules"),
    ("Learn the game", "The lesson: a guided first game against the bot, every rule in five rounds", "app", "learn"),
)

#: Textual's actions that act on the machine the client runs on (an SVG written to its disk,
#: the process suspended): a hosted client refuses them, whether by a key or a link.
MACHINE_ACTIONS = frozenset({"screenshot", "suspend_process"})


class AtonCommands(Provider):
    def _available(self) -> list[tuple[str, str, ActionTarget, str]]:
        found = []
        for title, help_text, where, action in COMMANDS:
            target: ActionTarget = self.app if where == "app" else self.screen
            if hasattr(target, f"action_{action}") and target.check_action(action, ()) is not False:
                found.append((title, help_text, target, action))
        return found

    async def discover(self) -> Hits:
        for title, help_text, target, action in self._available():
            yield DiscoveryHit(title, partial(target.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, target, action in self._available():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(target.run_action, action), help=help_text)
