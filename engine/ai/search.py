"""The search player: information-set Monte Carlo tree search over worlds consistent with its view, with
policy playouts, stopped by a time budget (or an iteration count, for reproducible tests); endgames whose
cards are all accounted for are solved exactly instead.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): every iteration deals a fresh world, walks one
tree (UCB with availability counts among the moves legal in that world), adds one edge, plays the game out
with the playout policy and credits the edges it walked with the result for the seat that chose each. With
``endgame_value`` (both levels), a heads-up playout stops where the talon runs out and the endgame's value
is judged instead (engine.ai.value): closer to the exact value than a playout from there, and quicker.

Heads-up, the other seat's decisions are in the tree too, as the classic design has them. Every world holds
this seat's real hand, so those edges learn to answer that hand as if they saw it; a search that left them
to the playout policy (open loop) feared that less, but it also never saw the replies a searching opponent
finds, and against one (bench/ismcts.py, the published method at equal CPU) it scored 54% where the tree
scores three quarters (docs/ai.md, "Against an outside search"). At a table of three or more the other seats
move by the policy (``opponents`` forces either way): with several opponents in it the tree would grow their
edges and hardly this seat's own. There, with ``races`` (both levels), the moves race over shared worlds
instead (engine.ai.race): two moves compared on the same deals, which decide a game of three or more far more
than any one move, and the rounds kept for the moves still in doubt.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from engine.ai.heuristic import HeuristicPlayer
from engine.ai.policy import EXPLORE, SEAT_BITS, Averages, play_on, policy_move, rewards
from engine.ai.race import CUT, Race, race
from engine.ai.reading import Reading
from engine.ai.solver import SOLVER_NODES, Endgame
from engine.ai.value import lead_chance
from engine.ai.worlds import Worlds
from engine.moves import TAKE, Move
from engine.views import View

EXPLORATION: Final = 0.7
TIE: Final = 1.0  # standard errors within which two moves' means count as a tie (see SearchPlayer._pick)
# Moves of the other seats in a row after which a walk down the tree gives way to a playout. Those seats move
# by the policy without its random moves in the tree, and at a table of three or more they can pass cards
# round for ever (each takes what the one before leads) while this seat never acts again: no waiting.
WAIT: Final = 200


class Node:
    __slots__ = ("avail", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who chose the edge into this node
        self.children: dict[int, Node] = {}  # by edge key, see SEAT_BITS
        self.visits = 0
        self.total = 0.0
        self.avail = 1


@dataclass(frozen=True, slots=True)
class Decision:
    """How the last move was found: for benchmarks and logs."""

    move: Move
    how: str  # "forced", "solved", "search" or "race"
    iterations: int  # a race: its rounds
    seconds: float


class SearchPlayer:
    """Decides in ``budget`` seconds of ``clock`` (CPU time of the thinking thread by default, so a busy
    host slows a bot down but does not weaken it), or after exactly ``iterations`` iterations if given
    (deterministic under ``seed`` then). An endgame may take the solver ``endgame`` seconds (default: half
    the budget) and ``solver_nodes`` positions; if it cannot be solved in them, half the budget is still
    left for the search. ``reads``: it reads the opponents' play (engine.ai.reading); ``tells``: their leads
    and covers too (engine.ai.reading.LED_LOWER). ``opponents``: the
    other seats' decisions in the tree (True), or moved by the policy (False); by default in the tree
    heads-up only (see the module's docstring). ``exploration``: UCB1's constant at this seat's decisions,
    ``opponent_exploration`` at the other seats' in the tree (by default the same): a larger one keeps their
    edges from fitting too closely the hand they cannot see; ``opponent_depth``: how many of the other seats'
    decisions a walk down the tree takes at most (by default all), the later ones moved by the policy, which
    sees the hand the tree's edges cannot; ``playout_random``: the share of random moves in its playouts (the
    levels set it); ``races``: at a table of three or more, race the moves over shared worlds
    (engine.ai.race) rather than search a tree, ``cut``: how far behind, in standard errors, a move leaves the
    race; ``averages``: if given, those moves are drawn not uniformly but by the decision's move averages at
    this temperature (engine.ai.policy.Averages); ``talon_worlds``: heads-up, with at most this many unseen
    cards left in the talon, the move best on average over every world, each solved exactly,
    if that takes at most half the budget (engine.ai.solver.Endgame.likely); ``endgame_value``: heads-up,
    a playout stops where the talon runs out and the endgame is judged by engine.ai.value instead of played
    out; benchmarks vary them all."""

    def __init__(
        self,
        budget: float = 1.0,
        *,
        iterations: int | None = None,
        seed: int | None = None,
        solver_nodes: int = SOLVER_NODES,
        endgame: float | None = None,
        clock: Callable[[], float] = time.thread_time,
        reads: bool = False,
        tells: bool = False,
        opponents: bool | None = None,
        exploration: float = EXPLORATION,
        playout_random: float = EXPLORE,
        opponent_exploration: float | None = None,
        opponent_depth: int | None = None,
        averages: float | None = None,
        talon_worlds: int = 0,
        endgame_value: bool = False,
        races: bool = False,
        cut: float = CUT,
    ) -> None:
        self.budget = budget
        self.exploration = exploration
        self.opponent_exploration = exploration if opponent_exploration is None else opponent_exploration
        self.playout_random = playout_random
        self.opponent_depth = opponent_depth
        self.averages = averages
        self.talon_worlds = talon_worlds
        self.endgame_value = endgame_value
        self.endgame = budget / 2 if endgame is None else endgame
        self.iterations = iterations
        self.rng = random.Random(seed)
        self.clock = clock
        self.last: Decision | None = None
        self._endgame = Endgame(solver_nodes, clock)
        self.prior = HeuristicPlayer()
        # Reading the opponents (engine.ai.reading) needs the same player for a whole game.
        self.reading = Reading(tells=tells) if reads else None
        self.opponents = opponents
        self.races = races
        self.cut = cut

    def remembered(self) -> int:
        """Endgame positions it keeps solved (each about 430 bytes): what keeping this player costs."""
        return self._endgame.remembered()

    def choose(self, view: View) -> Move:
        start = self.clock()
        moves = list(view.moves)
        if not moves:
            raise ValueError("a seat without a legal move has nothing to decide")
        if self.reading is not None:
            self.reading.observe(view)
        if len(moves) == 1:
            return self._decided(moves[0], "forced", 0, start)
        doubts = self.reading.weights(view) if self.reading is not None else None
        worlds = Worlds(view, random.Random(self.rng.getrandbits(64)), doubts)
        deadline = None if self.iterations is not None else start + self.endgame
        good = self._endgame.best(worlds, moves, deadline)
        if good is None and self.talon_worlds:
            deadline = None if self.iterations is not None else start + self.budget / 2
            good = self._endgame.likely(worlds, moves, deadline, self.talon_worlds)
        if good is not None:
            if len(good) == 1:
                return self._decided(good[0], "solved", 0, start)
            moves = good  # among equally good moves, the one search likes best keeps the play natural
        heads_up = view.players == 2
        tree = self.opponents if self.opponents is not None else heads_up
        if self.races and not heads_up and not tree:
            raced = race(worlds, moves, self._done(start), self.playout_random, self.cut)
            return self._decided(self._pick_raced(raced, view, moves), "race", raced.rounds, start)
        root, iterations = self._search(worlds, moves, start, tree)
        return self._decided(self._pick(root, view, moves), "search", iterations, start)

    def _decided(self, move: Move, how: str, iterations: int, start: float) -> Move:
        self.last = Decision(move, how, iterations, self.clock() - start)
        if self.reading is not None:
            self.reading.chose(move)
        return move

    def _pick(self, root: Node, view: View, moves: list[Move]) -> Move:
        """The most visited move, unless another is as good as far as the search can tell (its mean within
        ``TIE`` standard errors of the difference): then a careful player's move, and never a take. Near
        ties are mostly the playouts' noise, and noise used to pick up cards that could have been covered;
        a take is the one move that cannot be made good later (the initiative is gone)."""
        me = root.seat
        children = root.children

        def stats(m: Move) -> Node | None:
            node = children.get(me | m << SEAT_BITS)
            return node if node is not None and node.visits else None

        best = max(moves, key=lambda m: _visits(root, me, m))
        careful = self.prior.choose(view)
        alternative: Move | None = careful if careful != TAKE and careful != best else None
        if best == TAKE and alternative is None:
            covers = [m for m in moves if m != TAKE and stats(m) is not None]
            alternative = max(covers, key=lambda m: _visits(root, me, m)) if covers else None
        b = stats(best)
        c = stats(alternative) if alternative is not None else None
        if alternative is None or b is None or c is None:
            return best
        margin = TIE * math.sqrt(0.25 / b.visits + 0.25 / c.visits)
        return alternative if c.total / c.visits >= b.total / b.visits - margin else best

    def _deadline(self, start: float) -> float:
        """When a search or race stops: the budget, but half of it at least after an endgame solve that
        tried and gave up, which may have spent its whole share."""
        return max(start + self.budget, self.clock() + self.budget / 2)

    def _done(self, start: float) -> Callable[[int], bool]:
        if self.iterations is not None:
            limit = self.iterations
            return lambda playouts: playouts >= limit
        deadline, clock = self._deadline(start), self.clock
        return lambda playouts: playouts > 0 and clock() >= deadline

    def _pick_raced(self, raced: Race, view: View, moves: list[Move]) -> Move:
        """The race's leader, unless the careful player's move or, instead of a take, a cover is still in
        the race within ``TIE`` standard errors of it: as ``_pick`` does with the tree's statistics."""
        best = raced.leader()
        careful = self.prior.choose(view)
        alive = [i for i in raced.alive if i != best]
        alternative = next((i for i in alive if moves[i] == careful and careful != TAKE), None)
        if alternative is None and moves[best] == TAKE:
            covers = [i for i in alive if moves[i] != TAKE]
            alternative = max(covers, key=raced.mean) if covers else None
        if alternative is not None and raced.behind(best, alternative) <= TIE:
            return moves[alternative]
        return moves[best]

    def _search(self, worlds: Worlds, moves: list[Move], start: float, tree: bool) -> tuple[Node, int]:
        me = worlds.knowledge.seat
        root = Node(me)  # the root's own seat: whose decision it is
        rand = worlds.rng.random
        c, theirs, share = self.exploration, self.opponent_exploration, self.playout_random
        judge = self.endgame_value
        # How many of the other seats' decisions a walk takes into the tree (None: all); open loop, none.
        limit = self.opponent_depth if tree else 0
        deadline = self._deadline(start)
        averages = Averages(self.averages) if self.averages is not None else None
        done = 0
        while True:
            if self.iterations is not None:
                if done >= self.iterations:
                    break
            elif done & 7 == 0 and self.clock() >= deadline and done:
                break
            done += 1
            world = worlds.sample()
            node, path = root, [root]
            seat, legal = me, moves
            waited = theirs_taken = 0
            while world.result is None:
                if len(path) > 1:
                    seat, legal = world.turn(rand)
                    if seat != me:
                        theirs_taken += 1
                        if limit is not None and theirs_taken > limit:
                            if waited == WAIT or world.out[me] >= 0:
                                break  # this seat will not act again soon, or ever: a playout finds the result
                            waited += 1
                            move = policy_move(world, seat, legal)
                            if averages is not None:
                                averages.note(seat, move)
                            world.push(seat, move)
                            continue
                waited = 0
                move, node, fresh = select(node, seat, legal, rand, c if seat == me else theirs)
                if averages is not None:
                    averages.note(seat, move)
                world.push(seat, move)
                path.append(node)
                if fresh:
                    break
            result = (
                world.result if world.result is not None else play_on(world, rand, share, averages, judge)
            )
            if result is None:  # a heads-up endgame, judged rather than played
                chance = lead_chance(world)
                r = [0.0, 0.0]
                r[world.lead], r[world.defender] = chance, 1.0 - chance
            else:
                r = rewards(result, world.players)
            if averages is not None:
                averages.credit(r)
            for n in path[1:]:
                n.visits += 1
                n.total += r[n.seat]
        return root, done


def select(
    node: Node, seat: int, legal: list[Move], rand: Callable[[], float], exploration: float = EXPLORATION
) -> tuple[Move, Node, bool]:
    """The edge to follow from ``node`` among the ``legal`` moves of this world: an untried one at random
    (added to the tree; True), else the best by UCB1 over the times each was available (Cowling, Powley &
    Whitehouse's availability counts)."""
    children = node.children
    untried = []
    chosen: Node | None = None
    choice, best = legal[0], -1.0
    for m in legal:
        child = children.get(seat | m << SEAT_BITS)
        if child is None:
            untried.append(m)
            continue
        child.avail += 1
        if not untried:
            score = child.total / child.visits + exploration * math.sqrt(math.log(child.avail) / child.visits)
            if score > best:
                best, chosen, choice = score, child, m
    if untried:
        choice = untried[int(rand() * len(untried))]
        chosen = children[seat | choice << SEAT_BITS] = Node(seat)
        return choice, chosen, True
    assert chosen is not None
    return choice, chosen, False


def _visits(root: Node, seat: int, move: Move) -> int:
    child = root.children.get(seat | move << SEAT_BITS)
    return child.visits if child is not None else -1
