"""A sensible instant player: sheds cheap cards, keeps trumps, covers cheaply, takes when covering costs
too much. Used for timeouts and bot takeovers until the search player arrives."""

from __future__ import annotations

import random

from engine.ai.policy import TRUMP_PREMIUM, cost
from engine.ai.random_player import RandomPlayer
from engine.cards import SUIT_MASK, mask_of, rank, suit
from engine.moves import PASS, TAKE, Kind, Move, cards, kind
from engine.views import View


class HeuristicPlayer:
    """``slips``: the share of decisions made at random instead (the easy level's: a casual player's slips,
    which also keep such players from taking the same cards back and forth for ever in an endgame)."""

    def __init__(self, slips: float = 0.0, rng: random.Random | None = None) -> None:
        self.slips = slips
        self._slip = RandomPlayer(rng)

    def choose(self, view: View) -> Move:
        moves = view.moves
        if len(moves) == 1:
            return moves[0]
        if self.slips and self._slip.rng.random() < self.slips:
            return self._slip.choose(view)
        return self._rules(view)

    def _rules(self, view: View) -> Move:
        kinds = {kind(m) for m in view.moves}
        if Kind.LEAD in kinds:
            return self._lead(view)
        if Kind.TAKE in kinds:
            return self._defend(view)
        return self._throw_in(view)

    def _lead(self, view: View) -> Move:
        trump = view.trump

        def key(move: Move) -> tuple[int, int]:
            led = cards(move)
            # Cheapest rank first; of that rank, shed as many plain cards as allowed but keep trumps.
            plain = all(suit(c) != trump for c in led)
            return (
                cost(led[0], trump) if plain else min(cost(c, trump) for c in led),
                -len(led) if plain else len(led),
            )

        return min(view.moves, key=key)

    def _defend(self, view: View) -> Move:
        trump = view.trump
        moves = view.moves
        shows = [m for m in moves if kind(m) == Kind.SHOW_TRUMP]
        if shows:
            return shows[0]  # passes the attack on and keeps the card
        transfers = [m for m in moves if kind(m) == Kind.TRANSFER and suit(cards(m)[0]) != trump]
        if transfers:
            return min(transfers, key=lambda m: cost(cards(m)[0], trump))
        plan = self._cover_plan(view)
        if plan is None or self._rather_take(view, [c for _, c in plan]):
            return TAKE
        attack, card = plan[0]
        return next(m for m in moves if kind(m) == Kind.COVER and cards(m) == (attack, card))

    def _rather_take(self, view: View, spent: list[int]) -> bool:
        """Take although the cards ``spent`` would cover every card."""
        trump = view.trump
        trumps = sum(1 for c in spent if suit(c) == trump)
        # Early in the game trumps are worth more than the cards they would keep out of our hand.
        return view.talon > 6 and (trumps >= 2 or any(cost(c, trump) >= TRUMP_PREMIUM + 9 for c in spent))

    def _cover_plan(self, view: View) -> list[tuple[int, int]] | None:
        """Cover every unbeaten card, hardest first, each with the cheapest card that beats it."""
        trump = view.trump
        options: dict[int, list[int]] = {}
        for m in view.moves:
            if kind(m) == Kind.COVER:
                a, c = cards(m)
                options.setdefault(a, []).append(c)
        unbeaten = [a for a, c in view.table if c is None]
        used = 0
        plan = []
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
        hand_trumps = mask_of(view.hand) & SUIT_MASK[trump]

        def worth(card: int) -> bool:
            if suit(card) == trump:
                return view.talon == 0 and hand_trumps.bit_count() > 1
            return view.talon == 0 or rank(card) <= 9  # up to jacks while the talon lasts

        good = [m for m in throws if worth(cards(m)[0])]
        if good:
            return min(good, key=lambda m: cost(cards(m)[0], trump))
        return PASS if PASS in view.moves else min(throws, key=lambda m: cost(cards(m)[0], trump))
