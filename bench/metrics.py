"""What the metrics cost a move: the arbiter's own work for one move, counted and not counted.

    python bench/metrics.py [--games N] [--repeats R] [--seed S]

Each run plays N whole games of random legal moves through the server's rooms, in this
process, with no network: every move is a request as a client sends it (sealed commitments
opened when the server asks), handled by ``Room.handle``, stored, committed and broadcast to
two seated participants that only keep what they receive. "counted" is the server as it runs
(``ServerMetrics``: moves, the wait for openings, each database commit timed); "not counted"
switches the counting off by hand. Runs alternate, R of each; printed: the median time per
move of each, the difference, and the cost of a scrape of /metrics (its text, built on the
event loop between two moves).

Never part of the test run; it prints figures and never fails.
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol import messages as m  # noqa: E402
from protocol.commitment import seal  # noqa: E402
from server.app import ArbiterServer  # noqa: E402
from server.config import ServerConfig  # noqa: E402
from server.games import AtonGame  # noqa: E402
from server.games.aton import KIND as ATON  # noqa: E402
from server.room import Room  # noqa: E402


class NoTimers:
    """The rooms' clock: the time, and timers that never fire (nothing here waits for one), kept nowhere."""

    class Timer:
        def cancel(self) -> None:
            pass

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: object, *args: object) -> Timer:
        return self.Timer()


class Seated:
    """A seated player's connection, as the room sees it: it keeps nothing but the count."""

    kind = "bot"

    def __init__(self, name: str) -> None:
        self.name = name
        self.token = name * 8
        self.received = 0

    def deliver(self, message: m.Message) -> None:
        self.received += 1


def play_games(server: ArbiterServer, games: int, counted: bool, rng: random.Random) -> tuple[int, float]:
    """Play ``games`` games; (moves, CPU seconds the server spent handling them: the processor's
    time of this process, so that other programs on a busy machine count less than they would
    in wall-clock time)."""
    commit = server.metrics.timed_commits(server.store.commit) if counted else server.store.commit
    moves, spent = 0, 0.0
    for _ in range(games):
        players = {"red": Seated("alice"), "blue": Seated("bob")}
        game_id = server._new_id()
        participants = dict(zip(AtonGame.seats, players.values(), strict=True))
        room = server._open_room(game_id, ATON, "relaxed", participants, False, rng.getrandbits(63), None)
        for seat, player in participants.items():
            room.attach(seat, player)
        if not counted:
            room.metrics = None
        seals: dict = {}
        while not room.game.is_over:
            for seat, player in participants.items():
                request = next_request(room, seat, seals, rng)
                if request is None:
                    continue
                start = time.process_time()
                room.handle(seat, request, player)
                commit()
                spent += time.process_time() - start
                moves += not isinstance(request, m.Open)
        server._retire(room)
    return moves, spent


def next_request(room: Room, seat, seals: dict, rng: random.Random) -> m.Message | None:
    """What ``seat``'s client would send now: a random legal move, or the opening asked for."""
    commitment = room.commitments()[str(seat)]
    if commitment == "awaiting_open":
        cards, nonce = seals.pop(seat)
        return m.Open(game=room.game_id, cards=cards, nonce=nonce)
    decision = room.game.view(seat).get("decision")
    if decision is None:
        return None
    if decision["kind"] == "commit":
        if commitment != "none":
            return None
        hand = list(decision["hand"])
        rng.shuffle(hand)
        digest, nonce = seal(hand)
        seals[seat] = (tuple(hand), nonce)
        return m.Commit(game=room.game_id, digest=digest)
    temple, square = rng.choice(decision["squares"])
    kind = m.Place if decision["kind"] == "place" else m.Remove
    return kind(game=room.game_id, temple=temple, square=square)


def counting_cost(server: ArbiterServer, calls: int = 200_000) -> float:
    """The metrics' own work for one move, alone (µs): what the difference above is made of."""
    metrics = server.metrics
    nothing = metrics.timed_commits(lambda: None)
    start = time.process_time()
    for _ in range(calls):
        metrics.moves_played(1)
        nothing()
        metrics.reveal_waited(0.01)
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="games per run (default 40)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each kind, alternating (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("command:", shlex.join(["python", "bench/metrics.py", *sys.argv[1:]]))
    per_move: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        server = ArbiterServer(ServerConfig(db_path=str(Path(tmp) / "bench.db"), game_seed=args.seed),
                               clock=NoTimers())
        server.store.on_write = lambda: None  # no event loop: each move's writes are committed here
        rng = random.Random(args.seed)
        play_games(server, 2, True, rng)  # warm up: caches, the database's first pages
        moves_total = 0
        for _ in range(args.repeats):
            for counted in (False, True):
                moves, spent = play_games(server, args.games, counted, rng)
                per_move[counted].append(spent / moves * 1e6)
                moves_total += moves
        counting_us = counting_cost(server)
        scrapes = 200
        start = time.perf_counter()
        for _ in range(scrapes):
            text = server.metrics.exposition()
        scrape_ms = (time.perf_counter() - start) / scrapes * 1e3
        server.store.close()
    off, on = statistics.median(per_move[False]), statistics.median(per_move[True])
    print(f"moves played: {moves_total} in {2 * args.repeats} runs of {args.games} games")
    print(f"a move, not counted: {off:7.1f} µs (median of {args.repeats} runs; "
          f"runs {', '.join(f'{v:.1f}' for v in per_move[False])})")
    print(f"a move, counted:     {on:7.1f} µs (median of {args.repeats} runs; "
          f"runs {', '.join(f'{v:.1f}' for v in per_move[True])})")
    print(f"difference:          {on - off:+7.1f} µs a move ({100 * (on - off) / off:+.1f}%)")
    print(f"the counting alone:   {counting_us:7.2f} µs a move (a move counted, a commit timed, a wait "
          "observed: the most a move does)")
    print(f"a scrape of /metrics: {scrape_ms:.2f} ms ({len(text)} bytes), on the event loop between two moves")


if __name__ == "__main__":
    main()
