"""The perfect-information Monte Carlo player: the baseline the search player must beat.

Each round deals one world consistent with the seat's view and plays every legal move in it to the end
with the playout policy; the move with the best total over all rounds is chosen. Endgames whose cards are
all accounted for are solved exactly, as the search player does. It ignores that the worlds differ in what
the other seats know (the "strategy fusion" of PIMC), which is what information-set search is meant to fix.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from engine.ai.policy import playout
from engine.ai.solver import SOLVER_NODES, Endgame
from engine.ai.worlds import Worlds
from engine.moves import Move
from engine.views import View


class PimcPlayer:
    """Decides in ``budget`` seconds of ``clock``, or after exactly ``rounds`` rounds (one world each, every
    move played out once in it) if given."""

    def __init__(
        self,
        budget: float = 0.05,
        *,
        rounds: int | None = None,
        seed: int | None = None,
        solver_nodes: int = SOLVER_NODES,
        clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.budget = budget
        self.rounds = rounds
        self.rng = random.Random(seed)
        self.clock = clock
        self._endgame = Endgame(solver_nodes, clock)

    def choose(self, view: View) -> Move:
        start = self.clock()
        moves = list(view.moves)
        if len(moves) == 1:
            return moves[0]
        worlds = Worlds(view, random.Random(self.rng.getrandbits(64)))
        deadline = None if self.rounds is not None else start + self.budget / 2
        good = self._endgame.best(worlds, moves, deadline)
        if good is not None:
            if len(good) == 1:
                return good[0]
            moves = good
        seat, rand = worlds.knowledge.seat, worlds.rng.random
        totals = [0.0] * len(moves)
        done = 0
        while True:
            if self.rounds is not None:
                if done >= self.rounds:
                    break
            elif done and self.clock() >= start + self.budget:
                break
            done += 1
            world = worlds.sample()
            for i, move in enumerate(moves):
                g = world.copy()
                g.push(seat, move)
                result = g.result if g.result is not None else playout(g, rand)
                totals[i] += result.reward(seat)
        return moves[max(range(len(moves)), key=totals.__getitem__)]
