"""docs/protocol.md's example exchange, executed frame by frame against a real server."""

from __future__ import annotations

import asyncio

from .protocol_example import DOCS, example_server, execute, matches, parse_exchange


def test_the_documented_exchange_is_what_the_server_does(tmp_path):
    steps = parse_exchange(DOCS.read_text(encoding="utf-8"))
    assert len(steps) > 40
    assert {s.who for s in steps} == {"ann", "ben"}

    async def run() -> None:
        server = example_server(str(tmp_path / "example.db"))
        await server.start()
        try:
            await execute(steps, server.port)
        finally:
            await server.stop()

    asyncio.run(run())


def test_the_pattern_matcher_is_strict_where_it_should_be():
    assert matches({"a": "…", "b": [1, 2]}, {"a": {"deep": True}, "b": [1, 2]})
    assert not matches({"a": 1}, {"a": 1, "extra": 2})
    assert not matches({"b": [1, 2]}, {"b": [1, 2, 3]})
    assert not matches({"a": 1}, {"a": 2})
