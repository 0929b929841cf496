"""Playing strength for added bots, chosen per table; a bot that takes over a seat plays ``normal``.

easy: the instant heuristic player (no look-ahead) with one decision in twenty at random. normal: the search
player with 0.5 s of CPU time a move, solving an endgame exactly once every card is accounted for if that
takes at most 150,000 positions (about 0.75 s). hard: 1.5 s a move, up to 400,000 positions for an endgame
(most endgames normal gives up on), and it reads the opponents' play: their takes, passes, trumps, leads
and covers (engine.ai.reading). Both play a quarter of their playouts' moves at random and, heads-up, judge
an endgame by engine.ai.value where their playouts reach it; at a table of three or more both race their
moves over shared worlds (engine.ai.race) instead of searching a tree. bench/ladder.py measures how far
apart the levels are, bench/panel.py how they fare against opponents they were not tuned on.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Hashable

from engine.ai.base import Player
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.race import CUT
from engine.ai.search import EXPLORATION, SearchPlayer
from engine.ai.solver import SOLVER_NODES
from engine.moves import Move
from engine.options import BotLevel
from engine.views import View

BUDGET = {BotLevel.NORMAL: 0.5, BotLevel.HARD: 1.5}
# The share of random moves in the search's playouts, larger than the policy's own one in twelve: the tree
# does the looking ahead, and past a point the careful policy's bias costs more than its guidance gives.
# Against the outside anchor (docs/ai.md) 0.25 scored 4.5 points more than 0.08 over 200 games at normal's
# time and 6.0 more over 200 at hard's, both paired by deal (neither significant alone; the same sign in both).
PLAYOUT_RANDOM = {BotLevel.NORMAL: 0.25, BotLevel.HARD: 0.25}
# At a table of three or more both levels race their moves over shared worlds (engine.ai.race) instead of
# searching a tree: at normal's time against PIMC at its own (three seats, 31 deals, paired by deal) the tree
# was the durak in 35.5% of 93 games, the race in 14.0% (−21.5 points, −32.3 … −10.8; docs/ai.md).
RACES = True
# Heads-up, both levels' playouts stop where the talon runs out and engine.ai.value judges the endgame:
# against the outside anchor (docs/ai.md) that scored 8.0, 9.1 and 6.0 points more than playing it out at
# 0.1, 0.5 and 1.5 s a decision; pooled over those 97 deals, +7.7 (+0.5 … +14.9, paired by deal).
ENDGAME_VALUE = True
HARD_ENDGAME = 4.0  # CPU seconds
# normal's: an endgame it can see whole is worth waiting for, so its solver's positions (SOLVER_NODES,
# 150,000: about 0.75 s here, three times that on the pure-Python engine) bind, not a clock; the seconds,
# hard's, only cap a slow host. With a quarter of a second, a 2x2 endgame of 16 cards (bench/partners.py;
# 148,156 positions) ran out, and the search's move lost its side a game that the solver's move won
# (tests/engine/test_search.py).
NORMAL_ENDGAME = 4.0
HARD_ENDGAME_NODES = 400_000  # the solver's table may reach twice this: about 340 MB at worst
# Without slips, easy bots left alone in an endgame can repeat one cycle of bouts for ever (about one game
# in 3,000 between heuristic players); a random decision now and then breaks any cycle.
EASY_SLIPS = 0.05


def player_for(
    level: BotLevel,
    *,
    seed: int | None = None,
    budget_scale: float = 1.0,
    reads: bool | None = None,
    tells: bool | None = None,
    opponents: bool | None = None,
    exploration: float = EXPLORATION,
    playout_random: float | None = None,
    opponent_exploration: float | None = None,
    opponent_depth: int | None = None,
    averages: float | None = None,
    talon_worlds: int = 0,
    endgame_value: bool | None = None,
    endgame: float | None = None,
    races: bool | None = None,
    cut: float | None = None,
) -> Player:
    """A player of ``level``; ``budget_scale`` shrinks or stretches the thinking time (tests, slow hosts).
    The rest vary a search level for benchmarks (bench/players.py): ``reads``, ``playout_random``,
    ``races``, ``cut`` and ``endgame_value`` (None: as the level does), ``tells`` (None: whenever it reads),
    ``opponents``, ``exploration``, ``opponent_exploration``, ``opponent_depth``, ``averages`` and
    ``talon_worlds`` as ``SearchPlayer`` takes them, ``endgame`` the seconds an endgame may take (None: the
    level's, scaled)."""
    if level is BotLevel.EASY:
        return HeuristicPlayer(EASY_SLIPS, random.Random(seed))
    budget = BUDGET[level] * budget_scale
    hard = level is BotLevel.HARD
    reads = hard if reads is None else reads
    return SearchPlayer(
        budget,
        seed=seed,
        solver_nodes=HARD_ENDGAME_NODES if hard else SOLVER_NODES,
        endgame=(HARD_ENDGAME if hard else NORMAL_ENDGAME) * budget_scale if endgame is None else endgame,
        reads=reads,
        # A reader reads leads and covers too: against the outside anchor at hard's time that scored 4.0
        # points more over 200 games, paired by deal (-3.0 ... +11.0; docs/ai.md).
        tells=reads if tells is None else tells,
        opponents=opponents,
        exploration=exploration,
        playout_random=PLAYOUT_RANDOM[level] if playout_random is None else playout_random,
        opponent_exploration=opponent_exploration,
        opponent_depth=opponent_depth,
        averages=averages,
        talon_worlds=talon_worlds,
        endgame_value=ENDGAME_VALUE if endgame_value is None else endgame_value,
        races=RACES if races is None else races,
        cut=CUT if cut is None else cut,
    )


def ready() -> bool:
    """Nothing to do: a worker process that runs this has imported the players, which is the point."""
    return True


KEPT = 64  # players a process keeps at most (a few per live table with bots)
# Solved endgame positions all kept players may hold together, about 170 MB: one long endgame alone can
# remember 300,000 positions, so the least recently used players go first when they add up past this.
KEPT_POSITIONS = 400_000
_kept: OrderedDict[Hashable, Player] = OrderedDict()


def decide(seen: View, level: BotLevel, budget_scale: float = 1.0, who: Hashable = None) -> Move:
    """One decision for the bot: what a worker process runs. ``who`` names the seat of one game (e.g. table,
    game and seat): the same player then decides for it move after move, keeping what it learnt (the
    endgame solver's table above all); without it, a fresh player decides."""
    if who is None:
        return player_for(level, budget_scale=budget_scale).choose(seen)
    key = (who, level, budget_scale)
    player = _kept.pop(key, None) or player_for(level, budget_scale=budget_scale)
    _kept[key] = player  # most recently used last
    move = player.choose(seen)
    while len(_kept) > 1 and (len(_kept) > KEPT or _remembered() > KEPT_POSITIONS):
        _kept.popitem(last=False)
    return move


def _remembered() -> int:
    return sum(p.remembered() for p in _kept.values() if isinstance(p, SearchPlayer))
