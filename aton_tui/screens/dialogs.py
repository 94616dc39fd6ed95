"""Small modal dialogs: a yes/no question, a few choices, one line of text."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from ..widgets.choice_row import ChoiceRow
from .client_screen import ClientScreen


class Confirm(ClientScreen, ModalScreen[bool]):
    """A question answered yes (y) or no (n, Escape).  Enter presses the focused button, and
    that is "no" at first: an Enter typed for the board never resigns or spends a token."""

    AUTO_FOCUS = "#no"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", priority=True),
        Binding("n,escape", "answer(False)", "No", priority=True),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="dialog")
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(self.question, classes="dialog-text", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", variant="primary", id="yes")
                yield Button(f"{self.no} (n)", id="no")
            yield Label(f"y: {self.yes.lower()} · n, Esc or Enter: {self.no.lower()}", classes="dialog-hint",
                        markup=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


@dataclass(frozen=True)
class Choice:
    name: str
    label: str
    options: tuple[str, ...]
    default: str
    #: how each option is shown, if not as it is named (a bot level with its rating: "easy 1150?")
    shown: tuple[str, ...] | None = None


#: A row of choices with the line after it, and the lines of a Choices dialog around its rows
#: (title, note, hint, buttons, borders and the screen's bars).
CHOICE_ROW_HEIGHT, CHOICES_AROUND = 2, 16


class Choices(ClientScreen, ModalScreen[dict | None]):
    """A few settings, each one row of options; Enter accepts, Escape cancels."""

    BINDINGS = [
        Binding("enter", "accept", "Start", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("up,k", "app.focus_previous", "Up", show=False),
        Binding("down,j", "app.focus_next", "Down", show=False),
    ]

    def __init__(self, title: str, choices: tuple[Choice, ...], accept: str = "Start", note: str = "") -> None:
        super().__init__(classes="dialog")
        self.title_text, self.choices, self.accept_label = title, choices, accept
        self.note = note  # a line under the title (why an option is chosen, what a guest may play)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            if self.note:
                yield Label(self.note, classes="dialog-text", id="choices-note", markup=False)
            for choice in self.choices:
                yield ChoiceRow(choice.label, choice.options, choice.default, id=f"choice-{choice.name}",
                                shown=choice.shown)
            yield Label("↑↓ setting · ←→ option · Enter " + self.accept_label.lower() + " · Esc cancel",
                        classes="dialog-hint", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.accept_label, variant="primary", id="accept")
                yield Button("Cancel", id="cancel")

    def on_resize(self, event: events.Resize) -> None:
        """Rows one after the other, with no line between them, where a line each would not fit."""
        self.set_class(event.size.height < CHOICE_ROW_HEIGHT * len(self.choices) + CHOICES_AROUND, "-tight")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "accept":
            self.action_accept()
        else:
            self.dismiss(None)

    def action_accept(self) -> None:
        self.dismiss({c.name: self.query_one(f"#choice-{c.name}", ChoiceRow).value for c in self.choices})

    def action_cancel(self) -> None:
        self.dismiss(None)


class JoinedLinesInput(Input):
    """An input that takes a pasted text of several lines as one line: its lines, stripped,
    joined by spaces (a plain ``Input`` keeps only the first line of a paste).  A public key
    line that a narrow terminal wrapped at its spaces comes back whole; a trailing newline is
    dropped."""

    def _on_paste(self, event: events.Paste) -> None:
        event.text = " ".join(line.strip() for line in event.text.splitlines() if line.strip())
        # Input's own handler (next in the MRO) inserts it


class Prompt(ClientScreen, ModalScreen[str | None]):
    """One line of text (an invite code, a file name, a chat line); Enter accepts, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "", placeholder: str = "", max_length: int = 0,
                 pasted_lines_joined: bool = False) -> None:
        """``pasted_lines_joined``: a paste of several lines is one line (``JoinedLinesInput``)."""
        super().__init__(classes="dialog")
        self.question, self.value, self.placeholder, self.max_length = question, value, placeholder, max_length
        self.pasted_lines_joined = pasted_lines_joined

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box prompt"):
            yield Label(self.question, classes="dialog-text", markup=False)
            kind = JoinedLinesInput if self.pasted_lines_joined else Input
            yield kind(value=self.value, placeholder=self.placeholder, max_length=self.max_length)
            yield Label("Enter accepts · Esc cancels", classes="dialog-hint", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
