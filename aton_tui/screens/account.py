"""Your account on this server: its name, its keys, and whether you play as a guest.

Opened from the lobby (``a``) or the command palette.  It shows what the server's ``account``
says: the name the account owns, or that this session is a guest's; the account's keys, each
by its fingerprint (``SHA256:…``, as ``ssh-keygen -l`` prints it) with when it was added and
last used, the one this connection proved marked; and this client's own key for the server, as
an OpenSSH public key line to paste into another session (``a`` in the Account screen there)
so that both log in as one account: it stands on a line of its own, the screen's whole width
(an Ed25519 key's line is 80 characters: one line at 80 columns), and ``c`` copies it to the
clipboard.  ``r`` renames the account, ``k`` adds a key (pasted as its public key line: a paste
that a terminal broke into lines, or that ends with one, is taken as one line), ``d`` removes
the selected key (never the last one: the server refuses it), ``w`` shows a link that signs a web
browser in as the account (where the server serves browsers).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from protocol import messages as m
from protocol.account_keys import KEY_LINE_CHARS

from ..widgets.fitted_footer import FittedFooter
from ..widgets.fitted_table import FittedTable
from ..widgets.notice import Notice
from .client_screen import ClientScreen
from .dialogs import Confirm, Prompt

if TYPE_CHECKING:
    from ..app import AtonApp


def _day(seconds: int | None) -> str:
    """A key's date as the screen shows it (the local calendar day), or "never"."""
    return "never" if seconds is None else time.strftime("%Y-%m-%d", time.localtime(seconds))


class AccountScreen(ClientScreen, Screen):
    BINDINGS = [
        Binding("r", "rename", "Rename", tooltip="give your account another name (one no other account has)"),
        Binding("k", "add_key", "Add key", tooltip="add a key to your account: paste its OpenSSH public key line"),
        Binding("d", "remove_key", "Remove key", tooltip="remove the selected key from your account (never the last)"),
        Binding("c", "copy_key", "Copy key", tooltip="copy this client's key for this server to the clipboard"),
        Binding("w", "app.web_login", "Browser", tooltip="a link that signs a web browser in as you (once, minutes)"),
        Binding("escape", "app.pop_screen", "Back", tooltip="back to the lobby"),
    ]
    FOOTER_SPARE = ()

    def __init__(self, where: str, own_key: str | None) -> None:
        """``own_key``: this client's public key line for the server (None: it has none of its own,
        over SSH)."""
        super().__init__()
        self.where = where
        self.own_key = own_key
        self.info: m.AccountInfo | None = None

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(f" ATON  ·  your account on {self.where}", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        with Vertical(id="account"):
            yield Label("Asking the server…", id="account-name", markup=False)
            yield Label("", id="account-about", markup=False)
            yield Label("Keys", id="keys-title", classes="section-title", markup=False)
            yield FittedTable(id="account-keys", cursor_type="row", zebra_stripes=True)
            yield Label("", id="own-key-about", markup=False)
            yield Label("", id="own-key", markup=False)
            yield Label("", id="web-login", markup=False)
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#account-keys", DataTable).add_columns("  key (its fingerprint)", "added", "last used")
        self.query_one("#account-keys", DataTable).focus()
        if self.aton.account_info is not None:  # what we know, until the server's answer
            self.show(self.aton.account_info)
        self.run_worker(self.aton.send(m.GetAccount()))

    def show(self, info: m.AccountInfo) -> None:
        """The server's latest word on the account."""
        self.info = info
        if info.guest:
            self.query_one("#account-name", Label).update(f"You play as a guest: {info.name}")
            self.query_one("#account-about", Label).update(
                "A guest's name is marked and owns nothing; its games count for nobody.  This server did not "
                "take a key from this client: connect with aton connect (it makes a key) or with an SSH key.")
        else:
            self.query_one("#account-name", Label).update(f"Name: {info.name}")
            self.query_one("#account-about", Label).update(
                "The name is yours on this server: no other key can take it.  Every key below logs in as you.")
        table = self.query_one("#account-keys", DataTable)
        table.display = self.query_one("#keys-title", Label).display = not info.guest
        table.clear()
        for key in info.keys:
            mark = "› " if key["fingerprint"] == info.key else "  "
            table.add_row(Text(mark + key["fingerprint"]), _day(key.get("added")), _day(key.get("last_seen")),
                          key=key["fingerprint"])
        shown = self.own_key is not None and not info.guest
        self.query_one("#own-key-about", Label).update(
            "› marks the key of this connection.  This client's key for this server, to add to your account "
            "elsewhere (c copies it):" if shown else "")
        self.query_one("#own-key", Label).update(self.own_key if shown and self.own_key else "")
        self.refresh_bindings()

    def show_web_login(self, text: str) -> None:
        """The server's link that signs a browser in as the account."""
        self.query_one("#web-login", Label).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rename", "add_key", "remove_key"):
            return self.info is not None and not self.info.guest
        if action == "copy_key":
            return self.own_key is not None and self.info is not None and not self.info.guest
        return True

    def action_copy_key(self) -> None:
        if self.own_key is not None:
            self.app.copy_to_clipboard(self.own_key)
            self.notify("This client's key is on the clipboard (where the terminal lets a program copy).",
                        timeout=4)

    def action_rename(self) -> None:
        def entered(name: str | None) -> None:
            if name:
                self.run_worker(self.aton.send(m.Rename(name=name)))

        current = self.info.name if self.info is not None else ""
        self.app.push_screen(Prompt("Your account's new name:", value=current, max_length=m.NAME.max_len), entered)

    def action_add_key(self) -> None:
        def entered(line: str | None) -> None:
            if line:
                self.run_worker(self.aton.send(m.AddKey(key=line)))

        self.app.push_screen(Prompt("Paste the key's public line (as in ~/.ssh/id_ed25519.pub):",
                                placeholder="ssh-ed25519 AAAA… you@laptop", max_length=KEY_LINE_CHARS,
                                pasted_lines_joined=True), entered)

    def action_remove_key(self) -> None:
        table = self.query_one("#account-keys", DataTable)
        if table.row_count == 0:
            return
        fingerprint = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if fingerprint is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self.aton.send(m.RemoveKey(fingerprint=fingerprint)))

        self.app.push_screen(Confirm(f"Remove the key {fingerprint} from your account?  It will no longer log in "
                                 "as you.", yes="Remove", no="Keep"), answered)
