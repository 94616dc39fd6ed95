"""Atlas & Zeus: the pure game engine (no I/O), beside ``aton`` and independent of it.

The rules are ``docs/atlas-zeus.md``; ``new_game`` deals a game, ``GameState.play`` applies
decisions, ``views.view`` gives what one receiver may see, ``record`` keeps and replays games.
"""

from .cards import DECK, Card
from .errors import IllegalMove, RecordError
from .game import GameState, Phase, new_game
from .moves import (
    Fish,
    Flee,
    Flood,
    Fog,
    Harpoon,
    Move,
    Net,
    Pilehouse,
    Program,
    Resign,
    Surge,
    Transfer,
    Turtle,
    Volcano,
    move_from_dict,
)
from .options import DEFAULT_OPTIONS, Options
from .outcome import Outcome, Termination
from .players import BLUE, PEOPLE, PLAYERS, RED, Player, owner_of, strength_of
from .views import Decision, View, view

__all__ = [
    "BLUE", "DECK", "DEFAULT_OPTIONS", "PEOPLE", "PLAYERS", "RED", "Card", "Decision", "Fish", "Flee", "Flood",
    "Fog", "GameState", "Harpoon", "IllegalMove", "Move", "Net", "Options", "Outcome", "Phase", "Pilehouse",
    "Player", "Program", "RecordError", "Resign", "Surge", "Termination", "Transfer", "Turtle", "View", "Volcano",
    "move_from_dict", "new_game", "owner_of", "strength_of", "view",
]
