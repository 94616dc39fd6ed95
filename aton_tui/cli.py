"""The ``aton`` command: play (the default), and ``aton replay`` for game records.

Only the play commands import Textual, so ``aton replay`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import sys

from aton.errors import RecordError
from aton.record import GameRecord, replay, summary
from aton.text import position_text

EXIT_BAD_RECORD = 2


def replay_command(path: str, as_json: bool) -> int:
    """Replay a record; print the final position.  Errors go to stderr with exit status 2."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        print(f"aton replay: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_RECORD
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"aton replay: {path} is not valid JSON: {exc}", file=sys.stderr)
        return EXIT_BAD_RECORD
    try:
        state = replay(GameRecord.from_dict(data))
    except RecordError as exc:
        print(f"aton replay: {exc}", file=sys.stderr)
        return EXIT_BAD_RECORD
    if as_json:
        print(json.dumps(summary(state)))
    else:
        print(position_text(state))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aton", description="Aton in the terminal.")
    commands = parser.add_subparsers(dest="command")
    rp = commands.add_parser("replay", help="replay an aton-record/1 file and show the final position")
    rp.add_argument("file")
    rp.add_argument("--json", action="store_true", help="print one JSON object instead of a picture")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        return replay_command(args.file, args.json)
    print("aton: the game client arrives with the client issue; for now try `aton replay FILE`.",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
