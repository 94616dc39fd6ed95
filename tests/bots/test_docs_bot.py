"""The complete bot in docs/bots.md runs as printed."""

from __future__ import annotations

import re
from pathlib import Path

from aton import BLUE, RED
from bots.cli import load_modules, main
from bots.strategy import STRATEGIES, make_strategy
from bots.tournament import play_game

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def _example(tmp_path: Path) -> Path:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    example = next(b for b in blocks if "@register(" in b)
    assert len(example.strip().splitlines()) <= 30  # "a complete bot of about 20 lines"
    path = tmp_path / "pharaoh.py"
    path.write_text(example)
    return path


def test_the_documented_bot_plays_complete_games(tmp_path, capsys):
    path = _example(tmp_path)
    load_modules([str(path)])
    assert "pharaoh" in STRATEGIES
    for game in range(10):
        result = play_game(make_strategy("pharaoh", seed=game), make_strategy("random", seed=game), 100 + game)
        assert result.winner in (RED, BLUE, None)
    assert main(["tournament", "pharaoh", "random", "--load", str(path), "--games", "4", "--json"]) == 0
    assert '"games": 4' in capsys.readouterr().out
