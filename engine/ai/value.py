"""What a heads-up endgame is worth before anyone plays it: the chance that the seat about to lead escapes,
from the moment the talon is empty.

Every card's place is known then, so the endgame has an exact value, but finding it takes the solver
milliseconds (thousands of positions for a dozen cards) where a search iteration has microseconds. A
playout from there is quick but a poor judge: on 2,407 such positions from playouts like the search's, held
out of the fit, one policy playout scored a Brier error of 0.209 against the exact value and one uniformly
random playout 0.279, where this logistic model over a few integer features of the two hands scores 0.061
(it picks the exact favourite 89.8% of the time). ``bench/endgame_value.py`` solves positions exactly, fits
``MODEL`` and prints those figures; the one model holds for the transfer game and 24 or 52 cards too.

Features are from the leader's side (A) against the defender's (D); a card's cost is its rank, and every
trump above every plain card (engine.ai.policy.cost).
"""

from __future__ import annotations

import math
from typing import Final

from engine.ai.policy import cost
from engine.cards import BEATERS, SUIT_MASK, lowest
from engine.game import Game

# One weight per feature, for the features as they are (their scaling folded in), fitted by
# bench/endgame_value.py (the command is there), which prints this table.
MODEL: Final = (
    ("bias", -0.4788),
    ("cards A - D", -0.4772),
    ("cards A", -0.6138),
    ("cards D", 0.2430),
    ("trumps A - D", 0.9117),
    ("A's cards D cannot cover", 0.2959),
    ("D's cards A cannot cover", -0.2650),
    ("highest trump: A +1, D -1", -0.3997),
    ("mean cost A - D", 0.3141),
    ("ranks A - cards A", -0.9429),
    ("ranks D - cards D", 0.5610),
    ("lowest cost A", 0.0066),
    ("highest cost D", 0.0820),
    ("share of A's cards D cannot cover", 3.9413),
    ("share of D's cards A cannot cover", 0.4701),
    ("A's plain cards D holds no higher card of their suit for", 0.5146),
    ("D's plain cards A holds no higher card of their suit for", -0.3013),
    ("A holds one card", 6.0106),
    ("D holds one card", -1.9945),
    ("trump cost A - D", 0.0094),
)
FEATURES: Final = tuple(name for name, _ in MODEL)
WEIGHTS: Final = tuple(weight for _, weight in MODEL)


def features(game: Game) -> list[float]:
    """The features of a heads-up position at the start of a bout (nothing on the table), in the order of
    ``FEATURES``."""
    trump = game.trump
    trumps = SUIT_MASK[trump]
    beaters = BEATERS[trump]
    a_hand, d_hand = game.hands[game.lead], game.hands[game.defender]
    a = _side(a_hand, d_hand, trump, trumps, beaters)
    d = _side(d_hand, a_hand, trump, trumps, beaters)
    na, nd = float(a_hand.bit_count()), float(d_hand.bit_count())
    high = (a_hand | d_hand) & trumps
    top = 0.0 if not high else 1.0 if a_hand >> (high.bit_length() - 1) & 1 else -1.0
    return [
        1.0,
        na - nd,
        na,
        nd,
        a.trumps - d.trumps,
        a.uncovered,
        d.uncovered,
        top,
        a.cost / na - d.cost / nd,
        a.ranks - na,
        d.ranks - nd,
        a.lowest,
        d.highest,
        a.uncovered / na,
        d.uncovered / nd,
        a.unmatched,
        d.unmatched,
        1.0 if na == 1.0 else 0.0,
        1.0 if nd == 1.0 else 0.0,
        a.trump_cost - d.trump_cost,
    ]


def lead_chance(game: Game) -> float:
    """The chance that the seat to lead escapes, heads-up, with the talon empty and nothing on the table."""
    z = 0.0
    for w, x in zip(WEIGHTS, features(game), strict=True):
        z += w * x
    return 1.0 / (1.0 + math.exp(-z))


class _Side:
    __slots__ = ("cost", "highest", "lowest", "ranks", "trump_cost", "trumps", "uncovered", "unmatched")

    def __init__(self) -> None:
        self.trumps = self.uncovered = self.unmatched = self.ranks = 0.0
        self.cost = self.trump_cost = self.highest = 0.0
        self.lowest = 99.0


def _side(hand: int, other: int, trump: int, trumps: int, beaters: tuple[int, ...]) -> _Side:
    """One hand's figures against the other hand."""
    side = _Side()
    ranks = 0
    rest = hand
    while rest:
        card = lowest(rest)
        rest &= rest - 1
        worth = float(cost(card, trump))
        ranks |= 1 << (card >> 2)
        if card & 3 == trump:
            side.trumps += 1.0
            side.trump_cost += worth
        elif not other & beaters[card] & ~trumps:
            side.unmatched += 1.0
        if not other & beaters[card]:
            side.uncovered += 1.0
        side.cost += worth
        side.lowest = min(side.lowest, worth)
        side.highest = max(side.highest, worth)
    side.ranks = float(ranks.bit_count())
    return side
