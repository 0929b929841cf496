"""Random playouts: what ``bench/engine_speed.py`` counts (AI search plays out with ``engine.ai.policy``)."""

from __future__ import annotations

import random

from engine.game import Game, Result


def random_playout(game: Game, rng: random.Random) -> Result:
    """Play ``game`` to the end with uniformly random legal moves of the seats on the clock (throwers wait
    for the defender, as a table with timers does). Mutates ``game``; returns its result."""
    pick = rng.random
    while game.result is None:  # method calls, not bound-method locals: compiled, those are native calls
        seat, moves = game.turn(pick)
        game.push(seat, moves[int(pick() * len(moves))])
    return game.result
