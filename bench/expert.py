"""A panel opponent: a strong hand-written rule player that counts cards, of the kind that held its own
against search players in published card-game studies (rules written by a player, plus exact memory of
every card seen). It stays out of the bot, like the outside anchor (bench/ismcts.py).

What it knows is what its seat's view lets it know (engine.ai.worlds.Knowledge): the cards gone to the
discard pile, the cards each player is known to hold (picked up from the table), and so which cards another
player *may* hold. Its rules:

- Lead the cheapest plain rank while the talon lasts, every plain card of it the bout takes. Once the talon
  is gone, lead first what the defender cannot beat with any card they may hold (they must take), then
  the rank that sheds the most cards.
- Cover each card with the cheapest card that beats it; take instead, while the talon lasts, when covering
  would spend a queen or higher trump or two trumps on a bout of at most three cards. Once the talon is gone,
  always cover when every card can be covered. Transfer with a plain card, or show a trump, when allowed.
- Throw in what the defender cannot beat first; while the talon lasts only plain cards up to the ten (onto
  a taker: up to the jack), never a trump; once it is gone, anything but the last trump.
"""

from __future__ import annotations

import random
import time

from engine.ai.policy import cost
from engine.ai.solver import SOLVER_NODES, Endgame
from engine.ai.worlds import Knowledge, Worlds
from engine.cards import SUIT_MASK, cards_of, mask_of, rank, suit
from engine.moves import PASS, TAKE, Kind, Move, cards, kind
from engine.views import View

_QUEEN = 10  # rank index: 6 is 4, ..., queen 10, ace 12
_TEN = 8
_JACK = 9


def beats(card: int, attack: int, trump: int) -> bool:
    if suit(card) == suit(attack):
        return rank(card) > rank(attack)
    return suit(card) == trump


class ExpertPlayer:
    def __init__(self, seed: int | None = None) -> None:
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
                return self._pick(view, best)
        return self._rules(view)

    def _pick(self, view: View, best: list[Move]) -> Move:
        """Of moves equally good, the one the rules prefer (or the first)."""
        ruled = self._rules(view)
        return ruled if ruled in best else best[0]

    def _rules(self, view: View) -> Move:
        kinds = {kind(m) for m in view.moves}
        if Kind.LEAD in kinds:
            return self._lead(view)
        if Kind.TAKE in kinds:
            return self._defend(view)
        return self._throw_in(view)

    @staticmethod
    def _defender_may_hold(view: View) -> int:
        return Knowledge.of(view).possible(view.defender)

    def _unbeatable(self, view: View, card: int) -> bool:
        """The defender holds no card that may beat ``card``: they must take it."""
        return not any(beats(c, card, view.trump) for c in cards_of(self._defender_may_hold(view)))

    def _lead(self, view: View) -> Move:
        trump = view.trump
        leads = [m for m in view.moves if kind(m) == Kind.LEAD]

        def key(m: Move) -> tuple[int, int]:
            led = cards(m)
            plain = all(suit(c) != trump for c in led)  # the cheapest rank; all its plain cards
            return (
                cost(led[0], trump) if plain else min(cost(c, trump) for c in led),
                -len(led) if plain else len(led),
            )

        return min(leads, key=key)

    def _defend(self, view: View) -> Move:
        trump = view.trump
        moves = view.moves
        shows = [m for m in moves if kind(m) == Kind.SHOW_TRUMP]
        if shows:
            return shows[0]
        transfers = [m for m in moves if kind(m) == Kind.TRANSFER and suit(cards(m)[0]) != trump]
        if transfers:
            return min(transfers, key=lambda m: cost(cards(m)[0], trump))
        plan = self._cover_plan(view)
        if plan is None:
            return TAKE
        if view.talon:
            spent = [c for _, c in plan]
            trumps = [c for c in spent if suit(c) == trump]
            on_table = len(view.table)
            if on_table <= 3 and (len(trumps) >= 2 or any(rank(c) >= _QUEEN for c in trumps)):
                return TAKE
        attack, card = plan[0]
        return next(m for m in moves if kind(m) == Kind.COVER and cards(m) == (attack, card))

    @staticmethod
    def _cover_plan(view: View) -> list[tuple[int, int]] | None:
        """Every unbeaten card covered, the hardest first, each with the cheapest card that beats it."""
        trump = view.trump
        options: dict[int, list[int]] = {}
        for m in view.moves:
            if kind(m) == Kind.COVER:
                a, c = cards(m)
                options.setdefault(a, []).append(c)
        used = 0
        plan = []
        unbeaten = [a for a, c in view.table if c is None]
        for a in sorted(unbeaten, key=lambda c: cost(c, trump), reverse=True):
            free = [c for c in options.get(a, []) if not used >> c & 1]
            if not free:
                return None
            best = min(free, key=lambda c: cost(c, trump))
            used |= 1 << best
            plan.append((a, best))
        return plan

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
        if not view.taking:
            forcing = [m for m in good if self._unbeatable(view, cards(m)[0])]
            if forcing:
                return min(forcing, key=lambda m: cost(cards(m)[0], trump))
        if good:
            return min(good, key=lambda m: cost(cards(m)[0], trump))
        return PASS if PASS in view.moves else min(throws, key=lambda m: cost(cards(m)[0], trump))
