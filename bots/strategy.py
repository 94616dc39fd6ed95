"""The bot-author interface: a ``Strategy`` answers one kind of decision per method.

A strategy only ever receives ``aton.views.View`` objects — the same view a human
client gets, built for its own player — and returns plain values:

==============================  ==============================================
``exchange(view) -> bool``      asked before ``commit`` while the token is unused
``commit(view) -> (c1..c4)``    a permutation of ``view.decision.hand``
``remove(view) -> (t, s)``      one of ``view.decision.squares``
``place(view) -> (t, s)``       one of ``view.decision.squares``
==============================  ==============================================

``on_game_start(view)``, ``on_events(events)`` (the events as the player may see
them: ``aton.events`` and, over the network, ``protocol.events``) and
``on_game_over(view)`` are optional hooks.  Every strategy owns a seeded
``random.Random`` (``self.rng``) so that games can be replayed.

Runners (the in-process tournament, the network client) call ``choose(view)``,
which dispatches to these methods, checks the answer against the legal options
and returns an engine move.  ``make_strategy(name, seed=..., **options)`` builds a
registered strategy by name; ``LEVELS`` are the server's "play a bot" levels.
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable
from typing import Any

from aton.moves import EXCHANGE, Commit, Move, Place, Remove
from aton.players import Player
from aton.views import Decision, View
from protocol.game_frames import GameEvent

__all__ = [
    "LEVELS",
    "STRATEGIES",
    "IllegalChoice",
    "Strategy",
    "accepts_option",
    "available",
    "decision_of",
    "make_level",
    "make_strategy",
    "parse_spec",
    "player_of",
    "register",
]


class IllegalChoice(ValueError):
    """A strategy answered with something that is not one of the legal options."""


def player_of(view: View) -> Player:
    """The player ``view`` is built for: a strategy is never handed a spectator's view."""
    if view.viewer is None:
        raise ValueError("a strategy plays a seat: this is a spectator's view")
    return view.viewer


def decision_of(view: View) -> Decision:
    """The decision in ``view``: always there in a view handed to a strategy's ``exchange``,
    ``commit``, ``remove`` or ``place`` (this says so to the type checker)."""
    if view.decision is None:
        raise ValueError("the view holds no decision for this player")
    return view.decision


class Strategy:
    """Base class of all bots.  Subclass it and implement ``commit``, ``remove`` and ``place``."""

    #: the registry name (set by ``register``)
    name: str = "strategy"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        if options:
            raise TypeError(f"{type(self).__name__} takes no option(s) {', '.join(sorted(options))}")
        self.seed = seed
        self.rng = random.Random(seed)

    # ------------------------------------------------------------------ decisions

    def exchange(self, view: View) -> bool:
        """Spend the exchange token on this hand?  (Asked only while it is unused.)"""
        return False

    def commit(self, view: View) -> tuple[int, int, int, int]:
        """The cards for cartouches 1-4: a permutation of ``view.decision.hand``."""
        raise NotImplementedError

    def remove(self, view: View) -> tuple[int, int]:
        """The (temple, square) of a stone to remove, from ``view.decision.squares``."""
        raise NotImplementedError

    def place(self, view: View) -> tuple[int, int]:
        """The (temple, square) to place a stone on, from ``view.decision.squares``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ hooks

    def on_game_start(self, view: View) -> None:
        """A new game begins; ``view`` is the opening position (hand drawn)."""

    def on_events(self, events: list[GameEvent]) -> None:
        """Events of the game as this player may see them: the engine's (``aton.events``) and,
        over the network, the arbiter's (``protocol.events``)."""

    def on_game_over(self, view: View) -> None:
        """The game has ended; ``view.outcome`` says who won (``winner`` None: a draw) and why."""

    # ------------------------------------------------------------------ for runners

    def choose(self, view: View) -> Move:
        """The engine move for the decision in ``view``, checked against the legal options."""
        decision = decision_of(view)
        kind = decision.kind
        if kind == "commit":
            if decision.can_exchange and self.exchange(view):
                return EXCHANGE
            cards = tuple(self.commit(view))
            if len(cards) != 4 or sorted(cards) != sorted(decision.hand):
                raise IllegalChoice(
                    f"{self.name}: commit {cards!r} is not a permutation of the hand {decision.hand!r}")
            return Commit(cards)
        if kind == "remove":
            square = tuple(self.remove(view))
            cls: type[Remove | Place] = Remove
        elif kind == "place":
            square = tuple(self.place(view))
            cls = Place
        else:
            raise ValueError(f"unknown decision kind {kind!r}")
        if square not in decision.squares:
            raise IllegalChoice(f"{self.name}: {kind} {square!r} is not one of the legal squares")
        return cls(*square)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed!r}>"


# ---------------------------------------------------------------------- the registry

#: name -> "module:Class" of the built-in strategies (imported on first use)
_BUILTIN = {
    "random": "bots.strategies.random:RandomStrategy",
    "greedy": "bots.strategies.greedy:GreedyStrategy",
    "mcts": "bots.strategies.mcts:MCTSStrategy",
}

#: name -> strategy class; filled lazily with the built-ins, and by ``register``
STRATEGIES: dict[str, type[Strategy]] = {}

#: the server's "play a bot" levels: level -> (strategy name, options). Each beats the one
#: below in three games out of four or more (docs/bots.md, "Levels", measured).
LEVELS: dict[str, tuple[str, dict[str, Any]]] = {
    "random": ("random", {}),
    "easy": ("greedy", {"slips": 0.3}),
    "normal": ("greedy", {}),
    "hard": ("mcts", {"budget_ms": 100, "plan": 2}),
}


def register(name: str) -> Callable[[type[Strategy]], type[Strategy]]:
    """Class decorator: make a strategy available to ``make_strategy`` under ``name``."""

    def deco(cls: type[Strategy]) -> type[Strategy]:
        cls.name = name
        STRATEGIES[name] = cls
        return cls

    return deco


def _load_builtin(name: str) -> None:
    target = _BUILTIN.get(name)
    if target is not None and name not in STRATEGIES:
        module, cls = target.split(":")
        STRATEGIES[name] = getattr(importlib.import_module(module), cls)


def _load_builtins() -> None:
    for name in _BUILTIN:
        _load_builtin(name)


def available() -> list[str]:
    """The names accepted by ``make_strategy``: strategies, then levels."""
    _load_builtins()
    return sorted(STRATEGIES) + sorted(set(LEVELS) - set(STRATEGIES))


def make_strategy(name: str, seed: int | None = None, **options: Any) -> Strategy:
    """A fresh strategy by registry name (or level name), with its seed and options.

    A level's options can be overridden, e.g. ``make_strategy("hard", budget_ms=500)``.
    """
    _load_builtin(name)
    if name in LEVELS and name not in STRATEGIES:
        base, level_options = LEVELS[name]
        return make_strategy(base, seed=seed, **{**level_options, **options})
    cls = STRATEGIES.get(name)
    if cls is None:
        raise ValueError(f"unknown strategy {name!r} (known: {', '.join(available())})")
    return cls(seed=seed, **options)


def accepts_option(name: str, option: str) -> bool:
    """Whether the strategy (or level) ``name`` takes ``option``, e.g. ``budget_ms`` or ``clock``."""
    available()  # load the built-ins
    if name in LEVELS and name not in STRATEGIES:
        name = LEVELS[name][0]
    cls = STRATEGIES.get(name)
    return cls is not None and option in inspect.signature(cls.__init__).parameters


def make_level(level: str, seed: int | None = None) -> Strategy:
    """The bot behind a "play a bot" level of the server."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")
    return make_strategy(level, seed=seed)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:budget_ms=100,iterations=500"`` -> ("mcts", {"budget_ms": 100, "iterations": 500}).

    Values are read as int, then float, then true/false, else kept as strings.
    """
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq:
            raise ValueError(f"option {item!r} in {spec!r} must be key=value")
        options[key.strip().replace("-", "_")] = _parse_value(raw.strip())
    return name.strip(), options


def _parse_value(raw: str) -> Any:
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    low = raw.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    return raw
