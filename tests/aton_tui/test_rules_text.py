"""The complete rules are one text: docs/rules.md in the source tree, shipped in the package as
``aton_tui/rules.md`` (a link to it: a wheel holds the text itself) for the help's Rules page;
and that text names every rule switch of the engine with its variant."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from importlib import resources
from pathlib import Path

from aton.options import DEFAULT_RULES, Rules

ROOT = Path(__file__).resolve().parents[2]
DOCS_RULES = ROOT / "docs" / "rules.md"
PACKAGED_RULES = ROOT / "aton_tui" / "rules.md"

#: each rule switch, by the first column of its row in the rules' table of variants
VARIANT_ROWS = {
    "hide_second_player_until_turn": "the second player's cartouches 3 and 4",
    "exchange_reshuffle_excludes_hand": "an exchange that runs the deck out",
    "scoring_tie_nobody_scores": "a scoring category with equal stones",
    "dead_return_to_supply": "the Kingdom of the Dead after a scoring round",
    "equal_points_draw": "equal points when a scoring round ends the game",
    "max_rounds": "the safety limit on rounds",
}


def test_the_package_ships_the_very_text_of_docs_rules():
    assert PACKAGED_RULES.is_symlink() and PACKAGED_RULES.resolve() == DOCS_RULES.resolve()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "rules.md" in package_data["aton_tui"]
    shipped = resources.files("aton_tui").joinpath("rules.md").read_text(encoding="utf-8")
    assert shipped == DOCS_RULES.read_text(encoding="utf-8")


def test_every_rule_switch_of_the_engine_is_a_variant_of_the_rules():
    text = DOCS_RULES.read_text(encoding="utf-8")
    variants = text.split("## Variants", 1)[1]
    rows = [line for line in variants.splitlines() if line.startswith("| ") and not line.startswith("| the rule")]
    assert sorted(f.name for f in fields(Rules)) == sorted(VARIANT_ROWS)
    assert len(rows) == len(VARIANT_ROWS)
    for name, rule in VARIANT_ROWS.items():
        assert any(row.startswith(f"| {rule} |") for row in rows), name
    assert f"| the safety limit on rounds | {DEFAULT_RULES.max_rounds} |" in variants
    # every choice the engine makes is marked where the rule is told (the round limit is no such choice),
    # and once more in the sentence that explains the mark
    switches = [f for f in fields(Rules) if f.type in (bool, "bool")]
    assert text.split("## Variants", 1)[0].count("*(option)*") == len(switches) + 1
