"""Exact endgames: with every card's place known and two sides left, the game is one of perfect
information; alpha-beta with a transposition table finds its value.

Values are what the game is worth to one seat with best play on both sides: 1 escaping, ½ a draw, 0 losing.
Only the seats on the clock move, as at a table with timers (throwers wait for the defender).

With the talon empty a game can cycle (both sides taking cards back and forth); a position that repeats on
the line being searched is scored as a draw. A side that wins never needs a cycle (the loser must keep
taking voluntarily), so this changes no win into a loss.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from engine.ai.policy import policy_move, rewards
from engine.ai.worlds import Worlds
from engine.game import Game
from engine.moves import Move

DRAW: Final = 0.5
SOLVER_NODES: Final = 150_000  # positions an endgame may take, unless a level says otherwise


class OutOfBudget(Exception):
    """The position needs more nodes than the solver may spend."""


def sides(game: Game) -> int:
    """How many sides still hold cards (teams count as one)."""
    return len({game.team(s) for s in range(game.players) if game.out[s] < 0})


def position_key(g: Game) -> tuple[object, ...]:
    return (
        tuple(g.hands), tuple(g.talon), tuple(g.attack), tuple(g.cover), g.taking, g.passed, g.shown,
        g.lead, g.defender, g.seats_out, g.attack_limit,
    )  # fmt: skip


class Solver:
    """Solves positions for ``seat``. One call may visit at most ``limit`` new nodes and, if a
    ``deadline`` (on ``clock``) is given, must end by then. The transposition table is kept between calls:
    the positions of one endgame recur move after move."""

    def __init__(
        self, seat: int, limit: int = 200_000, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.seat = seat
        self.limit = limit
        self.clock = clock
        self.deadline: float | None = None
        self.nodes = 0
        self._table: dict[tuple[object, ...], tuple[float, float]] = {}
        self._line: set[tuple[object, ...]] = set()

    def values(self, game: Game, moves: list[Move], deadline: float | None = None) -> dict[Move, float]:
        """The exact value of each of ``seat``'s ``moves`` in ``game``; raises OutOfBudget."""
        if sides(game) > 2:
            raise ValueError("exact play needs two sides left")
        self.nodes, self.deadline = 0, deadline
        self._line.clear()  # a search that ran out of budget left its line behind
        if len(self._table) > self.limit:
            self._table.clear()  # memory stays bounded (twice the limit at most) over a long session
        out: dict[Move, float] = {}
        for move in moves:
            child = game.copy()
            child.push(self.seat, move)
            out[move] = self._search(child, 0.0, 1.0)
        return out

    def remembered(self) -> int:
        """Positions in the transposition table (about 430 bytes each)."""
        return len(self._table)

    def value(self, game: Game) -> float:
        self.nodes, self.deadline = 0, None
        self._line.clear()
        return self._search(game, 0.0, 1.0)

    def _search(self, g: Game, alpha: float, beta: float) -> float:
        if g.result is not None:
            return rewards(g.result, g.players)[self.seat]
        key = position_key(g)
        if key in self._line:
            return DRAW
        low, high = self._table.get(key, (0.0, 1.0))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        self.nodes += 1
        if self.nodes > self.limit or (
            self.deadline is not None and not self.nodes & 1023 and self.clock() > self.deadline
        ):
            raise OutOfBudget
        seat = g.to_act()[0]
        moves = g.legal_moves(seat)
        first = policy_move(g, seat, moves)
        ordered = [first, *(m for m in moves if m != first)]
        mine = g.team(seat) == g.team(self.seat)
        start_alpha, start_beta = alpha, beta
        best = 0.0 if mine else 1.0
        self._line.add(key)
        for move in ordered:
            child = g.copy()
            child.push(seat, move)
            v = self._search(child, alpha, beta)
            if mine:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        self._line.discard(key)
        if best <= start_alpha:
            self._table[key] = (low, best)  # an upper bound
        elif best >= start_beta:
            self._table[key] = (best, high)  # a lower bound
        else:
            self._table[key] = (best, best)
        return best


class Endgame:
    """The exact part of a player's decision, kept for as long as the player lives (so is the solver's
    table): once every card's place is known and two sides are left, which moves are best with best play."""

    def __init__(self, nodes: int, clock: Callable[[], float]) -> None:
        self.nodes = nodes
        self.clock = clock
        self._solver: Solver | None = None

    def remembered(self) -> int:
        return self._solver.remembered() if self._solver is not None else 0

    def best(self, worlds: Worlds, moves: list[Move], deadline: float | None) -> list[Move] | None:
        """The best of ``moves`` (all of them tied, for the caller to break), or None when the position is
        not a solvable endgame or needs more than the solver's nodes or time."""
        if not worlds.knowledge.determined:
            return None
        return self._best([(worlds.sample(), 1.0)], worlds.knowledge.seat, moves, deadline)

    def likely(
        self, worlds: Worlds, moves: list[Move], deadline: float | None, most: int
    ) -> list[Move] | None:
        """Heads-up, with at most ``most`` unseen cards left in the talon: the moves best on average over
        every world (``Worlds.every``), each solved exactly as if its cards were seen, or None as ``best``.
        Each world is solved with both sides seeing every card, which they will not until those talon cards
        are drawn: exact from then on, an approximation (perfect-information Monte Carlo's) until then."""
        dealt = worlds.every(most)
        return None if dealt is None else self._best(dealt, worlds.knowledge.seat, moves, deadline)

    def _best(
        self, dealt: list[tuple[Game, float]], seat: int, moves: list[Move], deadline: float | None
    ) -> list[Move] | None:
        if self._solver is None or self._solver.seat != seat:
            self._solver = Solver(seat, self.nodes, self.clock)
        totals = dict.fromkeys(moves, 0.0)
        for world, weight in dealt:
            if sides(world) != 2:
                return None
            try:
                values = self._solver.values(world, moves, deadline)
            except OutOfBudget:
                return None
            for m in moves:
                totals[m] += weight * values[m]
        top = max(totals.values())
        return [m for m in moves if totals[m] >= top - 1e-9]
