"""How the search player weighs its moves at a table of three or more: a race of the moves over shared worlds.

Every round deals one world consistent with the seat's view and plays each move still in the race to the end
in it, the rest of the game by the playout policy, every move's playout drawing the same random numbers. Two
moves are then compared on the same deals: the deal's luck, which at three seats decides far more than the
move, cancels out of their difference (common random numbers), and a move whose paired difference from the
leader is clearly negative leaves the race, so the rounds go to the moves still in doubt (racing, as in
Maron & Moore's Hoeffding races). Perfect-information Monte Carlo (engine.ai.pimc) deals worlds the same way
but plays every move to the end however bad it has shown itself to be; the tree search (engine.ai.search)
spends each iteration on one move in one world, so its moves are compared across different deals.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Final

from engine.ai.policy import play_on
from engine.ai.worlds import Worlds
from engine.moves import Move

# Standard errors of the paired difference by which a move must trail the leader to leave the race. The test
# is repeated every few rounds, which makes a wrong exclusion likelier than one test's. On 120 positions of
# three- and four-seat games (bench/race_cut.py), against a 3-second race that drops nothing, the moves made
# gave away 0.35 win chances in all at 2.0, 0.11 at 3.0 and 0.16 at 4.0; at normal's time against PIMC
# (docs/ai.md) 3.0 was the durak in 14% of the games where 2.0 was in 28%.
CUT: Final = 3.0
FIRST_LOOK: Final = 16  # rounds before a move may leave: fewer say little about a 0-or-1 result
LOOK_EVERY: Final = 8


class Race:
    """What the race has seen: each move's total and rounds, and for every two moves the sum of the
    differences of their results and of those differences squared over the rounds both ran (kept as the
    rounds come, so that looking costs the same however long the race has run)."""

    __slots__ = ("alive", "gaps", "rounds", "runs", "squares", "totals")

    def __init__(self, moves: int) -> None:
        self.alive = list(range(moves))
        self.rounds = 0
        self.totals = [0.0] * moves
        self.runs = [0] * moves
        self.gaps = [[0.0] * moves for _ in range(moves)]  # gaps[i][j]: the sum of (i's result - j's)
        self.squares = [[0.0] * moves for _ in range(moves)]

    def add(self, results: list[float]) -> None:
        """One round: the result of each move in the race, in the order of ``alive``."""
        alive, gaps, squares = self.alive, self.gaps, self.squares
        for a, i in enumerate(alive):
            mine = results[a]
            self.totals[i] += mine
            self.runs[i] += 1
            for b in range(a):
                j = alive[b]
                d = mine - results[b]
                gaps[i][j] += d
                gaps[j][i] -= d
                squares[i][j] += d * d
                squares[j][i] += d * d
        self.rounds += 1

    def mean(self, i: int) -> float:
        return self.totals[i] / self.runs[i] if self.runs[i] else 0.0

    def leader(self) -> int:
        return max(self.alive, key=self.mean)

    def behind(self, i: int, j: int) -> float:
        """How many standard errors move ``j`` trails move ``i`` on the rounds both ran (0: not at all)."""
        n = min(self.runs[i], self.runs[j])  # a move out of the race runs no more rounds
        if n < 2:
            return 0.0
        mean = self.gaps[i][j] / n
        if mean <= 0.0:
            return 0.0
        var = max(0.0, (self.squares[i][j] - n * mean * mean) / (n - 1))
        # Every deal alike so far (no spread): as sure as a 0-or-1 result gets in this many rounds.
        return mean / math.sqrt(var / n) if var > 0.0 else mean * math.sqrt(n)

    def cut(self, cut: float = CUT) -> None:
        """Moves more than ``cut`` standard errors behind the leader leave the race."""
        best = self.leader()
        self.alive = [i for i in self.alive if i == best or self.behind(best, i) < cut]


def race(
    worlds: Worlds,
    moves: list[Move],
    done: Callable[[int], bool],
    explore: float,
    cut: float = CUT,
) -> Race:
    """Run the race until ``done(playouts so far)`` or one move is left; ``explore``: the playouts' share of
    random moves, ``cut``: how far behind the leader, in standard errors, a move leaves the race."""
    me = worlds.knowledge.seat
    rng = worlds.rng
    state = Race(len(moves))
    playouts = 0
    while len(state.alive) > 1 and not done(playouts):
        world = worlds.sample()
        seed = rng.getrandbits(64)
        results = []
        for i in state.alive:
            game = world.copy()
            game.push(me, moves[i])
            if game.result is None:
                play_on(game, random.Random(seed).random, explore, None, False)
            result = game.result
            assert result is not None
            results.append(result.reward(me))
        playouts += len(results)
        state.add(results)
        if state.rounds >= FIRST_LOOK and state.rounds % LOOK_EVERY == 0:
            state.cut(cut)
    return state
