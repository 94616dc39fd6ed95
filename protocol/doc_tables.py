"""docs/protocol.md's message and error tables, rendered from the declarations alone.

    python -m protocol.doc_tables                          # print the tables
    python -m protocol.doc_tables --write docs/protocol.md # replace them in the docs

``--write`` replaces the text between the two markers below (which must each appear
exactly once, BEGIN before END); tests/protocol/test_docs_tables.py checks that the
docs hold exactly what ``message_tables()`` renders.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

from .errors import ERROR_MEANINGS, ErrorCode
from .messages import CATALOGUE, Direction, Message, field_specs

BEGIN_MARKER = "<!-- BEGIN GENERATED MESSAGE TABLES -->"
END_MARKER = "<!-- END GENERATED MESSAGE TABLES -->"

DIRECTION_TITLES = {
    Direction.CLIENT: "Client → server",
    Direction.SERVER: "Server → client",
}


class MarkerError(ValueError):
    """The document lacks the generated-tables markers (or has them out of order)."""


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def summary(cls: type[Message]) -> str:
    """The first paragraph of a message class's own docstring, on one line."""
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
            lines.append(f"| `{name}` | {_cell(spec.describe())} | {'yes' if required else 'no'} |")
    else:
        lines.append("No fields besides `type`.")
    return "\n".join(lines)


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


def _marker_span(text: str) -> tuple[int, int]:
    """(start, end) of the text between the markers; MarkerError if they are not usable."""
    for marker in (BEGIN_MARKER, END_MARKER):
        count = text.count(marker)
        if count != 1:
            raise MarkerError(f"expected the marker {marker} exactly once, found it {count} times")
    start = text.index(BEGIN_MARKER) + len(BEGIN_MARKER)
    end = text.index(END_MARKER)
    if end < start:
        raise MarkerError(f"{END_MARKER} comes before {BEGIN_MARKER}")
    return start, end


def generated_section(text: str) -> str:
    """The text between the markers of a document (MarkerError without them)."""
    start, end = _marker_span(text)
    return text[start:end]


def replace_generated(text: str, tables: str | None = None) -> str:
    """The document with the text between the markers replaced by the tables."""
    start, end = _marker_span(text)
    tables = message_tables() if tables is None else tables
    return text[:start] + "\n\n" + tables.strip("\n") + "\n\n" + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m protocol.doc_tables",
        description="Print the protocol's message and error tables, or write them into a document.",
    )
    parser.add_argument("--write", metavar="PATH",
                        help=f"replace the text between {BEGIN_MARKER} and {END_MARKER} in PATH")
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(message_tables())
        return 0
    path = Path(args.write)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        updated = replace_generated(text)
    except MarkerError as exc:
        print(f"error: {path}: {exc}; add the two marker lines where the tables belong",
              file=sys.stderr)
        return 1
    if updated != text:
        path.write_text(updated, encoding="utf-8")
        print(f"{path}: message tables updated")
    else:
        print(f"{path}: message tables already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
