"""The client's screen for Atlas & Zeus (issue #18): the ring of islands, the action track, the
hand, both clans and the log, and the decisions made on them by keys and clicks.

One job per module: ``choosing`` (a decision being made, pure logic), ``faces`` (what the
widgets draw, read from the engine's view), ``words`` (events and cards told in a player's
words), ``ring``, ``track``, ``hand``, ``clans`` (the widgets), ``screen`` (the game screen),
``replay_model`` (a record's steps and what each side saw) and ``replay`` (its viewer).
"""
