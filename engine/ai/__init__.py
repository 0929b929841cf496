"""Computer players. Each decides from a ``View`` of its own seat: it never sees the game itself."""

from engine.ai.base import Player
from engine.ai.greedy import GreedyPlayer
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.levels import decide, player_for
from engine.ai.random_player import RandomPlayer
from engine.ai.search import SearchPlayer

__all__ = [
    "GreedyPlayer",
    "HeuristicPlayer",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "decide",
    "player_for",
]
