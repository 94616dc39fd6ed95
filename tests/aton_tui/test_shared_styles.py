"""Styles shared by the apps of an app host (``aton_tui.shared_styles``): every node gets what Textual
itself would give it, whatever state it and the nodes above it are in."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import pytest
from textual.app import App, ComposeResult
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widgets import Button, Input, Label, Static

from aton_tui import shared_styles
from aton_tui.app import AtonApp, Launch
from aton_tui.screens.lobby import LobbyScreen

from .conftest import quiet_settings
from .driving import wait_until

Apply = Callable[..., None]


@pytest.fixture
def textual_apply(monkeypatch) -> Iterator[Apply]:
    """The styles shared as an app host shares them, for this test only; Textual's own ``apply``."""
    apply = Stylesheet.apply
    for name in ("apply", "replace_rules", "_parse_rules", "parse"):
        monkeypatch.setattr(Stylesheet, name, Stylesheet.__dict__[name])
    monkeypatch.setattr(shared_styles, "APPLIED", LRUCache(4096))
    monkeypatch.setattr(shared_styles, "RULES_KEYS", LRUCache(256))
    monkeypatch.setattr(shared_styles, "RULES_OF_LIST", LRUCache(256))
    monkeypatch.setattr(shared_styles, "SHARED_RULES", LRUCache(1024))
    shared_styles.share_styles()
    yield apply


def styled(node: DOMNode) -> tuple[dict, dict]:
    return dict(node.styles.base._rules), {name: dict(styles.base._rules) for name, styles in
                                           node._component_styles.items()}


def assert_styled_as_textual(app: App, textual_apply: Apply) -> int:
    """Every node of the app's screen has the styles Textual's own ``apply`` gives it; how many were checked."""
    shared = Stylesheet.apply
    nodes = [app, *app.screen.walk_children(with_self=True)]
    try:
        Stylesheet.apply = textual_apply  # type: ignore[method-assign]  # (component styles too)
        for node in nodes:
            given = styled(node)
            textual_apply(app.stylesheet, node)
            assert styled(node) == given, f"{node!r} was not styled as Textual styles it"
    finally:
        Stylesheet.apply = shared  # type: ignore[method-assign]
    return len(nodes)


class Gallery(App):
    """Selectors of every kind: types, ids, classes, descendants, children, nesting, pseudo-classes
    of the node and of the nodes above it, of its place among its siblings, of the app."""

    CSS = """
    Static { color: red; }
    #top { background: blue; }
    .loud { text-style: bold; }
    Vertical > Label { color: green; }
    Vertical Label.loud { color: yellow; }
    Label:first-child { border: solid red; }
    Label:last-child { padding: 1; }
    Label:odd { background: $panel; }
    Vertical:focus-within { border: round green; }
    Vertical:focus-within Label { text-style: italic; }
    Input:focus { border: double yellow; }
    Button:disabled { color: grey; }
    Button:hover { background: white; }
    Static:dark { background: black; }
    Static:light { background: white; }
    Vertical {
        &.-wide { width: 100%; }
        &.-wide Label { margin: 1; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("top", id="top")
        with Vertical(id="column"):
            for n in range(4):
                yield Label(f"label {n}", classes="loud" if n % 2 else "")
            yield Input(id="field")
        yield Button("go", id="go")


async def test_a_node_s_styles_follow_everything_its_selectors_test(textual_apply):
    first = Gallery()
    async with first.run_test() as pilot:
        await pilot.pause()
        assert_styled_as_textual(first, textual_apply)
    known = len(shared_styles.APPLIED)
    assert known > 10
    second = Gallery()
    async with second.run_test() as pilot:  # the same nodes in other states
        await pilot.pause()
        assert len(shared_styles.APPLIED) == known, "the same app again: all its nodes known"
        second.query_one("#field").focus()
        second.query_one("#column").add_class("-wide")
        second.query_one("#go", Button).disabled = True
        second.query(Label).last().remove()
        second.query_one("#top").add_class("loud")
        await pilot.pause()
        assert_styled_as_textual(second, textual_apply)
        second.theme = "textual-light"
        await pilot.pause()
        assert_styled_as_textual(second, textual_apply)
    assert len(shared_styles.APPLIED) > known


def in_the_lobby(app: AtonApp) -> bool:
    return isinstance(app.screen, LobbyScreen) and app.status.state == "connected"


async def test_lobbies_share_their_rules_by_theme_and_are_styled_as_textual_styles_them(server, textual_apply):
    rules = []
    for name, theme in (("ada", "aton-dark"), ("bea", "aton-dark"), ("cid", "aton-light")):
        app = AtonApp(Launch(name=name, port=server.port), quiet_settings(theme=theme))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, functools.partial(in_the_lobby, app))
            await pilot.pause()
            assert assert_styled_as_textual(app, textual_apply) > 20
            rules.append(app.stylesheet.rules)
    assert rules[0] is rules[1]  # the second app's stylesheet parsed to the first's rules, not a copy
    assert rules[2] is not rules[0]  # (the light theme's variables: other rules)
