"""Playing strength for added bots, chosen per table; a bot that takes over a seat plays ``normal``.

easy: the instant heuristic player (no look-ahead). normal and hard: the search player with a budget of
0.5 s and 1.5 s a move; both solve endgames exactly once every card is accounted for.
"""

from __future__ import annotations

from enum import StrEnum

from engine.ai.base import Player
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.search import SearchPlayer


class Level(StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


BUDGET = {Level.NORMAL: 0.5, Level.HARD: 1.5}


def player_for(level: Level, *, seed: int | None = None, budget_scale: float = 1.0) -> Player:
    """A player of ``level``; ``budget_scale`` shrinks or stretches the thinking time (tests, slow hosts)."""
    if level is Level.EASY:
        return HeuristicPlayer()
    return SearchPlayer(BUDGET[level] * budget_scale, seed=seed)
