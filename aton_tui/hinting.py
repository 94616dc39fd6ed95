"""Hints in the client: which games allow them, and the search behind one, in a worker process.

A hint (``bots.hints``) is the search bot's suggestion for the player's decision with one
line of why.  The client computes it from the player's own view, the one the server sent
it (no hidden card is involved), so any client can: the server is not asked.  It offers
hints only where nobody is wronged by them — a game against the bot the server hosts
(the table's options carry ``pause_s`` exactly then) — and never to a spectator or in a
game between people.

The search is CPU-bound (``HINT_ITERATIONS`` evaluations, about half a second): it runs
in a process of its own (``python -m bots.hints``), started for the one hint and killed
when the player leaves the decision first, so the screen never waits and no late answer
keeps a core busy.  (The searching bots of ``aton``'s own server think in its process
pool; ``aton connect`` and a client over SSH have no such pool, and a pool's running
search cannot be stopped.)  The player's clock runs on meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import sys

from aton.views import View
from bots.hints import HINT_ITERATIONS, Hint

from .model import GameModel

#: What a player reads when a hint is refused, by why.
NOT_FOR_SPECTATORS = "No hints for spectators: a hint is for the player whose decision it is."
NOT_AGAINST_PEOPLE = "No hints in a game between people: hints are only for games against the server's bot."
NO_DECISION = "A hint is for a decision of yours: there is none to make now."


class HintFailed(Exception):
    """The worker process gave no hint (it failed, or was killed)."""


def hint_refusal(model: GameModel) -> str | None:
    """Why ``model``'s game allows no hint (None: it allows them)."""
    if model.seat is None:
        return NOT_FOR_SPECTATORS
    if "pause_s" not in model.options:  # the server says so of a game against its own bot only
        return NOT_AGAINST_PEOPLE
    return None


def hint_seed(model: GameModel) -> int:
    """The seed of a hint in this game at this moment: the same decision gets the same hint."""
    return model.game * 1_000_003 + model.version


async def ask_for_hint(view: View, seed: int, iterations: int = HINT_ITERATIONS) -> Hint:
    """The hint for the decision in ``view``, searched in a process of its own (killed if the
    caller is cancelled)."""
    request = json.dumps({"view": view.to_dict(), "seed": seed, "iterations": iterations}).encode()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.hints",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    try:
        answer, _ = await process.communicate(request)
    finally:
        if process.returncode is None:  # cancelled: the player left the decision
            process.kill()
            await process.wait()
    if process.returncode != 0:
        raise HintFailed(f"the hint's worker process ended with status {process.returncode}")
    return Hint.from_dict(json.loads(answer))
