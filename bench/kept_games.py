"""What a client pays to keep its unfinished games between runs (``protocol.saved_games``).

    python bench/kept_games.py [--seconds S] [--seed N]

A client that keeps its games (the Textual client, ``aton-bot``, a gateway's client) asks after
every frame of a game whether what it must remember changed (``Client.keep``), and writes the
file when it did: before each commitment is sent, at each card it sees.  This builds what red
saw of a game played at random to round 5 (its ``game_state``'s log of the latest events, as
``bench/decode_state.py`` makes it) and a seal, for one game and for ``MAX_GAMES`` of them (the
most a client keeps for a server), and prints the microseconds of CPU time of the check when
nothing changed (the usual frame) and of a write (a new seal).  Never part of the test run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from decode_state import payloads

from protocol import messages as m
from protocol.client import EARLIER_RUN, Seal
from protocol.fairness import DealWitness, server_commitment
from protocol.framing import decode_payload
from protocol.saved_games import MAX_GAMES, SavedGames


def witness_of(seed: int, game: int) -> DealWitness:
    """What red saw of the deal of a game at random in its fifth round."""
    state = m.parse(decode_payload(payloads(seed)["game_state"]), m.Direction.SERVER)
    assert isinstance(state, m.GameState)
    witness = DealWitness(game, "red", server_commitment(bytes(32)), bytes(32))
    for event in state.log:
        witness.saw(event)
    return witness


def a_seal(round_: int) -> Seal:
    return Seal(round=round_, cards=(4, 3, 2, 1), nonce=bytes(32), connection=EARLIER_RUN)


def microseconds(step: Callable[[int], None], seconds: float) -> tuple[float, int]:
    """(µs of CPU time a call, calls) of ``step(i)`` called for ``seconds`` of CPU time."""
    calls, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        step(calls)
        calls += 1
    return elapsed / calls * 1e6, calls


def measure(games: int, seed: int, seconds: float) -> str:
    """One line: the check of a frame that changes nothing, and a write, with ``games`` games kept."""
    deals = {game: witness_of(seed, game) for game in range(1, games + 1)}
    seals = {game: a_seal(5) for game in deals}
    with tempfile.TemporaryDirectory() as directory:
        kept = SavedGames(Path(directory), "127.0.0.1:2866")
        kept.deals.keep(deals)
        kept.seals.keep(seals)

        def frame(i: int) -> None:  # (SavedGames.keep_changed, without a connection)
            kept.deals.keep_changed(deals)
            kept.seals.keep_changed(seals)

        def new_seal(i: int) -> None:
            seals[1] = a_seal(6 + i)
            kept.seals.keep_changed(seals)

        unchanged, checks = microseconds(frame, seconds)
        written, writes = microseconds(new_seal, seconds)
    cards = sum(len(w.cards) for w in deals.values())
    return (f"{games:2d} game(s), {cards} cards seen, {len(seals)} seal(s): a frame that changes nothing "
            f"{unchanged:.1f} µs ({checks} checks), a new seal written {written:.0f} µs ({writes} writes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds of each measurement (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="the random game's seed (default 1)")
    args = parser.parse_args()
    print(f"python bench/kept_games.py --seconds {args.seconds} --seed {args.seed}")
    for games in (1, MAX_GAMES):
        print(measure(games, args.seed, args.seconds))


if __name__ == "__main__":
    main()
