"""Glyphs shared by the widgets: each seat has a shape as well as a colour, and an analysis's
judgements are marked as chess annotators mark theirs."""

from aton.players import BLUE, RED
from bots.analysis import Judgement

SEAT_SYMBOL = {RED: "●", BLUE: "■"}
JUDGEMENT_SYMBOL = {Judgement.INACCURACY: "?!", Judgement.MISTAKE: "?", Judgement.BLUNDER: "??"}
