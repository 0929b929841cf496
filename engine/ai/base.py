from __future__ import annotations

from typing import Protocol

from engine.moves import Move
from engine.views import View


class Player(Protocol):
    def choose(self, view: View) -> Move:
        """One of ``view.moves`` (never called with none)."""
        ...
