"""Card tracking and determinization: which unseen cards can be where, and whole games consistent with
everything one seat knows.

A seat knows its own hand, the discard (everybody saw those cards beaten), the table, the cards each player
is publicly known to hold (picked up when taking, shown to transfer, the face-up trump once drawn or held),
every hand's size and the talon's size, whose bottom card is the face-up trump. Every other card is
*unseen*: it is in some opponent's unknown part of the hand or in the talon above the trump card, and
nothing public tells which. A world deals the unseen cards at random into exactly those places.

This module reads only a ``View``; it builds games for search, and never looks at the real one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import permutations

from engine.cards import DECK_MASK, cards_of, mask_of
from engine.compiled_rules import rules_for
from engine.game import Game
from engine.views import View


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows about where the cards are."""

    seat: int
    unseen: int  # card mask: cards whose place this seat does not know
    known: tuple[int, ...]  # per seat, a card mask: cards it is known to hold (its whole hand for ``seat``)
    slots: tuple[int, ...]  # per seat: how many of its cards are unseen ones (0 for ``seat``)
    talon_slots: int  # talon cards above the face-up trump: unseen ones

    @classmethod
    def of(cls, view: View) -> Knowledge:
        if view.seat is None:
            raise ValueError("knowledge belongs to a seat; the public view has none")
        seat = view.seat
        known = [mask_of(info.known) for info in view.seats]
        known[seat] = mask_of(view.hand)
        slots = [0 if s == seat else info.cards - known[s].bit_count() for s, info in enumerate(view.seats)]
        table = mask_of(c for pair in view.table for c in pair if c is not None)
        placed = mask_of(view.seen) | table
        for mask in known:
            placed |= mask
        talon_slots = view.talon
        if view.talon and view.trump_card is not None:
            placed |= 1 << view.trump_card  # the face-up card at the talon's bottom, drawn last
            talon_slots -= 1
        unseen = DECK_MASK[view.options.deck] & ~placed
        if unseen.bit_count() != sum(slots) + talon_slots or min(slots) < 0:
            raise ValueError("the view is inconsistent: unseen cards do not fill the hidden places")
        return cls(seat, unseen, tuple(known), tuple(slots), talon_slots)

    @property
    def determined(self) -> bool:
        """Every card's place is known: the unseen cards (if any) can be in one place only."""
        places = sum(1 for s in self.slots if s) + (1 if self.talon_slots else 0)
        return places <= 1 and not self.talon_slots

    def possible(self, seat: int) -> int:
        """Every card ``seat`` may hold: what it is known to hold and, if it has unseen cards, the unseen."""
        return self.known[seat] | (self.unseen if self.slots[seat] else 0)


class Worlds:
    """Games consistent with a seat's view, dealt from its ``Knowledge`` with a seeded RNG. ``doubts``
    (engine.ai.reading) makes some deals likelier than others: per seat, unseen cards it probably does not
    hold, with a weight below 1 (at each of that hand's draws, a card of weight w is w times as likely to be
    drawn as one without)."""

    def __init__(
        self, view: View, rng: random.Random, doubts: dict[int, dict[int, float]] | None = None
    ) -> None:
        self.view = view
        self.knowledge = Knowledge.of(view)
        self.rng = rng
        self._unseen = list(cards_of(self.knowledge.unseen))
        self._template = _template(view)
        slots = self.knowledge.slots
        self._doubts = {s: d for s, d in (doubts or {}).items() if slots[s] and d}

    def sample(self) -> Game:
        """A world to play on: ``deal``, and the throwers it gives nothing to add pass at once, as they
        would at the table (so the bout may be over in this world)."""
        g = self.deal()
        g.settle()
        return g

    def deal(self) -> Game:
        """One world exactly as the view shows it: the unseen cards shuffled into the hidden places."""
        cards = self._unseen
        self.rng.shuffle(cards)
        if self._doubts:
            cards = self._weighed(cards)
        return self.dealt(cards)

    def every(self, most: int) -> list[tuple[Game, float]] | None:
        """Heads-up, with at most ``most`` unseen cards in the talon: every world, settled as ``sample``
        leaves it, with its weight (they sum to 1): the opponent holds the unseen cards the talon does not,
        so a world is which of them lie in the talon and in what order. With doubts (``Worlds``), a world
        weighs what dealing the opponent its hand weighs, the product of its cards' weights (drawing without
        replacement makes that approximate). None where there are more places or more cards than that."""
        k = self.knowledge
        if len(k.slots) != 2 or not 0 < k.talon_slots <= most:
            return None
        doubted = self._doubts.get(1 - k.seat, {})
        found: list[tuple[Game, float]] = []
        for talon in permutations(self._unseen, k.talon_slots):
            hand = [c for c in self._unseen if c not in talon]
            weight = 1.0
            for c in talon:
                weight /= doubted.get(c, 1.0)  # the hand's product, up to the factor all worlds share
            g = self.dealt(hand + list(talon))
            g.settle()
            found.append((g, weight))
        total = sum(w for _, w in found)
        return [(g, w / total) for g, w in found]

    def dealt(self, cards: list[int]) -> Game:
        """The world that deals ``cards``, an order of the unseen cards, into the hidden places: each seat's
        unseen slots in seat order, then the talon, the last card drawn first."""
        k = self.knowledge
        g = self._template.copy()
        hands = list(k.known)
        at = 0
        for s, count in enumerate(k.slots):
            for c in cards[at : at + count]:
                hands[s] |= 1 << c
            at += count
        g.hands = hands
        talon = cards[at:]
        if self.view.talon:
            talon.insert(0, g.trump_card)
        g.talon = talon
        return g

    def _weighed(self, shuffled: list[int]) -> list[int]:
        """The shuffled unseen cards reordered so that each doubted seat's slots are a weighted sample
        without replacement (Efraimidis–Spirakis: the largest keys u^(1/w)); the rest stay in shuffled
        order, which is still uniform."""
        rand = self.rng.random
        rest = shuffled
        out: list[int] = []
        for s, count in enumerate(self.knowledge.slots):
            doubted = self._doubts.get(s)
            if doubted is None:
                out += rest[:count]
                rest = rest[count:]
                continue
            keys = sorted(((rand() ** (1 / doubted.get(c, 1.0)), c) for c in rest), reverse=True)
            chosen = {c for _, c in keys[:count]}
            out += chosen
            rest = [c for c in rest if c not in chosen]
        return out + rest


def _template(view: View) -> Game:
    """The public part of the game as a ``Game`` (hands and talon are filled in per world)."""
    options, n = view.options, view.players
    # Only the order in which seats went out matters from here on: dense ranks of their places, all below
    # the current bout, keep "went out in the last bout" (a draw) for seats that go out in this world.
    places = sorted({info.place for info in view.seats if info.place is not None})
    out = [-1 if info.place is None else places.index(info.place) for info in view.seats]
    return Game.assemble(
        rules_for(options, n),
        hands=[0] * n,
        talon=[],
        trump=view.trump,
        trump_card=view.trump_card if view.trump_card is not None else -1,
        trump_seat=-1,
        discard=mask_of(view.seen),
        attack=[a for a, _ in view.table],
        cover=[c if c is not None else -1 for _, c in view.table],
        lead=view.lead,
        defender=view.defender,
        taking=view.taking,
        passed=mask_of(view.passed),
        shown=mask_of(view.shown),
        bout=view.bout,
        out=out,
        finishers=sorted((s for s in range(n) if out[s] >= 0), key=lambda s: out[s]),
        emptied=[0] * n,
        known=[mask_of(info.known) for info in view.seats],
        misses=[0] * n,
        bot_seats=0,
        conceded=list(view.conceded),
        last_defender=view.defender,
        opening=(view.opening[0], -1 if view.opening[1] is None else view.opening[1]),
        version=view.version,
        result=None,
    )
