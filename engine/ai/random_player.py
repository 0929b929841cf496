from __future__ import annotations

import random

from engine.moves import Move
from engine.views import View


class RandomPlayer:
    """Uniformly random legal moves: a baseline and a fuzzer."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, view: View) -> Move:
        return self.rng.choice(view.moves)
