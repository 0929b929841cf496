"""Table options compiled for the hot path: plain attributes, lead tables, and the table's topology.

Who defends, who may throw in and who leads the next bout depend only on the seats still in play, so
each answer is worked out once per pattern of seats out (a bit mask, ``seats_out``) and looked up after that.
One ``Rules`` serves every game with the same options and player count (``rules_for``), so its caches stay
warm across the thousands of games an AI plays out.
"""

from __future__ import annotations

import functools
from typing import Final

from engine.cards import DECK_MASK, lowest
from engine.moves import Move, lead_of
from engine.options import AttackCap, Options, ThrowIn, Variant

HAND_SIZE: Final = 6

Bout = tuple[int, int, tuple[int, ...]]  # (lead attacker, defender, throwers)


def team_of(seat: int) -> int:
    """Team play: partners sit alternately, so a seat's team is 0 (seats 1, 3, 5) or 1 (seats 2, 4, 6)."""
    return seat & 1


@functools.cache
def _lead_table(shift: int, room: int) -> tuple[tuple[Move, ...], ...]:
    """[bits]: every lead of at most ``room`` cards from a hand whose cards of the three ranks at ``shift``
    are ``bits`` (12 bits): each non-empty subset of one rank, as a lead."""
    subsets = [
        [sub for sub in range(1, 16) if sub & nib == sub and sub.bit_count() <= room] for nib in range(16)
    ]
    return tuple(
        tuple(lead_of(sub << (shift + 4 * r)) for r in range(3) for sub in subsets[bits >> 4 * r & 15])
        for bits in range(4096)
    )


class Rules:
    """The options of one table shape (options and player count) compiled for the hot path: plain attributes,
    lead tables, the drawing order, and who defends, throws in and leads next for each pattern of seats out
    (worked out on first use, then looked up). Shared by every game of that shape (``rules_for``)."""

    __slots__ = (
        "attack_limit",
        "draw_order",
        "first_attack_limit",
        "lead_tables",
        "miss_limit",
        "neighbours",
        "next_bouts",
        "options",
        "players",
        "show_trump",
        "targets",
        "teams",
        "throwers_of",
        "transfer",
        "transfer_first_bout",
    )

    def __init__(self, options: Options, players: int) -> None:
        self.options = options
        self.players = players
        self.attack_limit = HAND_SIZE if options.attack_cap is AttackCap.SIX else 52
        self.first_attack_limit = min(self.attack_limit, 5) if options.first_bout_limit else self.attack_limit
        self.transfer = options.variant is Variant.TRANSFER
        self.transfer_first_bout = options.transfer_first_bout
        self.show_trump = options.show_trump_transfer
        self.neighbours = options.throw_in is ThrowIn.NEIGHBOURS
        self.teams = options.teams
        self.miss_limit = 2 if players == 2 else 3
        low = lowest(DECK_MASK[options.deck])
        # lead_tables[cards in the defender's hand]: (shift, table) per 12 bits of the deck, for leads of at
        # most that many cards (the attack cap is never below 5, so only the hand limits a lead of one rank)
        by_room = [
            tuple((shift, _lead_table(shift, room)) for shift in range(low, 52, 12)) for room in range(5)
        ]
        self.lead_tables = tuple(by_room[min(held, 4)] for held in range(53))
        # draw_order[lead | defender << 3]: lead attacker first, then clockwise, the defender last (§6)
        self.draw_order = {
            lead | d << 3: (*(s for s in ((lead + k) % players for k in range(players)) if s != d), d)
            for lead in range(players)
            for d in range(players)
        }
        self.targets: dict[int, int] = {}  # seat | seats_out << 3
        self.throwers_of: dict[int, tuple[int, ...]] = {}  # defender | seats_out << 3
        self.next_bouts: dict[int, Bout] = {}  # seat | after << 3 | seats_out << 4

    def __eq__(self, other: object) -> bool:
        """The same table shape compiles to equal rules: ``rules_for`` is a bounded cache, so a game loaded
        after its shape was evicted holds another, equal, object."""
        return isinstance(other, Rules) and self.players == other.players and self.options == other.options

    def __hash__(self) -> int:
        return hash((self.options, self.players))

    # ------------------------------------------------------------------ cached lookups

    def target(self, seat: int, seats_out: int) -> int:
        """The next opponent in play clockwise: the defender against ``seat``, or whom it transfers to."""
        key = seat | seats_out << 3
        target = self.targets.get(key)
        if target is None:
            target = self.targets[key] = self._find_target(seat, seats_out)
        return target

    def throwers(self, defender: int, seats_out: int) -> tuple[int, ...]:
        """Who may throw in against ``defender`` (the lead attacker's first card aside)."""
        key = defender | seats_out << 3
        throwers = self.throwers_of.get(key)
        if throwers is None:
            throwers = self.throwers_of[key] = self._find_throwers(defender, seats_out)
        return throwers

    def bout(self, seat: int, seats_out: int, after: bool = False) -> Bout:
        """The bout led by ``seat`` (``after``: by the seat after it, as when the defender took), or by the
        next seat in play if that one is out."""
        key = seat | after << 3 | seats_out << 4
        bout = self.next_bouts.get(key)
        if bout is None:
            lead = seat if not after and not seats_out >> seat & 1 else self.next_in_play(seat, seats_out)
            defender = self.target(lead, seats_out)
            bout = self.next_bouts[key] = (lead, defender, self.throwers(defender, seats_out))
        return bout

    # ------------------------------------------------------------------ walking round the table

    def opposed(self, seat: int, other: int) -> bool:
        return team_of(seat) != team_of(other) if self.teams else seat != other

    def next_in_play(self, seat: int, seats_out: int) -> int:
        n = self.players
        for step in range(1, n + 1):
            s = (seat + step) % n
            if not seats_out >> s & 1:
                return s
        return -1

    def partner(self, seat: int, seats_out: int) -> int:
        """The first teammate of ``seat`` in play clockwise, or -1 (always -1 without teams)."""
        for step in range(1, self.players):
            s = (seat + step) % self.players
            if not seats_out >> s & 1 and not self.opposed(s, seat):
                return s
        return -1

    def _find_target(self, seat: int, seats_out: int) -> int:
        for step in range(1, self.players):
            s = (seat + step) % self.players
            if not seats_out >> s & 1 and self.opposed(s, seat):
                return s
        return -1

    def _find_throwers(self, defender: int, seats_out: int) -> tuple[int, ...]:
        def opponent(s: int) -> bool:
            return not seats_out >> s & 1 and self.opposed(s, defender)

        if not self.neighbours:
            return tuple(s for s in range(self.players) if opponent(s))
        # Only the defender's nearest opponent in play on each side (docs/rules.md §4.4): the lead attacker
        # has no right of its own, so after a transfer or with seats out it may not be one of them.
        near: set[int] = set()
        for direction in (1, -1):
            for k in range(1, self.players):
                s = (defender + direction * k) % self.players
                if opponent(s):
                    near.add(s)
                    break
        return tuple(sorted(near))


@functools.lru_cache(maxsize=64)
def rules_for(options: Options, players: int) -> Rules:
    """One compiled rule set per table shape, shared by every game and copy of that shape."""
    return Rules(options, players)
