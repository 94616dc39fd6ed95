"""The engine is pure: it imports only the standard library's pure modules, nothing of this
repository (not even ``aton``), no I/O and no asyncio."""

import ast
from pathlib import Path

import atlas_zeus

ALLOWED = {"__future__", "collections", "dataclasses", "enum", "itertools", "random", "typing"}


def test_the_engine_imports_only_pure_standard_modules():
    package = Path(atlas_zeus.__file__).parent
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in ALLOWED, f"{path.name} imports {name}"
