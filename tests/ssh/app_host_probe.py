"""Apps for an app host under test (``python -m aton_tui.app_host --app tests.ssh.app_host_probe:probe_app``).

``probe_app`` builds, for a session with arguments ``[NAME]``, a small app that says
what its session sees — its name, the environment it was given, the host's own
``os.environ``, its colour system, the live apps of the host — and misbehaves on
demand:

- ``k``: says ``key N`` (N counts its keys): it is alive;
- ``b``: sleeps in its handler (a blocking call): the watchdog must interrupt it;
- ``s``: spins in its handler (pure Python): the watchdog must interrupt it;
- ``r``: a regular expression that backtracks for ever inside C: cannot be interrupted;
- ``x``: raises;
- ``c``: collects garbage and says how many apps of the host are alive and how many objects
  the host holds frozen (``census N frozen F``).

With the gateway's arguments (``connect HOST:PORT --name=NAME``) it builds the real
game client instead (``aton_tui.app_host.client_app``), counted among the live apps too.
"""

from __future__ import annotations

import gc
import json
import os
import re
import time
import weakref

from textual.app import App, ComposeResult
from textual.widgets import Static

from aton_tui.app_host import client_app

LIVE: weakref.WeakSet[App] = weakref.WeakSet()  # every app built here that is still alive


class Probe(App):
    def __init__(self, name: str, env: dict[str, str]) -> None:
        super().__init__()
        self.probe_name = name
        self.env = env
        self.keys = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="said")

    def on_mount(self) -> None:
        facts = {"name": self.probe_name, "env": self.env.get("SECRET"), "host": os.environ.get("SECRET"),
                 "colours": self.console.color_system}
        self.say("FACTS " + json.dumps(facts))

    def say(self, line: str) -> None:
        self.query_one("#said", Static).update(line)

    def on_key(self, event) -> None:
        self.keys += 1
        if event.key == "k":
            self.say(f"{self.probe_name} key {self.keys}")
        elif event.key == "b":
            time.sleep(60)
        elif event.key == "s":
            while True:
                pass
        elif event.key == "r":
            re.match(r"(a|aa)+$", "a" * 100 + "b")
        elif event.key == "x":
            raise RuntimeError("the probe's handler raised")
        elif event.key == "c":
            gc.collect()
            self.say(f"census {len(LIVE)} frozen {gc.get_freeze_count()}")


def probe_app(args: list[str], env: dict[str, str]) -> App:
    app = client_app(args, env) if args[0] == "connect" else Probe(args[0], env)
    LIVE.add(app)
    return app
