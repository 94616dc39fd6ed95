"""Decoding a game's frames on the client: frame bytes to the engine's typed view and events.

    python bench/decode_state.py [--seconds S] [--seed N]

Builds two realistic frames of a random game played to round 5 on the engine, as red
receives them: a ``game_state`` (the view, and a log of the game's latest events, up to
150) and the ``update`` of its last move (the view, and that move's events).  For each
it measures how many times a second a client turns the payload into what it plays
with: the validated message, the typed ``View`` and the typed events.  Prints the
payload size and decodes per second of this process's CPU time (the machine may be
shared: wall time would count the other processes too).  Never part of the test run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aton.game import new_game
from aton.players import RED
from aton.views import view
from protocol import messages as m
from protocol.framing import decode_payload, encode_frame
from protocol.game_frames import GameStateFrame, UpdateFrame, typed


def payloads(seed: int, rounds: int = 5) -> dict[str, bytes]:
    """The game_state and the last update of a random game in its ``rounds``-th round, as red
    receives them: payloads by message type."""
    state, _ = new_game(seed)
    rng = random.Random(seed)
    events: list = []
    last_move: list = []
    while state.round < rounds and not state.is_over:
        player = state.pending()[0]
        legal = state.legal_moves(player, resign=False)
        last_move = []
        state.play(player, legal[rng.randrange(len(legal))], last_move)
        events += last_move
    numbered = [{**event.for_viewer(RED).to_dict(), "version": n} for n, event in enumerate(events, 1)]
    seat = {"remaining_ms": 12_345, "for": "move", "strikes": 0}
    clocks = {"red": seat, "blue": {**seat, "for": None, "remaining_ms": None}}
    seen = view(state, RED).to_dict()
    commitments = {"red": "none", "blue": "none"}
    game_state = m.GameState(
        game=7, version=len(events), seat="red",
        players={"red": {"name": "ann", "kind": "human", "connected": True},
                 "blue": {"name": "Bot (normal)", "kind": "bot", "connected": True}},
        options={"clock": "normal", "private": False,
                 "time_control": {"commit": 90, "open": 15, "move": 30, "grace": 60, "max_strikes": 3}},
        view=seen, clocks=clocks, log=tuple(numbered[-m.LOG_EVENTS:]), commitments=commitments)
    update = m.Update(game=7, version=len(events), events=tuple(numbered[-len(last_move):]), view=seen,
                      clocks=clocks, commitments=commitments)
    return {message.TYPE: encode_frame(message.to_wire())[4:] for message in (game_state, update)}


def decode(payload: bytes) -> GameStateFrame | UpdateFrame:
    """What a client does with a game frame's payload before it can use it (``protocol.client``
    reads the message, ``protocol.game_frames.typed`` decodes it once into the engine's types)."""
    frame = typed(m.parse(decode_payload(payload), m.Direction.SERVER))
    assert isinstance(frame, (GameStateFrame, UpdateFrame))
    return frame


def rate(payload: bytes, seconds: float) -> tuple[int, float]:
    """(decodes, CPU seconds) of decoding ``payload`` over and over for ``seconds`` of CPU time."""
    count, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        for _ in range(100):
            decode(payload)
        count += 100
    return count, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds to measure each frame for")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for kind, payload in payloads(args.seed).items():
        frame = decode(payload)
        events = len(frame.log if isinstance(frame, GameStateFrame) else frame.events)
        count, elapsed = rate(payload, args.seconds)
        print(f"{kind} of {len(payload)} bytes with {events} events: "
              f"{count / elapsed:,.0f} decodes/s ({elapsed / count * 1e6:.1f} µs each)")


if __name__ == "__main__":
    main()
