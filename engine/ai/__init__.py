"""Computer players. Each decides from a ``View`` of its own seat: it never sees the game itself."""

from engine.ai.base import Player
from engine.ai.heuristic import HeuristicPlayer
from engine.ai.random_player import RandomPlayer

__all__ = ["HeuristicPlayer", "Player", "RandomPlayer"]
