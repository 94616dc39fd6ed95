"""Glyphs shared by the widgets: each seat has a shape as well as a colour."""

from aton.players import BLUE, RED

SEAT_SYMBOL = {RED: "●", BLUE: "■"}
