"""docs/protocol.md's generated tables are exactly what the declarations render.

Regenerate them with ``python -m protocol.doc_tables --write docs/protocol.md``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from aton.events import EVENT_TYPES
from protocol import messages as m
from protocol.clocks import ATLAS_ZEUS_TIME_CONTROLS, TIME_CONTROLS
from protocol.doc_tables import (
    ARBITER_EVENT_TABLE,
    BEGIN_MARKER,
    END_MARKER,
    EVENTS_BEGIN_MARKER,
    EVENTS_END_MARKER,
    MarkerError,
    event_table,
    generated_section,
    main,
    message_tables,
    replace_generated,
    summary,
)
from protocol.errors import ERROR_MEANINGS, ErrorCode
from protocol.events import ARBITER_EVENTS
from protocol.messages import CATALOGUE, Direction, field_specs
from protocol.schema import declared_fields

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "protocol.md"
REGENERATE = "python -m protocol.doc_tables --write docs/protocol.md"


def test_docs_hold_the_generated_tables():
    text = DOCS.read_text(encoding="utf-8")
    for marker in (BEGIN_MARKER, END_MARKER):
        assert text.count(marker) == 1, (
            f"docs/protocol.md must contain {marker} exactly once (found {text.count(marker)}); "
            f"put both markers where the message tables belong, then run: {REGENERATE}")
    start = text.index(BEGIN_MARKER) + len(BEGIN_MARKER)
    end = text.index(END_MARKER)
    assert start <= end, f"{END_MARKER} comes before {BEGIN_MARKER} in docs/protocol.md"
    assert text[start:end].strip() == message_tables().strip(), (
        f"docs/protocol.md's message tables are out of date; run: {REGENERATE}")


def test_docs_hold_the_generated_arbiter_event_table():
    text = DOCS.read_text(encoding="utf-8")
    assert generated_section(text, ARBITER_EVENT_TABLE).strip() == event_table().strip(), (
        f"docs/protocol.md's table of the arbiter's events is out of date; run: {REGENERATE}")


def test_the_engine_event_table_of_the_docs_lists_every_engine_event_with_its_fields():
    """The engine's events are described by hand: every one the server sends, with all its fields."""
    text = DOCS.read_text(encoding="utf-8")
    rows = {}
    for line in text.split("Game events (from the engine", 1)[1].split("Events of the arbiter", 1)[0].splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = [f.strip() for f in cells[1].split(",") if f.strip()]
    sent = {kind: cls for kind, cls in EVENT_TYPES.items() if kind not in ARBITER_EVENTS}  # the arbiter's committed
    assert set(rows) == set(sent)
    for kind, cls in sent.items():
        assert rows[kind] == [f.name for f in dataclasses.fields(cls)], kind


# ------------------------------------------------------------------ what is rendered

def test_every_message_and_field_is_rendered():
    tables = message_tables()
    for direction in Direction:
        for cls in CATALOGUE[direction].values():
            heading = f"#### `{cls.TYPE}`"
            assert tables.count(heading + "\n") == 1, heading
            section = tables.split(heading + "\n", 1)[1].split("\n#### ", 1)[0].split("\n### ", 1)[0]
            assert summary(cls) in section
            for name, spec, required in field_specs(cls):
                row = f"| `{name}` | {spec.describe().replace('|', chr(92) + '|')} | " \
                      f"{'yes' if required else 'no'}"
                assert row in section, row


@pytest.mark.parametrize("message, row", [
    ("play_bot", '| `level` | one of "random", "easy", "normal", "hard" | no (default "normal") |'),
    ("play_bot", '| `clock` | one of "blitz", "normal", "relaxed" | no (default "normal") |'),
    ("play_bot", '| `seat` | one of "red", "blue", or nil | no |'),
    ("create_table", '| `clock` | one of "blitz", "normal", "relaxed" | no (default "normal") |'),
    ("create_table", '| `private` | true or false | no (default false) |'),
    ("quick_match", '| `clock` | one of "blitz", "normal", "relaxed" | no (default "normal") |'),
    ("rematch", '| `accept` | true or false | no (default true) |'),
    ("welcome", '| `games` | a list of 0–64 items, each an integer 1–9007199254740992 | no |'),
])
def test_a_left_out_field_with_a_default_says_which(message, row):
    section = message_tables().split(f"#### `{message}`\n", 1)[1].split("\n#### ", 1)[0]
    assert row in section


def test_every_arbiter_event_is_rendered_with_its_fields_and_meaning():
    table = event_table()
    assert table.startswith("| type | fields | meaning |\n|---|---|---|\n")
    for kind, cls in ARBITER_EVENTS.items():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{kind}` |"))
        assert summary(cls) in row
        for name, spec, _ in declared_fields(cls):
            assert f"`{name}`: {spec.describe()}" in row
    assert "| `timeout` |" in table and "`forfeit`: true or false (default false)" in table
    assert "| `open_requested` | — |" in table


def test_directions_in_order_with_their_messages():
    tables = message_tables()
    client = tables.index("### Client → server")
    server = tables.index("### Server → client")
    errors = tables.index("### Error codes")
    assert client < server < errors
    assert client < tables.index("#### `hello`") < server
    assert server < tables.index("#### `welcome`") < errors


def test_message_table_layout():
    tables = message_tables()
    assert (
        "#### `open`\n\n"
        "Open your sealed commitment (when asked by the `open_requested` event): Aton's four `cards`, or (since "
        "1.7) Atlas & Zeus's programming, `move`, with the nonce.\n\n"
        "| field | type | required |\n"
        "|---|---|---|\n"
        "| `game` | an integer 1–9007199254740992 | yes |\n"
        "| `cards` | a list of 4 items, each an integer 1–4, or nil | no |\n"
        "| `nonce` | binary of 16–64 bytes | yes |\n"
        "| `id` | an integer 0–2147483647, or nil | no |\n"
        "| `move` | a map of at most 4 keys (a move of Atlas & Zeus, see 'Atlas & Zeus'), or nil | no |\n"
    ) in tables


def test_only_the_first_docstring_paragraph_is_used():
    assert m.Update.__doc__ is not None and m.Update.__doc__.count("\n\n") >= 1
    text = summary(m.Update)
    assert text == "Events since the last frame, the receiver's view after them, and the clocks."
    assert "A client that sees a gap" not in message_tables()


def test_error_codes_are_rendered():
    tables = message_tables()
    section = tables.split("### Error codes\n", 1)[1]
    assert section.startswith("\n| code | meaning |\n|---|---|\n")
    for code in ErrorCode:
        assert f"| `{code.value}` | {ERROR_MEANINGS[code]} |" in section


def test_rendering_is_deterministic():
    assert message_tables() == message_tables()


# ------------------------------------------------------------------ writing into a document

DOC = (f"# Protocol\n\nIntro.\n\n{EVENTS_BEGIN_MARKER}\nstale events\n{EVENTS_END_MARKER}\n\n## Messages\n\n"
       f"{BEGIN_MARKER}\nstale tables\n{END_MARKER}\n\n## After\n\nText.\n")


def test_write_replaces_only_the_marked_region(tmp_path, capsys):
    path = tmp_path / "protocol.md"
    path.write_text(DOC, encoding="utf-8")
    assert main(["--write", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "stale tables" not in text and "stale events" not in text
    assert text.startswith(f"# Protocol\n\nIntro.\n\n{EVENTS_BEGIN_MARKER}\n")
    assert f"{EVENTS_END_MARKER}\n\n## Messages\n\n{BEGIN_MARKER}\n" in text
    assert text.endswith(f"{END_MARKER}\n\n## After\n\nText.\n")
    assert generated_section(text).strip() == message_tables().strip()
    assert generated_section(text, ARBITER_EVENT_TABLE).strip() == event_table().strip()
    assert "updated" in capsys.readouterr().out
    # Writing again changes nothing.
    assert main(["--write", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert "already up to date" in capsys.readouterr().out


@pytest.mark.parametrize("doc, problem", [
    ("# Protocol\n\nNo markers here.\n", f"expected the marker {BEGIN_MARKER} exactly once, found it 0"),
    (f"# P\n{BEGIN_MARKER}\nonly the start\n", f"expected the marker {END_MARKER} exactly once, found it 0"),
    (f"{BEGIN_MARKER}\n{END_MARKER}\n{BEGIN_MARKER}\n{END_MARKER}\n", "exactly once, found it 2"),
    (f"{END_MARKER}\nreversed\n{BEGIN_MARKER}\n", f"{END_MARKER} comes before {BEGIN_MARKER}"),
], ids=["none", "no-end", "twice", "reversed"])
def test_write_refuses_a_document_without_usable_markers(tmp_path, capsys, doc, problem):
    path = tmp_path / "protocol.md"
    path.write_text(doc, encoding="utf-8")
    assert main(["--write", str(path)]) == 1
    err = capsys.readouterr().err
    assert problem in err and str(path) in err
    assert path.read_text(encoding="utf-8") == doc  # untouched
    with pytest.raises(MarkerError):
        replace_generated(doc)


def test_write_reports_a_missing_file(tmp_path, capsys):
    assert main(["--write", str(tmp_path / "nope.md")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_module_prints_the_tables():
    result = subprocess.run([sys.executable, "-m", "protocol.doc_tables"], cwd=ROOT,
                            capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == message_tables() + "\n" + event_table()


def test_the_clock_tables_are_the_protocols():
    """Aton's clocks (*Clocks and forfeits*), then Atlas & Zeus's (*Atlas & Zeus*), as the code has them."""
    rows: dict[str, list[tuple[float, ...]]] = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in m.CLOCKS:
            rows.setdefault(cells[0].strip("`"), []).append(tuple(float(cell) for cell in cells[1:]))
    for clock in m.CLOCKS:
        controls = (TIME_CONTROLS[clock], ATLAS_ZEUS_TIME_CONTROLS[clock])
        expected = [(c.commit, c.open, c.move, c.grace) for c in controls]
        assert rows[clock] == expected, clock
