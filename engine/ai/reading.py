"""Reading the opponents: cards they probably do not hold, from what they did at the table.

A world sampler that deals the unseen cards uniformly treats an opponent who just took rather than cover
the 8♥ as likely as anybody to hold the 10♥, and a thrower who let the bout end with two sevens on the
table as likely as anybody to hold a third. Players do not play like that: a take mostly means no cheap
cover, a pass mostly means nothing of those ranks to throw in that is worth throwing. ``Reading`` keeps such
doubts per (seat, card) and gives them to ``Worlds`` as weights (below 1: less likely in that hand than a
uniform deal says), so the search plays in worlds that fit what the opponents showed.

What it reads, each at most once, from the views of its own decisions (a player kept for a whole game):
- a take: the defender did not cover the uncovered attack cards, so it likely has no higher card of their
  suit (a trump it may have kept on purpose: a milder doubt);
- a trump on a plain card: the defender likely has no higher card of that suit;
- a bout that ended after this seat's last cover with room to throw in: the throwers likely hold no card
  of the ranks on the table (a trump: no doubt, it may have been kept on purpose).
With ``tells`` (as *hard* reads; benchmarks compare it with the four above alone) it also reads
- a plain lead: the leader likely has no lower plain card, of its suit or another;
- a plain card covered by a higher one of its suit: the defender likely has none in between.
A doubt fades as the talon is drawn (the opponent may have drawn the card since), and cards that were seen
leave it. The weights are likelihood ratios measured from logged games (bench/reading.py prints them).
"""

from __future__ import annotations

from typing import Final

from engine.cards import BEATERS, RANK_MASK, SUIT_MASK, cards_of, rank, suit
from engine.compiled_rules import rules_for
from engine.moves import COVER_KIND, COVER_SHIFT, KIND_MASK, Move
from engine.views import View

# Likelihood ratios, P(holds the card | the action) / P(holds it), from bench/reading.py over 120 games of
# the search player (0.1 s) against itself: the opponent a ladder puts hard against. A careful rule player
# gives more away (0.21 after a take, never a trump on a suit it can follow), so against such players these
# are on the cautious side. Measured again with the search as it plays now (120 games, 0.1 s; the outside
# anchor at 1.5 s in brackets, 20 games): 0.61 (0.60), 1.46 (1.02), 0.25 (0.48), 0.55 (0.69). A search that
# takes with trumps in hand has kept them on purpose, so TOOK_TRUMP reads a little too much: left as the
# levels were measured with, until an A/B says otherwise (docs/ai.md).
TOOK_PLAIN: Final = 0.55  # a higher card of an uncovered plain card's suit, after a take
TOOK_TRUMP: Final = 0.8  # a trump that would have covered, after a take
TRUMPED: Final = 0.4  # a higher card of the suit a plain card was covered by a trump
PASSED: Final = (
    0.6  # a plain card of a rank on the table, after throwers let the bout end (a trump: no doubt)
)
# With ``tells``: a plain card of a lower rank than a plain lead, of its suit and of the others; a plain card
# between an attack card and the higher one of its suit that covered it. Measured as the others (120 games,
# 0.1 s); the careful rule player always leads and covers with its lowest (0.0 for all three), the outside
# anchor at 1.5 s hardly shows a thing in its leads (1.11, 0.98) and little in its covers (0.81; 20 games).
# Read all the same, they scored 4.0 points more against that anchor over 200 games (docs/ai.md).
LED_LOWER: Final = {"led_lower": 0.75, "led_lower_other": 0.6}
COVERED_OVER: Final = 0.53
FLOOR: Final = 0.02  # doubts multiply; never quite certain


class Reading:
    """Doubts one seat has about its opponents' hands, kept across one game's decisions."""

    def __init__(self, log: list[tuple[str, int, int]] | None = None, *, tells: bool = False) -> None:
        self.log = log  # every doubt as (what, seat, card), for bench/reading.py
        self.tells = tells  # also read leads and covers (see LED_LOWER)
        # (seat, card) -> (weight, talon size when doubted)
        self._doubts: dict[tuple[int, int], tuple[float, int]] = {}
        self._read: set[tuple[int, int, int]] = set()  # (bout, what, card) already read
        self._last: View | None = None
        self._mine: Move | None = None

    def _forget(self) -> None:
        self._doubts.clear()
        self._read.clear()
        self._last = self._mine = None

    def observe(self, view: View) -> None:
        """Read what happened since this seat's last decision, as far as ``view`` (its next one) shows."""
        me = view.seat
        if me is None:
            raise ValueError("reading belongs to a seat; the public view has none")
        last, mine = self._last, self._mine
        if last is not None and (last.seat != me or last.bout > view.bout):
            self._forget()  # another seat or game: start over
            last = mine = None
        trump = view.trump
        d = view.defender
        if self.tells and view.table and view.lead != me and self._first(view.bout, 2, 0):
            led = view.table[0][0]
            if suit(led) != trump:  # a plain lead: the lowest plain cards usually go first
                lower = (1 << (led - suit(led))) - 1  # every card of a lower rank
                for card in cards_of(lower & ~SUIT_MASK[trump]):
                    what = "led_lower" if suit(card) == suit(led) else "led_lower_other"
                    self._doubt(what, view.lead, card, LED_LOWER[what], view.talon)
        if d != me and view.table:
            if view.taking and self._first(view.bout, 0, 0):
                uncovered = [a for a, c in view.table if c is None]
                for a in uncovered:
                    for card in cards_of(BEATERS[trump][a]):
                        if suit(card) == trump and suit(a) != trump:
                            self._doubt("took_trump", d, card, TOOK_TRUMP ** (1 / len(uncovered)), view.talon)
                        else:
                            self._doubt("took_plain", d, card, TOOK_PLAIN ** (1 / len(uncovered)), view.talon)
            for a, c in view.table:
                if c is None or not self._first(view.bout, 1, a):
                    continue
                if suit(c) == trump and suit(a) != trump:
                    for card in cards_of(BEATERS[trump][a]):
                        if suit(card) != trump:
                            self._doubt("trumped", d, card, TRUMPED, view.talon)
                    continue
                if self.tells and suit(c) != trump:  # a cheaper cover of the same suit was likely not there
                    for card in cards_of(BEATERS[trump][a] & SUIT_MASK[suit(c)] & ((1 << c) - 1)):
                        self._doubt("covered_over", d, card, COVERED_OVER, view.talon)
        if last is not None and mine is not None and self._all_passed(last, mine, view):
            covering = mine >> COVER_SHIFT
            cards = [covering, *(x for pair in last.table for x in pair if x is not None)]
            ranks = 0
            for card in cards:
                ranks |= RANK_MASK[rank(card)]
            for t in last.throwers:
                if t != me and last.seats[t].cards:
                    for card in cards_of(ranks):
                        if suit(card) != trump:
                            self._doubt("passed", t, card, PASSED, last.talon)
        self._last, self._mine = view, None

    def chose(self, move: Move) -> None:
        """The move this seat made at the view it last observed."""
        self._mine = move

    def weights(self, view: View) -> dict[int, dict[int, float]]:
        """Per seat, the cards it is doubted to hold and their weight now (cards seen since are ignored by
        ``Worlds``: they are not unseen)."""
        out: dict[int, dict[int, float]] = {}
        for (seat, card), (w, talon) in self._doubts.items():
            if talon:  # the seat may have drawn it since: the doubt fades with the share of the talon drawn
                w += (1 - w) * (talon - view.talon) / talon
            if w < 1:
                out.setdefault(seat, {})[card] = w
        return out

    def _first(self, bout: int, what: int, card: int) -> bool:
        key = (bout, what, card)
        if key in self._read:
            return False
        self._read.add(key)
        return True

    def _doubt(self, what: str, seat: int, card: int, w: float, talon: int) -> None:
        if self.log is not None:
            self.log.append((what, seat, card))
        old = self._doubts.get((seat, card))
        if old is not None:
            before, then = old
            if then:
                before += (1 - before) * (then - talon) / then
            w *= before
        self._doubts[seat, card] = (max(FLOOR, w), talon)

    @staticmethod
    def _all_passed(last: View, mine: Move, view: View) -> bool:
        """Whether this seat's last move covered the last open card of a bout that then ended unchanged,
        with room left to throw in: every thrower passed."""
        if mine & KIND_MASK != COVER_KIND or last.defender != last.seat or last.taking:
            return False
        if sum(1 for _, c in last.table if c is None) != 1 or view.bout != last.bout + 1:
            return False
        rules = rules_for(last.options, last.players)
        limit = rules.first_attack_limit if last.bout == 0 else rules.attack_limit
        if len(last.table) >= limit or len(last.hand) <= 1:
            return False
        seen = set(view.seen)
        played = [mine >> COVER_SHIFT, *(x for pair in last.table for x in pair if x is not None)]
        return all(card in seen for card in played)
