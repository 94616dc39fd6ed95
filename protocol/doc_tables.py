"""docs/protocol.md's generated tables, rendered from the declarations alone: the messages
and error codes (``protocol.messages``, ``protocol.errors``) and the arbiter's events
(``protocol.events``).

    python -m protocol.doc_tables                          # print the tables
    python -m protocol.doc_tables --write docs/protocol.md # replace them in the docs

``--write`` replaces the text between each pair of markers below (each marker must appear
exactly once, BEGIN before END); tests/protocol/test_docs_tables.py checks that the
docs hold exactly what ``message_tables()`` and ``event_table()`` render.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

from .errors import ERROR_MEANINGS, ErrorCode
from .events import ARBITER_EVENTS
from .messages import CATALOGUE, Direction, Message, field_specs
from .schema import declared_fields

BEGIN_MARKER = "<!-- BEGIN GENERATED MESSAGE TABLES -->"
END_MARKER = "<!-- END GENERATED MESSAGE TABLES -->"
EVENTS_BEGIN_MARKER = "<!-- BEGIN GENERATED ARBITER EVENTS -->"
EVENTS_END_MARKER = "<!-- END GENERATED ARBITER EVENTS -->"

DIRECTION_TITLES = {
    Direction.CLIENT: "Client → server",
    Direction.SERVER: "Server → client",
}


class MarkerError(ValueError):
    """The document lacks the generated-tables markers (or has them out of order)."""


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def summary(cls: type) -> str:
    """The first paragraph of a message (or event) class's own docstring, on one line."""
    doc = cls.__dict__.get("__doc__") or ""
    if doc.startswith(cls.__name__ + "("):  # dataclass's generated signature: no real docstring
        doc = ""
    paragraph = inspect.cleandoc(doc).split("\n\n")[0]
    return re.sub(r"``([^`]+)``", r"`\1`", " ".join(paragraph.split()))  # reST literals → Markdown


def message_table(cls: type[Message]) -> str:
    lines = [f"#### `{cls.TYPE}`", ""]
    text = summary(cls)
    if text:
        lines += [text, ""]
    specs = field_specs(cls)
    if specs:
        lines += ["| field | type | required |", "|---|---|---|"]
        for name, spec, required in specs:
            lines.append(f"| `{name}` | {_cell(spec.describe())} | {requirement(cls, name, required)} |")
    else:
        lines.append("No fields besides `type`.")
    return "\n".join(lines)


def wire_literal(value: Any) -> str:
    """A default value as the wire (and JSON) spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def default_of(cls: type, name: str) -> Any:
    """The value a field takes when it is left out (None: nil, or no default)."""
    found = next(f for f in fields(cls) if f.name == name)
    return None if found.default is MISSING else found.default


def requirement(cls: type, name: str, required: bool) -> str:
    """'yes', 'no', or 'no (default …)' when leaving the field out means a value."""
    if required:
        return "yes"
    default = default_of(cls, name)
    return "no" if default in (None, ()) else f"no (default {wire_literal(default)})"


def event_table() -> str:
    """The arbiter's events: type, fields with their types, meaning."""
    lines = ["| type | fields | meaning |", "|---|---|---|"]
    for type_name, cls in ARBITER_EVENTS.items():
        described = []
        for name, spec, required in declared_fields(cls):
            default = "" if required else f" (default {wire_literal(default_of(cls, name))})"
            described.append(f"`{name}`: {spec.describe()}{default}")
        lines.append(f"| `{type_name}` | {_cell('; '.join(described)) or '—'} | {_cell(summary(cls))} |")
    return "\n".join(lines) + "\n"


def error_table() -> str:
    lines = ["| code | meaning |", "|---|---|"]
    for code in ErrorCode:
        lines.append(f"| `{code.value}` | {_cell(ERROR_MEANINGS[code])} |")
    return "\n".join(lines)


def message_tables() -> str:
    """The generated Markdown: every message of each direction, then the error codes."""
    parts = [
        "Every frame is a map whose `type` key holds the message type; the other keys are the "
        "fields below. A field that is not required may be left out or sent as nil.",
    ]
    for direction in Direction:
        parts.append(f"### {DIRECTION_TITLES[direction]}")
        for cls in CATALOGUE[direction].values():
            parts.append(message_table(cls))
    parts += ["### Error codes", error_table()]
    return "\n\n".join(parts) + "\n"


@dataclass(frozen=True)
class Region:
    """A generated part of a document: between its markers, what ``render`` returns."""

    begin: str
    end: str
    render: Callable[[], str]


MESSAGE_TABLES = Region(BEGIN_MARKER, END_MARKER, message_tables)
ARBITER_EVENT_TABLE = Region(EVENTS_BEGIN_MARKER, EVENTS_END_MARKER, event_table)
REGIONS = (MESSAGE_TABLES, ARBITER_EVENT_TABLE)


def _marker_span(text: str, region: Region) -> tuple[int, int]:
    """(start, end) of the text between the markers; MarkerError if they are not usable."""
    for marker in (region.begin, region.end):
        count = text.count(marker)
        if count != 1:
            raise MarkerError(f"expected the marker {marker} exactly once, found it {count} times")
    start = text.index(region.begin) + len(region.begin)
    end = text.index(region.end)
    if end < start:
        raise MarkerError(f"{region.end} comes before {region.begin}")
    return start, end


def generated_section(text: str, region: Region = MESSAGE_TABLES) -> str:
    """The text between a region's markers in a document (MarkerError without them)."""
    start, end = _marker_span(text, region)
    return text[start:end]


def replace_generated(text: str, tables: str | None = None, region: Region = MESSAGE_TABLES) -> str:
    """The document with the text between a region's markers replaced by ``tables`` (by
    default what the region renders)."""
    start, end = _marker_span(text, region)
    tables = region.render() if tables is None else tables
    return text[:start] + "\n\n" + tables.strip("\n") + "\n\n" + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m protocol.doc_tables",
        description="Print the protocol's message, error and arbiter event tables, or write them into a document.",
    )
    parser.add_argument("--write", metavar="PATH",
                        help=f"replace the text between {BEGIN_MARKER} and {END_MARKER} in PATH, "
                             f"and between {EVENTS_BEGIN_MARKER} and {EVENTS_END_MARKER}")
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(message_tables() + "\n" + event_table())
        return 0
    path = Path(args.write)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        updated = text
        for region in REGIONS:
            updated = replace_generated(updated, region=region)
    except MarkerError as exc:
        print(f"error: {path}: {exc}; add the two marker lines where the tables belong",
              file=sys.stderr)
        return 1
    if updated != text:
        path.write_text(updated, encoding="utf-8")
        print(f"{path}: generated tables updated")
    else:
        print(f"{path}: generated tables already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
