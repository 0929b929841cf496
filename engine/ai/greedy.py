"""The benchmark's plain opponent: always play the lowest legal card (trumps count above every plain
card; a lead is that one card), take when some attack card cannot be covered, pass only with nothing to
add."""

from __future__ import annotations

from engine.ai.policy import cost
from engine.cards import BEATERS, mask_of
from engine.moves import TAKE, Kind, Move, cards, kind
from engine.views import View


class GreedyPlayer:
    def choose(self, view: View) -> Move:
        moves = view.moves
        hand, beaters = mask_of(view.hand), BEATERS[view.trump]
        if TAKE in moves and any(not hand & beaters[a] for a, c in view.table if c is None):
            return TAKE
        plays = [m for m in moves if kind(m) not in (Kind.TAKE, Kind.PASS)]
        if not plays:
            return moves[0]
        return min(plays, key=lambda m: (cost(_played(m), view.trump), len(cards(m))))

    def __repr__(self) -> str:
        return "greedy"


def _played(move: Move) -> int:
    """The card a move puts down (for a lead, its lowest; for a cover, the covering card)."""
    return cards(move)[-1] if kind(move) == Kind.COVER else cards(move)[0]
