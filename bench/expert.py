"""A panel opponent (bench/panel.py): a hand-written rule player that counts cards and plays an endgame it
can see exactly, as a strong human player does. Not search: rules, memory and the endgame solver. It stays
out of the bot, like the outside anchor (bench/ismcts.py).

What it knows is what its seat's view lets it know (engine.ai.worlds.Knowledge): the cards gone to the
discard pile, the cards each player is known to hold (picked up from the table), and so which cards another
player *may* hold. Its rules:

- Once every card's place is known (heads-up with the talon gone, mostly), the move the endgame solver rates
  best (engine.ai.solver; of equally good moves, the one the rules below prefer).
- Lead the cheapest plain rank, every plain card of it the bout takes (the careful player's lead,
  engine.ai.heuristic); cover each card with the cheapest card that beats it.
- While the talon lasts, take a bout of at most three cards rather than cover it with a queen or higher
  trump or with two trumps; once it is gone, cover whatever can be covered. Transfer with a plain card, or
  show a trump, when allowed.
- Throw in first what the defender cannot beat with any card they may hold (they must take it); while the
  talon lasts only plain cards up to the ten (onto a taker: up to the jack), never a trump; once it is gone,
  anything but the last trump.

Heads-up against the careful player it is the durak in 35.7% of 300 games where the careful player against
itself is in 41.3%; at three seats in 30.6% of 180 (fair: 33%).
"""

from __future__ import annotations

import random
import time

from engine.ai.heuristic import HeuristicPlayer
from engine.ai.policy import cost
from engine.ai.solver import SOLVER_NODES, Endgame
from engine.ai.worlds import Knowledge, Worlds
from engine.cards import BEATERS, SUIT_MASK, mask_of, rank, suit
from engine.moves import PASS, Kind, Move, cards, kind
from engine.views import View

_QUEEN = 10  # rank index: the two is 0, so the six is 4, the ten 8, the jack 9, the ace 12
_TEN = 8
_JACK = 9


class ExpertPlayer(HeuristicPlayer):
    """The careful rule player's lead and cover (engine.ai.heuristic), with its own takes and throw-ins, card
    counting, and the exact endgame."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.endgame = Endgame(SOLVER_NODES, time.thread_time)

    def choose(self, view: View) -> Move:
        moves = view.moves
        if len(moves) == 1:
            return moves[0]
        worlds = Worlds(view, self.rng)
        if worlds.knowledge.determined:  # every card's place known: play it exactly, as a counter would
            best = self.endgame.best(worlds, list(moves), time.thread_time() + 2.0)
            if best is not None:
                ruled = self._rules(view)  # of moves equally good, the one the rules prefer
                return ruled if ruled in best else best[0]
        return self._rules(view)

    def _rather_take(self, view: View, spent: list[int]) -> bool:
        """While the talon lasts, a small bout is taken rather than covered with a queen or higher trump or
        with two trumps; once it is gone, whatever can be covered is."""
        trumps = [c for c in spent if suit(c) == view.trump]
        small = len(view.table) <= 3
        return bool(view.talon) and small and (len(trumps) >= 2 or any(rank(c) >= _QUEEN for c in trumps))

    def _throw_in(self, view: View) -> Move:
        trump = view.trump
        throws = [m for m in view.moves if kind(m) == Kind.THROW_IN]
        if not throws:
            return PASS if PASS in view.moves else view.moves[0]
        my_trumps = (mask_of(view.hand) & SUIT_MASK[trump]).bit_count()

        def worth(card: int) -> bool:
            if view.talon == 0:
                return suit(card) != trump or my_trumps > 1
            if suit(card) == trump:
                return False
            return rank(card) <= (_JACK if view.taking else _TEN)

        good = [m for m in throws if worth(cards(m)[0])]
        if not view.taking:  # first what the defender holds no card to cover (engine.cards.BEATERS) with
            may_hold = Knowledge.of(view).possible(view.defender)
            beaters = BEATERS[trump]
            forcing = [m for m in good if not beaters[cards(m)[0]] & may_hold]
            if forcing:
                return min(forcing, key=lambda m: cost(cards(m)[0], trump))
        if good:
            return min(good, key=lambda m: cost(cards(m)[0], trump))
        return PASS if PASS in view.moves else min(throws, key=lambda m: cost(cards(m)[0], trump))
