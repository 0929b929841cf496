"""Random playouts: the fast path AI search and the benchmarks run on."""

from __future__ import annotations

import random

from engine.game import Game, Result


def random_playout(game: Game, rng: random.Random) -> Result:
    """Play ``game`` to the end with uniformly random legal moves of the seats on the clock (throwers wait
    for the defender, as a table with timers does). Mutates ``game``; returns its result."""
    pick = rng.random
    to_act, legal, push = game.to_act, game.legal_moves, game.push
    while game.result is None:
        seats = to_act()
        seat = seats[0] if len(seats) == 1 else seats[int(pick() * len(seats))]
        moves = legal(seat)
        push(seat, moves[int(pick() * len(moves))])
    return game.result
