"""The computer players the benchmarks pit against each other, by name.

random, greedy (lowest card), heuristic (a careful rule-based player), easy, normal, hard (the bot's
levels), search (ISMCTS with ``budget`` seconds a move) and pimc (perfect-information Monte Carlo with a tenth
of ``normal``'s time, or ``budget`` / 10 if given). Every budget is CPU time of the deciding thread, so a busy
machine slows a benchmark down without changing its result.
"""

from __future__ import annotations

import random

from engine.ai import GreedyPlayer, HeuristicPlayer, Player, RandomPlayer, SearchPlayer
from engine.ai.levels import BUDGET, player_for
from engine.ai.pimc import PimcPlayer
from engine.options import BotLevel

NAMES = ("random", "greedy", "heuristic", "easy", "normal", "hard", "search", "reader", "pimc")


def make(name: str, seed: int, budget: float | None = None) -> Player:
    if name == "random":
        return RandomPlayer(random.Random(seed))
    if name == "greedy":
        return GreedyPlayer()
    if name == "heuristic":
        return HeuristicPlayer()
    if name == "search":
        return SearchPlayer(budget or 1.0, seed=seed)
    if name == "reader":
        return SearchPlayer(budget or 1.0, seed=seed, reads=True)
    if name == "pimc":
        return PimcPlayer((budget or BUDGET[BotLevel.NORMAL]) / 10, seed=seed)
    if name in NAMES:
        return player_for(BotLevel(name), seed=seed)
    raise ValueError(f"unknown player {name!r}; one of {', '.join(NAMES)}")
