"""The built-in strategies, one module each: ``random``, ``greedy`` and ``mcts``."""
