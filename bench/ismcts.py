"""The outside anchor: single-observer information-set MCTS as Cowling, Powley & Whitehouse published it
(2012), built as a strong opponent from the literature would be, to measure the bot's levels against.

One tree for all determinizations, with every seat's decisions in it (nodes are the root player's
information sets; an edge is a (seat, move) pair); each iteration deals a fresh world consistent with the
root seat's view, walks the tree by UCB1 over the edges legal in that world (a child's exploration term
counts the iterations in which it was available, not its parent's visits), adds one edge, plays the rest
of the game with uniformly random legal moves and credits every edge on the path with the result for the
seat that chose it. Every legal move is its own edge, multi-card leads included; the most visited move at
the root is played. No endgame solver, no playout policy, no move ordering: the classic design, so that the
bot is measured against the published method rather than against a variant of itself. (The tree's node and
its UCB1 step are the bot's own, engine.ai.search: the same published step; everything around it differs.)

It is an anchor for bench/ladder.py and bench/tournament.py (``ismcts``), never a level of the bot. It is
compiled with the engine (setup.py), so that at equal CPU it searches at native speed too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

from engine.ai.policy import SEAT_BITS, playout, rewards
from engine.ai.search import Node, select
from engine.ai.worlds import Worlds
from engine.moves import Move
from engine.views import View

EXPLORATION: Final = 0.4  # its best of 0.25, 0.4, 0.7 and 1.0 against normal: see docs/ai.md


class IsmctsPlayer:
    """Decides in ``budget`` CPU seconds of its thread (or exactly ``iterations`` iterations)."""

    def __init__(
        self,
        budget: float = 0.5,
        *,
        exploration: float = EXPLORATION,
        iterations: int = 0,
        seed: int | None = None,
        clock: Callable[[], float] = time.thread_time,
        policy: bool = False,
    ) -> None:
        self.budget = budget
        self.exploration = exploration
        # An experiment, not the anchor: the bot's playout policy instead of uniformly random rollouts.
        self.policy = policy
        self.iterations = iterations
        self.rng = random.Random(seed)
        self.clock = clock
        self.done = 0  # iterations of the last decision

    def choose(self, view: View) -> Move:
        moves = list(view.moves)
        if len(moves) == 1:
            self.done = 0
            return moves[0]
        start = self.clock()
        deadline = start + self.budget
        worlds = Worlds(view, random.Random(self.rng.getrandbits(64)))
        me = worlds.knowledge.seat
        rand = worlds.rng.random
        root = Node(me)
        c = self.exploration
        done = 0
        while True:
            if self.iterations:
                if done >= self.iterations:
                    break
            elif done & 7 == 0 and done and self.clock() >= deadline:
                break
            done += 1
            world = worlds.sample()
            node = root
            path = [root]
            seat, legal = me, moves
            expanded = False
            while world.result is None and not expanded:
                if len(path) > 1:
                    seat, legal = world.turn(rand)
                move, node, expanded = select(node, seat, legal, rand, c)
                world.push(seat, move)
                path.append(node)
            if self.policy:
                playout(world, rand)
            while world.result is None:  # the playout: uniformly random legal moves
                seat, legal = world.turn(rand)
                world.push(seat, legal[int(rand() * len(legal))])
            result = world.result
            assert result is not None
            reward = rewards(result, world.players)
            for n in path[1:]:
                n.visits += 1
                n.total += reward[n.seat]
        self.done = done
        best, most = moves[0], -1
        for m in moves:
            child = root.children.get(me | m << SEAT_BITS)
            if child is not None and child.visits > most:
                best, most = m, child.visits
        return best
