"""The abuse suite: its options, its marker, and the figures each test prints.

Every test here runs in the default suite at a size that fits CI; the options (or the
environment variables beside them) make the runs larger::

    pytest tests/abuse --abuse-frames 300000 --abuse-kills 60

Each test records its figures with the ``figures`` fixture; they are printed in an
"abuse figures" section of pytest's terminal summary, so they show under plain
``pytest -q`` (captured output is not needed).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass

import pytest

#: name of the option -> (environment variable, default in CI, what it sets)
SIZES = {
    "abuse-frames": ("ATON_ABUSE_FRAMES", 30_000, "hostile frames sent beside the live games"),
    "abuse-kills": ("ATON_ABUSE_KILLS", 10, "SIGKILLs of the server in the crash loop"),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("abuse", "the abuse suite (tests/abuse)")
    for option, (variable, default, what) in SIZES.items():
        group.addoption(f"--{option}", type=int, default=None, metavar="N",
                        help=f"{what} (default ${variable} or {default})")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "abuse: hostile load, floods and the crash loop (tests/abuse)")
    config.stash[FIGURES] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.abuse)


def size(config: pytest.Config, option: str) -> int:
    """The size of a run: the option, else its environment variable, else the CI default."""
    variable, default, _ = SIZES[option]
    given = config.getoption(option.replace("-", "_"))
    if given is not None:
        return given
    return int(os.environ.get(variable, default))


#: Seconds a step may take before a test gives up waiting for it (a hang guard, not a measure).
PATIENCE = 60.0


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds; fail, saying ``what`` was awaited, after ``PATIENCE`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while not condition():
        assert loop.time() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.01)


@dataclass
class Figures:
    """The figures of one test, printed in the terminal summary in the order given."""

    test: str
    lines: list[str]

    def add(self, label: str, value: object) -> None:
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
        self.lines.append(f"{label}: {shown}")


FIGURES = pytest.StashKey[list[Figures]]()


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Figures:
    recorded = Figures(request.node.nodeid, [])
    request.config.stash[FIGURES].append(recorded)
    return recorded


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    recorded = [f for f in config.stash.get(FIGURES, []) if f.lines]
    if not recorded:
        return
    terminalreporter.section("abuse figures")
    for figures in recorded:
        terminalreporter.write_line(figures.test)
        for line in figures.lines:
            terminalreporter.write_line(f"    {line}")
