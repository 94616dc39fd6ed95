"""Styles worked out once for every app of an app host, not once per app.

An app host (``aton_tui.app_host``) runs many copies of the same client: the same
stylesheets, the same screens, the same widgets in the same places.  Textual works a
stylesheet out again in every app, at two steps, and both were among the largest costs of
an app's start:

- **parsing** the stylesheets into rules (``share_parsed_stylesheets``): a quarter of the
  CPU an app took to its first frame, until the rules were shared;
- **applying** the rules to each node (``share_applied_styles``): matching every rule's
  selectors against the node's path and keeping the most specific value of each property
  — a third of an app host's CPU while a burst of players logged in.

What a node gets from a stylesheet depends only on the stylesheet's rules and, for each
node from the app down to it, on what selectors test: its type, its id, its classes and its
pseudo-classes (``hover``, ``focus``, ``first-child``, …).  Those make the key of a process-wide
cache of the values; a node whose key is known gets them without matching a selector.  The
pseudo-classes in the key are only those some rule uses, each one's value taken from the
node itself (those that follow from the app alone — ``dark``, ``ansi``, … — once, from the
app).  Both caches are bounded by the stylesheets and the places of widgets there are, not
by the sessions served.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from textual.app import App
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.styles import RulesMap
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

#: Parsed stylesheets (Textual's rule sets), shared by every app of the process: the same
#: sources with the same theme variables parse to the same rules, which no app changes.
SHARED_RULES: LRUCache[tuple, list[RuleSet]] = LRUCache(1024)


def share_parsed_stylesheets() -> None:
    """Parse each stylesheet once for the whole process: parsing the client's stylesheets was a
    quarter of the CPU an app took to its first frame, and its rules were in every app again.
    An app whose stylesheet has the same sources and variables as one before gets that one's
    list of rules itself (which no app changes: Textual makes a new one when it parses again)."""
    parse_rules = Stylesheet._parse_rules
    parse = Stylesheet.parse
    # the theme's variables as a number, worked out once per variables map (Textual replaces the
    # map, never changes it): the same variables, the same number
    variable_tokens: dict[tuple, int] = {}  # (as many as there are themes)
    variable_keys: LRUCache[int, tuple[dict[str, str], int]] = LRUCache(64)
    whole: LRUCache[tuple, list[RuleSet]] = LRUCache(64)  # (sources, variables) -> the stylesheet's rules

    def variables_key(variables: dict[str, str]) -> int:
        known = variable_keys.get(id(variables))
        if known is None or known[0] is not variables:
            token = variable_tokens.setdefault(tuple(sorted(variables.items())), len(variable_tokens))
            known = variable_keys[id(variables)] = (variables, token)
        return known[1]

    def parse_rules_shared(stylesheet: Stylesheet, css: str, read_from: tuple[str, str],
                           is_default_rules: bool = False, tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables_key(stylesheet._variables))
        rules = SHARED_RULES.get(key)
        if rules is None:
            rules = SHARED_RULES[key] = parse_rules(stylesheet, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    def parse_shared(stylesheet: Stylesheet) -> None:
        key = (tuple(stylesheet.source.items()), variables_key(stylesheet._variables))
        rules = whole.get(key)
        if rules is None:
            parse(stylesheet)  # (each source's rules through ``parse_rules_shared``)
            whole[key] = stylesheet._rules
            return
        stylesheet._rules = rules
        stylesheet._require_parse = False
        stylesheet._rules_map = None

    Stylesheet._parse_rules = parse_rules_shared  # type: ignore[method-assign, assignment]
    Stylesheet.parse = parse_shared  # type: ignore[method-assign, assignment]


#: The pseudo-classes that follow from the app alone: in a key, once (the app's), not per node.
APP_WIDE = frozenset({"dark", "light", "inline", "ansi", "nocolor"})


@dataclass(frozen=True, slots=True)
class KnownRules:
    """One stylesheet's rules as a cache key: a number, and the pseudo-classes its selectors test."""

    token: int
    rules: list[RuleSet]  # kept, so that the ids the token stands for are not reused while it lives
    pseudo_classes: tuple[str, ...]
    per_node: tuple[str, ...]  # those of them a node's key holds (not ``APP_WIDE``)


@dataclass(frozen=True, slots=True)
class Applied:
    """What applying a stylesheet gave a node: its rules (None: none matched), and Textual's flags."""

    rules: RulesMap | None
    flags: tuple[bool, bool, bool, bool]


#: Rules as keys, by the ids of the rule sets in their order (the same lists in every app).
RULES_KEYS: LRUCache[tuple[int, ...], KnownRules] = LRUCache(256)
#: The same, by the list of rules itself (a list shared by many apps: its key without its ids).
RULES_OF_LIST: LRUCache[int, tuple[list[RuleSet], KnownRules]] = LRUCache(256)
#: What each kind of node gets from each stylesheet (``node_key``).
APPLIED: LRUCache[tuple, Applied] = LRUCache(4096)
_tokens = itertools.count()
FLAGS = ("_has_hover_style", "_has_focus_within", "_has_order_style", "_has_odd_or_even")


def rules_key(stylesheet: Stylesheet) -> KnownRules:
    """The stylesheet's rules as a key (worked out once for each list of rules there has been: the
    apps of a host share theirs, ``share_parsed_stylesheets``)."""
    rules = stylesheet.rules
    mine: KnownRules | None = getattr(stylesheet, "_aton_rules_key", None)
    if mine is not None and mine.rules is rules:
        return mine
    seen = RULES_OF_LIST.get(id(rules))
    if seen is not None and seen[0] is rules:
        known = seen[1]
    else:
        ids = tuple(map(id, rules))
        found = RULES_KEYS.get(ids)
        if found is None:
            used = sorted(set().union(*(rule.pseudo_classes for rule in rules)))
            found = RULES_KEYS[ids] = KnownRules(next(_tokens), rules, tuple(used),
                                                 tuple(name for name in used if name not in APP_WIDE))
        known = found
        RULES_OF_LIST[id(rules)] = (rules, known)  # (the list kept: its id is not reused while it is here)
    stylesheet._aton_rules_key = known  # type: ignore[attr-defined]  # one attribute of ours on Textual's object
    return known


def node_key(known: KnownRules, node: DOMNode) -> tuple:
    """Everything the selectors of ``known`` can test of ``node`` and the nodes above it."""
    path = node.css_path_nodes
    return (known.token, *(
        (type(step), step._id, frozenset(step._classes),
         tuple(step.has_pseudo_class(name)
               for name in (known.pseudo_classes if isinstance(step, App) else known.per_node)))
        for step in path))


def share_applied_styles() -> None:
    """Apply the stylesheets through ``APPLIED``: the rules a kind of node gets are worked out once."""
    apply = Stylesheet.apply
    replace_rules = Stylesheet.replace_rules
    given: dict[DOMNode, RulesMap | None] = {}  # nodes being styled the long way -> the rules they got

    def apply_shared(stylesheet: Stylesheet, node: DOMNode, *, animate: bool = False,
                     cache: dict[tuple, RulesMap] | None = None) -> None:
        if animate:  # (a theme changed: the values move to their new ones over time)
            apply(stylesheet, node, animate=True, cache=cache)
            return
        key = node_key(rules_key(stylesheet), node)
        known = APPLIED.get(key)
        if known is None:
            given[node] = None
            try:
                apply(stylesheet, node, cache=cache)
            finally:
                rules = given.pop(node)
            APPLIED[key] = Applied(rules, tuple(getattr(node, flag) for flag in FLAGS))
            return
        for flag, value in zip(FLAGS, known.flags, strict=True):
            setattr(node, flag, value)
        if known.rules is not None:
            replace_rules(node, known.rules)
        stylesheet._process_component_classes(node)

    def replace_rules_seen(cls: type[Stylesheet], node: DOMNode, rules: RulesMap, animate: bool = False) -> None:
        if node in given:
            given[node] = rules
        replace_rules(node, rules, animate=animate)

    Stylesheet.apply = apply_shared  # type: ignore[method-assign, assignment]
    Stylesheet.replace_rules = classmethod(replace_rules_seen)  # type: ignore[method-assign, assignment]


def share_styles() -> None:
    """Both steps shared (an app host's set-up, once, before any app)."""
    share_parsed_stylesheets()
    share_applied_styles()

