"""The search player: information-set Monte Carlo tree search over worlds consistent with its view, with
policy playouts, stopped by a time budget (or an iteration count, for reproducible tests); endgames whose
cards are all accounted for are solved exactly instead.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): every iteration deals a fresh world, walks one
tree whose edges are (seat, move) pairs, choosing among the edges legal in that world by UCB with
availability counts, adds one edge, plays the game out with the policy and credits every edge with the
result of the seat that chose it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.ai.policy import playout, rewards
from engine.ai.solver import OutOfBudget, Solver, sides
from engine.ai.worlds import Worlds
from engine.moves import Move
from engine.views import View

EXPLORATION = 0.7
SEAT_BITS = (
    3  # an edge's key packs (seat, move) into one int: ``seat | move << SEAT_BITS`` (seats are below 8)
)


class _Node:
    __slots__ = ("avail", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who chose the edge into this node
        self.children: dict[int, _Node] = {}  # by edge key, see SEAT_BITS
        self.visits = 0
        self.total = 0.0
        self.avail = 1


@dataclass(frozen=True, slots=True)
class Decision:
    """How the last move was found: for benchmarks and logs."""

    move: Move
    how: str  # "forced", "solved" or "search"
    iterations: int
    seconds: float


class SearchPlayer:
    """Decides in ``budget`` seconds, or after exactly ``iterations`` iterations if given (deterministic
    under ``seed`` then)."""

    def __init__(
        self,
        budget: float = 1.0,
        *,
        iterations: int | None = None,
        seed: int | None = None,
        solver_nodes: int = 150_000,
    ) -> None:
        self.budget = budget
        self.iterations = iterations
        self.rng = random.Random(seed)
        self.solver_nodes = solver_nodes
        self.last: Decision | None = None
        self._solver: Solver | None = None

    def choose(self, view: View) -> Move:
        start = time.perf_counter()
        moves = list(view.moves)
        if not moves:
            raise ValueError("a seat without a legal move has nothing to decide")
        if len(moves) == 1:
            return self._decided(moves[0], "forced", 0, start)
        worlds = Worlds(view, random.Random(self.rng.getrandbits(64)))
        if worlds.knowledge.determined:
            world = worlds.sample()
            if sides(world) == 2:
                seat = worlds.knowledge.seat
                if self._solver is None or self._solver.seat != seat:
                    self._solver = Solver(seat, self.solver_nodes)
                # Half the budget at most, so a position too big to solve still gets a full search.
                deadline = None if self.iterations is not None else start + self.budget / 2
                try:
                    values = self._solver.values(world, moves, deadline)
                except OutOfBudget:
                    pass
                else:
                    best = max(values.values())
                    # Among equally good moves, the one search likes best keeps the play natural.
                    good = [m for m in moves if values[m] == best]
                    if len(good) == 1:
                        return self._decided(good[0], "solved", 0, start)
                    moves = good
        move, iterations = self._search(worlds, moves, start)
        return self._decided(move, "search", iterations, start)

    def _decided(self, move: Move, how: str, iterations: int, start: float) -> Move:
        self.last = Decision(move, how, iterations, time.perf_counter() - start)
        return move

    def _search(self, worlds: Worlds, moves: list[Move], start: float) -> tuple[Move, int]:
        me = worlds.knowledge.seat
        root = _Node(-1)
        rand = worlds.rng.random
        deadline = start + self.budget  # the solver, if it tried, spent at most half of it
        done = 0
        while True:
            if self.iterations is not None:
                if done >= self.iterations:
                    break
            elif done & 7 == 0 and time.perf_counter() >= deadline and done:
                break
            done += 1
            world = worlds.sample()
            node, path = root, [root]
            seat, legal = me, moves
            while world.result is None:
                if node is not root:
                    seat, legal = world.turn(rand)
                move, node, fresh = _select(node, seat, legal, rand)
                world.push(seat, move)
                path.append(node)
                if fresh:
                    break
            result = world.result if world.result is not None else playout(world, rand)
            r = rewards(result, world.players)
            for n in path[1:]:
                n.visits += 1
                n.total += r[n.seat]
        best_move = max(moves, key=lambda m: _visits(root, me, m))
        return best_move, done


def _select(node: _Node, seat: int, legal: list[Move], rand: Callable[[], float]) -> tuple[Move, _Node, bool]:
    """The edge to follow from ``node`` among the ``legal`` moves of this world: an untried one at random
    (added to the tree; True), else the best by UCB over the times each was available."""
    children = node.children
    untried = []
    chosen: _Node | None = None
    choice, best = legal[0], -1.0
    for m in legal:
        child = children.get(seat | m << SEAT_BITS)
        if child is None:
            untried.append(m)
            continue
        child.avail += 1
        if not untried:
            score = child.total / child.visits + EXPLORATION * math.sqrt(math.log(child.avail) / child.visits)
            if score > best:
                best, chosen, choice = score, child, m
    if untried:
        choice = untried[int(rand() * len(untried))]
        chosen = children[seat | choice << SEAT_BITS] = _Node(seat)
        return choice, chosen, True
    assert chosen is not None
    return choice, chosen, False


def _visits(root: _Node, seat: int, move: Move) -> int:
    child = root.children.get(seat | move << SEAT_BITS)
    return child.visits if child is not None else -1
