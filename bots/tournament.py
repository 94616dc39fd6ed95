"""In-process games between strategies: the engine drives, each bot sees only its view.

``play_game(red, blue, seed)`` plays one game of Aton (``bots.atlas_zeus.play`` one of
Atlas & Zeus); ``run_tournament(a, b, games, seed, game=...)`` plays A against B at either
game, alternating colours: games 2k and 2k+1 use the same decks
(seed derived from the tournament seed and k) with A red in the first and blue in
the second, which halves the luck of the deal.  Each bot's rng is seeded from the
tournament seed and the game number, so a tournament with fixed iteration counts
is reproducible; with a time budget the search depth follows the machine's speed.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aton.game import GameState, new_game
from aton.moves import Exchange, Move
from aton.options import DEFAULT_RULES, Rules
from aton.players import PLAYERS, RED, Player
from aton.views import View, view

from .atlas_zeus import strategy_named
from .atlas_zeus.play import play_game as play_atlas_zeus
from .game_result import GameResult
from .match_statistics import MatchStatistics, Sprt, SprtVerdict
from .strategy import Strategy, accepts_option, make_strategy, parse_spec

__all__ = ["GAMES", "GameResult", "TournamentResult", "derive_seed", "play_game", "run_tournament", "wilson"]

#: The games a tournament plays: Aton (the default) and Atlas & Zeus.
GAMES = ("aton", "atlas-zeus")


def derive_seed(*parts: object) -> int:
    """A 48-bit seed derived from the parts (stable across runs and Python versions)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big")


def _wants_events(bot: Strategy) -> bool:
    return type(bot).on_events is not Strategy.on_events


def play_game(
    red: Strategy,
    blue: Strategy,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    on_move: Callable[[GameState, Player, Move], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GameResult:
    """Play one game between two strategies; the bots receive views only.

    Both players' commits are asked for on views taken at the same moment (so
    neither sees whether the other has committed); an exchange is applied at once
    and that player is asked again.  ``on_move(state, player, move)`` is called
    after each move (for records and tests).  ``clock`` (seconds) measures each bot's thinking
    time (``time.process_time``: CPU time).
    """
    start = time.perf_counter()
    bots = (red, blue)
    state, events = new_game(seed, rules=rules)
    listeners = [p for p in PLAYERS if _wants_events(bots[p])]

    def deliver(evs: list) -> None:
        for p in listeners:
            bots[p].on_events([e.for_viewer(p) for e in evs])

    decisions = [0, 0]
    think = [0.0, 0.0]

    def ask(p: Player, v: View) -> Move:
        t0 = clock()
        move = bots[p].choose(v)
        think[p] += clock() - t0
        decisions[p] += 1
        return move

    for p in PLAYERS:
        bots[p].on_game_start(view(state, p))
    if listeners:
        deliver(events)
    while not state.is_over:
        pending = state.pending()
        views = [view(state, p) for p in pending]
        moves = [ask(p, v) for p, v in zip(pending, views, strict=True)]
        for p, move in zip(pending, moves, strict=True):
            while True:
                evs: list | None = [] if listeners else None
                state.play(p, move, evs)
                if evs:
                    deliver(evs)
                if on_move is not None:
                    on_move(state, p, move)
                if type(move) is not Exchange:
                    break
                move = ask(p, view(state, p))
            if state.is_over:
                break
    for p in PLAYERS:
        bots[p].on_game_over(view(state, p))
    outcome = state.outcome()
    assert outcome is not None  # the round limit ends every game
    return GameResult(
        seed=seed,
        winner=outcome.winner,
        termination=outcome.termination,
        rounds=state.round,
        scores=(state.scores[0], state.scores[1]),
        decisions=(decisions[0], decisions[1]),
        think_s=(think[0], think[1]),
        elapsed_s=time.perf_counter() - start,
    )


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class TournamentResult:
    a: str
    b: str
    seed: int
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    rounds: int = 0
    decisions: list[int] = field(default_factory=lambda: [0, 0])  # A, B
    think_s: list[float] = field(default_factory=lambda: [0.0, 0.0])  # A, B
    elapsed_s: float = 0.0  # sum of the games' durations
    wall_s: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)
    sprt: Sprt | None = None
    pair_points: list[float] = field(default_factory=list)  # A's points in each complete pair
    _first_of_pair: dict[int, float] = field(default_factory=dict, repr=False)  # pair → A's points

    def add(self, result: GameResult, a_colour: Player, number: int) -> None:
        """Count game ``number`` (games 2k and 2k+1 are pair k), A playing ``a_colour``."""
        self.games += 1
        winner = result.winner
        if winner is None:
            self.draws += 1
            points = 0.5
        elif winner == a_colour:  # (the colour's number: the game's own Player enum)
            self.a_wins += 1
            points = 1.0
        else:
            self.b_wins += 1
            points = 0.0
        pair = number // 2
        if pair in self._first_of_pair:
            self.pair_points.append(self._first_of_pair.pop(pair) + points)
        else:
            self._first_of_pair[pair] = points
        self.rounds += result.rounds
        b_colour = a_colour.other
        self.decisions[0] += result.decisions[a_colour]
        self.decisions[1] += result.decisions[b_colour]
        self.think_s[0] += result.think_s[a_colour]
        self.think_s[1] += result.think_s[b_colour]
        self.elapsed_s += result.elapsed_s
        reason = result.termination.value
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    @property
    def a_win_rate(self) -> float:
        return self.a_wins / self.games if self.games else 0.0

    @property
    def statistics(self) -> MatchStatistics:
        return MatchStatistics.from_pair_points(self.pair_points)

    @property
    def decided(self) -> bool:
        """Whether the sequential test (if any) has accepted one of its hypotheses."""
        return self.sprt is not None and self.sprt.verdict(self.statistics.llr(self.sprt)) is not SprtVerdict.OPEN

    def summary(self) -> dict:
        low, high = wilson(self.a_wins, self.games)
        decisions = sum(self.decisions)
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "a_win_rate": round(self.a_win_rate, 4),
            "a_win_rate_ci95": [round(low, 4), round(high, 4)],
            "avg_rounds": round(self.rounds / self.games, 2) if self.games else 0.0,
            "decisions": decisions,
            "decisions_per_s": round(decisions / self.elapsed_s, 1) if self.elapsed_s else 0.0,
            "a_ms_per_decision": _ms(self.think_s[0], self.decisions[0]),
            "b_ms_per_decision": _ms(self.think_s[1], self.decisions[1]),
            "reasons": dict(sorted(self.reasons.items())),
            "wall_s": round(self.wall_s, 2),
            **self.statistics.summary(self.sprt),
        }


def _ms(seconds: float, count: int) -> float:
    return round(1000 * seconds / count, 3) if count else 0.0


def game_plan(games: int, seed: int) -> list[tuple[int, int, Player]]:
    """(game number, deck seed, A's colour) of every game of a tournament."""
    return [(i, derive_seed("aton-tournament", seed, i // 2), PLAYERS[i % 2]) for i in range(games)]


def _play_one(args: tuple) -> tuple[int, Player, GameResult]:
    game, (a_spec, a_opts), (b_spec, b_opts), seed, i, game_seed, a_colour, rules_dict, cpu_time = args
    clock = time.process_time if cpu_time else time.perf_counter
    a = _strategy(game, a_spec, derive_seed("aton-bot", seed, i, "a"), a_opts, cpu_time)
    b = _strategy(game, b_spec, derive_seed("aton-bot", seed, i, "b"), b_opts, cpu_time)
    red, blue = (a, b) if a_colour is RED else (b, a)
    if game == "atlas-zeus":
        return i, a_colour, play_atlas_zeus(red, blue, game_seed, clock=clock)
    return i, a_colour, play_game(red, blue, game_seed, rules=Rules.from_dict(rules_dict), clock=clock)


def _strategy(game: str, name: str, seed: int, options: dict, cpu_time: bool) -> Any:
    """A strategy of ``game`` by name, seeded, with its options (ValueError or TypeError for
    an unknown name or option)."""
    if game == "atlas-zeus":
        return strategy_named(name, seed, **options)
    if game != "aton":
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    return make_strategy(name, seed=seed, **_clocked(name, options, cpu_time))


def _clocked(name: str, options: dict, cpu_time: bool) -> dict:
    """A strategy's options, with the CPU-time clock for its budget if ``cpu_time`` and it has a clock."""
    if cpu_time and accepts_option(name, "clock"):
        return {**options, "clock": time.process_time}
    return options


def run_tournament(
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    a_options: dict | None = None,
    b_options: dict | None = None,
    rules: Rules = DEFAULT_RULES,
    jobs: int = 1,
    progress: Callable[[int, TournamentResult], None] | None = None,
    sprt: Sprt | None = None,
    cpu_time: bool = False,
    game: str = "aton",
) -> TournamentResult:
    """Play ``games`` games of strategy A against B (names or "name:key=value,..." specs) at
    ``game`` (one of ``GAMES``: Aton's strategies and levels for "aton", those of
    ``bots.atlas_zeus.STRATEGY_NAMES`` for "atlas-zeus", played with the engine's default
    options; ``rules`` are Aton's).

    With a sequential test ``sprt`` the match stops after the first pair at which the test
    decides; ``games`` is then the most it plays.  With ``cpu_time`` the strategies that have a
    ``clock`` count their time budgets in CPU time of their process (``time.process_time``), and
    the thinking time per decision is CPU time too: what a search is worth on a core of its own,
    also on a machine shared with other work."""
    a_name, a_spec_opts = parse_spec(a)
    b_name, b_spec_opts = parse_spec(b)
    a_opts = {**a_spec_opts, **(a_options or {})}
    b_opts = {**b_spec_opts, **(b_options or {})}
    # fail early on unknown names or options
    _strategy(game, a_name, 0, a_opts, cpu_time)
    _strategy(game, b_name, 0, b_opts, cpu_time)
    result = TournamentResult(a=a, b=b, seed=seed, sprt=sprt)
    tasks = [
        (game, (a_name, a_opts), (b_name, b_opts), seed, i, game_seed, colour, rules.to_dict(), cpu_time)
        for i, game_seed, colour in game_plan(games, seed)
    ]
    start = time.perf_counter()
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            outcomes = pool.imap(_play_one, tasks)  # in order, so pairs complete in order
            for done, (number, colour, played) in enumerate(outcomes, 1):
                result.add(played, colour, number)
                if progress:
                    progress(done, result)
                if result.decided:
                    break  # leaving the pool's block ends the games still running
    else:
        for done, task in enumerate(tasks, 1):
            number, colour, played = _play_one(task)
            result.add(played, colour, number)
            if progress:
                progress(done, result)
            if result.decided:
                break
    result.wall_s = time.perf_counter() - start
    return result
