"""``aton-bot``: run bots.

    aton-bot tournament A B --games N [--seed S] [--budget-ms MS] [--jobs J] [--json]
                            [--load MODULE_OR_FILE]
    aton-bot list

A and B are strategy names (``random``, ``greedy``, ``mcts``), level names
(``easy``, ``normal``, ``hard``) or specs with options, e.g.
``mcts:budget_ms=100`` or ``mcts:iterations=400``.  ``--budget-ms`` sets the
per-decision time budget of every strategy that has one.

Playing against a server is a mode of its own (``--server HOST:PORT``), added
with the network client; it lives beside the subcommands here.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import sys

from .strategy import LEVELS, STRATEGIES, available, parse_spec
from .tournament import run_tournament


def _accepts(name: str, option: str) -> bool:
    available()  # load the built-ins
    if name in LEVELS and name not in STRATEGIES:
        name = LEVELS[name][0]
    cls = STRATEGIES.get(name)
    return cls is not None and option in inspect.signature(cls.__init__).parameters


def _with_budget(spec: str, budget_ms: int | None) -> dict:
    name, _ = parse_spec(spec)
    if budget_ms is not None and _accepts(name, "budget_ms"):
        return {"budget_ms": budget_ms}
    return {}


def load_modules(specs: list[str]) -> None:
    """Import bot modules so that their ``@register``-ed strategies can be named:
    a dotted module name (``mybots.hoarder``) or a path to a ``.py`` file."""
    for spec in specs:
        if spec.endswith(".py") or os.sep in spec:
            path = os.path.abspath(spec)
            name = os.path.splitext(os.path.basename(path))[0]
            module_spec = importlib.util.spec_from_file_location(name, path)
            if module_spec is None or module_spec.loader is None:
                raise ValueError(f"cannot load {spec!r}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)


def _tournament(args: argparse.Namespace) -> int:
    try:
        load_modules(args.load)
        a_extra = _with_budget(args.a, args.budget_ms)
        b_extra = _with_budget(args.b, args.budget_ms)

        def progress(done: int, result) -> None:
            if args.progress:
                print(f"\r{done}/{args.games}  A {result.a_wins}  B {result.b_wins}  "
                      f"draws {result.draws}", end="", file=sys.stderr, flush=True)

        result = run_tournament(
            args.a, args.b, args.games, seed=args.seed,
            a_options=a_extra, b_options=b_extra, jobs=args.jobs, progress=progress,
        )
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    if args.progress:
        print(file=sys.stderr)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    low, high = summary["a_win_rate_ci95"]
    print(f"{args.a} (A) vs {args.b} (B): {result.games} games, seed {args.seed}")
    print(f"  A wins {result.a_wins}, B wins {result.b_wins}, draws {result.draws}")
    print(f"  A win rate {100 * summary['a_win_rate']:.1f}%  "
          f"(95% CI {100 * low:.1f}%–{100 * high:.1f}%)")
    print(f"  {summary['avg_rounds']} rounds per game; endings: "
          + ", ".join(f"{k} {v}" for k, v in summary["reasons"].items()))
    print(f"  {summary['decisions_per_s']} decisions/s  "
          f"(A {summary['a_ms_per_decision']} ms, B {summary['b_ms_per_decision']} ms per decision; "
          f"{summary['wall_s']} s)")
    return 0


def _list(args: argparse.Namespace) -> int:
    try:
        load_modules(args.load)
    except (ValueError, ImportError, OSError) as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    available()  # load the built-ins
    print("strategies:")
    for name in sorted(STRATEGIES):
        doc = (STRATEGIES[name].__doc__ or "").strip().splitlines()
        print(f"  {name:10} {doc[0] if doc else ''}")
    print("levels (the server's \"play a bot\"):")
    for name, (base, options) in LEVELS.items():
        shown = ", ".join(f"{k}={v}" for k, v in options.items())
        print(f"  {name:10} {base}{' ' + shown if shown else ''}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aton-bot", description="Aton bots: tournaments in-process (and play over the network).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    t = sub.add_parser("tournament", help="play strategy A against B in-process")
    t.add_argument("a", metavar="A", help="strategy, level or spec such as mcts:budget_ms=100")
    t.add_argument("b", metavar="B")
    t.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    t.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    t.add_argument("--budget-ms", type=int, default=None,
                   help="per-decision time budget for strategies that search")
    t.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.add_argument("--progress", action="store_true", help="show progress on stderr")
    t.add_argument("--load", action="append", default=[], metavar="MODULE",
                   help="import a module or .py file that registers strategies (repeatable)")
    t.set_defaults(func=_tournament)

    ls = sub.add_parser("list", help="list the strategies and levels")
    ls.add_argument("--load", action="append", default=[], metavar="MODULE",
                    help="import a module or .py file that registers strategies (repeatable)")
    ls.set_defaults(func=_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "games", 1) < 1:
        parser.error("--games must be at least 1")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
