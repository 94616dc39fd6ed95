"""A fork server whose children describe the process they find themselves in.

    python tests/ssh/forkserver_probe.py FD              a fork server (aton_tui.forkserver.serve)
    python tests/ssh/forkserver_probe.py --describe N    the same description from a new interpreter

Each child prints one line ``FACTS {json}`` (its environment, terminal, session,
signals, descriptors, the colour system Rich and Textual detect...), then ``GOT
<line>`` for one line it reads from its terminal, and exits with status N (its
first argument).  The fork server imports what the real one does (``warm_up``),
so a cache filled at import time would show here as a stale fact.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from aton_tui import forkserver


def describe(args: list[str]) -> int:
    from rich.console import Console
    from textual.app import App

    status = dict(line.split(":\t", 1) for line in Path("/proc/self/status").read_text().splitlines()
                  if ":\t" in line)
    stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    facts = {
        "environ": dict(os.environ),
        "size": list(os.get_terminal_size(1)),
        "pid": os.getpid(), "ppid": os.getppid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
        "tty": int(stat[4]) != 0, "foreground": int(stat[5]) == os.getpid(),
        "fds": fds[:-1],  # the last one is listdir's own
        "signals": {key: status[key].strip() for key in ("SigIgn", "SigBlk", "SigCgt")},
        "rich": Console().color_system, "textual": App().console.color_system,
        "isatty": [os.isatty(fd) for fd in (0, 1, 2)],
        "argv": sys.argv[1:], "tempdir": tempfile.gettempdir(),
        "name": Path("/proc/self/comm").read_text().strip(),
    }
    print("FACTS " + json.dumps(facts), flush=True)
    print("GOT " + sys.stdin.readline().strip(), flush=True)
    return int(args[0])


if __name__ == "__main__":
    if sys.argv[1] == "--describe":
        sys.exit(describe(sys.argv[2:]))
    forkserver.serve(int(sys.argv[1]), entry=describe)
