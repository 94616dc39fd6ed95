"""Aton, the game: a pure rules engine (no I/O), its views, and game records.

Start with ``new_game``; ask the state who is to decide (``pending``) and what
they may do (``legal_moves``); ``apply`` a move to get the next state and the
events it caused; ``view`` gives what one player or a spectator may know.
"""

#: This release of the whole project (pyproject.toml reads it from here).
__version__ = "0.1.0"

from .board import LAYOUT, SquareKind
from .errors import IllegalMove, RecordError
from .events import Event
from .game import GameState, Phase, apply, new_game
from .moves import Commit, Exchange, Move, Place, Remove, Resign, move_from_dict
from .options import DEFAULT_RULES, Rules
from .outcome import Outcome, Termination
from .players import BLUE, PLAYERS, RED, Player
from .record import GameRecord, replay
from .views import Decision, PlayerView, View, view

__all__ = [
    "BLUE", "DEFAULT_RULES", "LAYOUT", "PLAYERS", "RED",
    "Commit", "Decision", "Event", "Exchange", "GameRecord", "GameState", "IllegalMove",
    "Move", "Outcome", "Phase", "Place", "Player", "PlayerView", "RecordError", "Remove", "Resign",
    "Rules", "SquareKind", "Termination", "View",
    "apply", "move_from_dict", "new_game", "replay", "view",
]
