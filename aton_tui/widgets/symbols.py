"""Glyphs shared by the widgets: each seat has a shape as well as a colour."""

SEAT_SYMBOL = {"red": "●", "blue": "■"}
