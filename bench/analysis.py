"""Post-game analysis: seconds per judged decision and per game, and the noise of a loss.

    python bench/analysis.py [--games N] [--seed S] [--iterations K] [--noise SEEDS] [--commits]

Records seeded games of the greedy bot against itself and analyses each at the budget
(default: the analysis's default), printing per game its rounds, judged decisions and
seconds.  With ``--noise``, the first game's decisions (every fourth, at most 20) are
analysed again with that many seeds, and the spread of the loss over the seeds is
printed (the figure behind the judgement thresholds, docs/analysis.md).  With
``--commits``, the commit actually played at each round's two commits of the games is
valued by each of the search's opponent models (300 play-outs, from its player's view as
the analysis builds it) and the two players' chances are added up: 1 on average for a
model that judges commits fairly (the choice of ``VALUATION_OPP_MODEL``).  Never part of
the test run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.moves import Commit
from aton.record import GameRecord, replay
from bots.analysis import DEFAULT_ITERATIONS, AnalysisSettings, analyse, judge_decision, played_decisions
from bots.strategies.mcts import OPPONENT_MODELS, commit_arms
from bots.strategy import decision_of, make_strategy
from bots.tournament import derive_seed, play_game


def greedy_record(seed: int) -> GameRecord:
    record = GameRecord(seed=seed)
    play_game(make_strategy("greedy", seed=seed), make_strategy("greedy", seed=seed + 1), seed,
              on_move=lambda state, player, move: record.add(player, move))
    return record


def timing(records: list[GameRecord], iterations: int) -> None:
    """Wall-clock and CPU seconds (the CPU's do not depend on what else the machine runs)."""
    decisions = rounds = 0
    wall = cpu = 0.0
    for record in records:
        start, start_cpu = time.perf_counter(), time.process_time()
        analysis = analyse(record, iterations=iterations)
        elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        played = replay(record).round
        print(f"game seed {record.seed:>3}: {played:>2} rounds, {len(record.moves):>3} moves, "
              f"{len(analysis.decisions):>3} judged decisions, {elapsed:6.1f} s ({elapsed_cpu:.1f} s of CPU)")
        decisions += len(analysis.decisions)
        rounds += played
        wall += elapsed
        cpu += elapsed_cpu
    per_round = decisions / rounds
    print(f"per judged decision {1000 * wall / decisions:.0f} ms ({1000 * cpu / decisions:.0f} ms of CPU); "
          f"per game {wall / len(records):.1f} s ({cpu / len(records):.1f} s of CPU); "
          f"{per_round:.1f} judged decisions per round, so a game of 15 rounds takes about "
          f"{15 * per_round * wall / decisions:.0f} s ({15 * per_round * cpu / decisions:.0f} s of CPU)")


def noise(record: GameRecord, iterations: int, seeds: int) -> None:
    spreads = []
    for decision in played_decisions(record)[::4][:20]:
        losses = []
        for seed in range(seeds):
            verdict = judge_decision(decision, record, AnalysisSettings(iterations, None, seed), None)
            if verdict is not None:
                losses.append(verdict.loss)
        if losses:
            spreads.append(statistics.pstdev(losses))
    spreads.sort()
    print(f"noise of the loss over {seeds} seeds, {len(spreads)} decisions: standard deviation median "
          f"{statistics.median(spreads):.3f}, 90th percentile {spreads[int(0.9 * (len(spreads) - 1))]:.3f}, "
          f"max {spreads[-1]:.3f}")


def commit_sums(records: list[GameRecord], samples: int = 300) -> None:
    for model in OPPONENT_MODELS:
        sums = []
        for record in records:
            chances: dict[int, list[float]] = {}
            for decision in played_decisions(record):
                if decision_of(decision.view).kind != "commit" or not isinstance(decision.move, Commit):
                    continue
                rng = random.Random(derive_seed("bench", record.seed, decision.move_index))
                arms = commit_arms(decision.view, rng, opp_model=model)
                played = arms.arm_of(decision.move)
                if played is None or len(arms.moves) == 1:
                    continue
                totals = [0.0] * len(arms.moves)
                for _ in range(samples):
                    arms.evaluate([played], totals)
                chances.setdefault(decision.view.round, []).append(totals[played] / samples)
            sums += [sum(pair) for pair in chances.values() if len(pair) == 2]
        print(f"opponent model {model:9}: the two players' chances at a round's commits add up to "
              f"{statistics.mean(sums):.3f} on average (standard deviation {statistics.pstdev(sums):.3f}, "
              f"{len(sums)} rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--noise", type=int, default=0, metavar="SEEDS")
    parser.add_argument("--commits", action="store_true", help="only the sums of the chances at the commits")
    args = parser.parse_args()
    print(f"$ python bench/analysis.py --games {args.games} --seed {args.seed}"
          + ("" if args.commits else f" --iterations {args.iterations}")
          + (f" --noise {args.noise}" if args.noise else "") + (" --commits" if args.commits else ""))
    records = [greedy_record(args.seed + game) for game in range(args.games)]
    if args.commits:
        commit_sums(records)
        return
    timing(records, args.iterations)
    if args.noise:
        noise(records[0], args.iterations, args.noise)


if __name__ == "__main__":
    main()
