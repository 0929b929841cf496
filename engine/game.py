"""The game: state, legal moves, applying moves, timeouts, the result. Pure and deterministic.

Hot path (AI playouts): ``turn`` (or ``legal_moves``) and ``push`` on ints and bitmasks, no objects per
card, no events; the table's topology comes from ``engine.compiled_rules``, worked out once per table shape.
Edges (bot, storage, tests): ``check``/``apply`` validate and return an ``Applied`` record of events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Final

from engine.cards import (
    BEATERS,
    BIT,
    DECK_CARDS,
    DECK_MASK,
    DECKS,
    RANK_MASK,
    SIX,
    SUIT_MASK,
    Card,
    CardMask,
    Seat,
    SeatMask,
    cards_of,
    lowest,
    mask_of,
    rank,
)
from engine.compiled_rules import HAND_SIZE, Rules, rules_for, team_of
from engine.diagnose import why_illegal
from engine.events import Event, EventKind, IllegalMove, Reason
from engine.moves import (
    CARD_MASK,
    CARDS_SHIFT,
    COVER_KIND,
    COVER_ON,
    COVER_SHIFT,
    KIND_MASK,
    LEAD_KIND,
    PASS,
    PASS_KIND,
    SHOW_TRUMP_KIND,
    TAKE,
    TAKE_KIND,
    THROW_IN_KIND,
    TRANSFER_KIND,
    Kind,
    Move,
    lead_of,
)
from engine.options import Options, RematchLead


def _each(mask: int, kind: int) -> list[Move]:
    """The move of ``kind`` (throw-in, transfer, shown trump) with each card of ``mask``, lowest card first.
    (Arithmetic rather than a table keyed by the card's bit: compiled, a big-int key costs an allocation.)"""
    moves = []
    while mask:
        low = mask & -mask
        moves.append(kind | (low.bit_length() - 1) << CARDS_SHIFT)
        mask ^= low
    return moves


# a rank's nibble of a lead (1..15) -> the suits of its cards, lowest first
_SUITS_OF: Final = tuple(tuple(s for s in range(4) if sub >> s & 1) for sub in range(16))


class Opening:
    """Why the first lead attacker of a game leads (docs/rules.md §3)."""

    LOWEST_TRUMP: Final = "lowest_trump"
    LOWEST_CARD: Final = "lowest_card"
    LOSER: Final = "loser"
    LEFT_OF_LOSER: Final = "left_of_loser"
    CHOSEN: Final = "chosen"  # positions set up by hand (tests, puzzles)


@dataclass(frozen=True, slots=True)
class Applied:
    """What one call changed: the new state version and the events, in order."""

    version: int
    events: tuple[Event, ...]


class Result:
    """How a game ended. Read-only (``Final``); a plain class rather than a frozen dataclass because a
    playout ends in one, and compiled, a dataclass is built through its generated Python ``__init__``."""

    __slots__ = ("bouts", "draw", "drawn", "durak", "losers", "losing_team", "places", "pogony")

    def __init__(
        self,
        places: tuple[int, ...],
        durak: int | None,
        losers: tuple[int, ...],
        draw: bool,
        drawn: tuple[int, ...],
        pogony: bool,
        losing_team: int | None,
        bouts: int,
    ) -> None:
        # per seat; 1 is best, shared places are ties; the losers share the last place
        self.places: Final = places
        self.durak: Final = durak  # the one durak, if there is exactly one
        # seats that lost: the durak, or in team play every card holder of the losing team
        self.losers: Final = losers
        self.draw: Final = draw
        self.drawn: Final = drawn  # seats in the draw
        self.pogony: Final = pogony
        self.losing_team: Final = losing_team  # team play: 0 (seats 1,3,5) or 1 (seats 2,4,6), see team_of
        self.bouts: Final = bouts

    def _key(self) -> tuple[object, ...]:
        return (self.places, self.durak, self.losers, self.draw, self.drawn, self.pogony, self.losing_team,
                self.bouts)  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type[Result], tuple[object, ...]]:
        # Compiled, pickle would build one without its constructor's arguments; a view (and its result)
        # crosses into the computer players' worker processes.
        return Result, self._key()

    def __repr__(self) -> str:
        names = ("places", "durak", "losers", "draw", "drawn", "pogony", "losing_team", "bouts")
        return "Result(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self._key(), strict=True)) + ")"

    def lost(self, seat: int) -> bool:
        """The seat lost: it is the durak, or in team play it is on the losing team."""
        return seat in self.losers or (self.losing_team is not None and team_of(seat) == self.losing_team)

    def won(self, seat: int) -> bool:
        """Team play: on the winning team. Otherwise: out first (nobody wins a draw)."""
        if self.losing_team is not None:
            return not self.lost(seat)
        return self.places[seat] == 1 and not self.draw

    def reward(self, seat: int) -> float:
        """1 for escaping, 0 for losing (in team play, the whole losing team), ½ in a draw."""
        return 0.5 if seat in self.drawn else 0.0 if self.lost(seat) else 1.0

    def losing_team_seats(self) -> tuple[int, ...]:
        """Team play: every seat of the losing team (empty otherwise)."""
        seats = range(len(self.places))
        return tuple(s for s in seats if self.losing_team is not None and team_of(s) == self.losing_team)


class Game:
    """The whole state of one game, and the rules applied to it.

    Fields hold plain ints and lists (cards and seats as ints, sets of them as bit masks) because the AI plays
    thousands of games a decision. ``legal_moves``/``push`` are the fast path, ``check``/``apply`` the
    validated one that returns events; ``to_act``/``timeout`` drive the timers. Every field is set by exactly
    one constructor, ``assemble`` (deals, positions, snapshots and AI worlds all go through it), and
    ``copy`` copies each one: ``FIELDS`` names them, ``DERIVED`` the ones worked out from the others.
    """

    FIELDS: Final = (
        "rules", "hands", "talon", "trump", "trump_card", "trump_seat", "discard", "attack", "cover", "lead",
        "defender", "taking", "passed", "shown", "bout", "out", "finishers", "emptied", "known", "misses",
        "bot_seats", "conceded", "last_defender", "opening", "version", "result",
    )  # fmt: skip
    DERIVED: Final = (
        "players",
        "beaters",
        "unbeaten",
        "ranks",
        "on_table",
        "attack_limit",
        "seats_out",
        "throwers",
    )
    __slots__ = FIELDS + DERIVED

    def __init__(self) -> None:
        """Empty: every game is made by ``assemble`` (or ``copy``), which sets every field. (A plain
        ``__init__`` rather than ``__new__`` tricks, so that mypyc can compile the class.)"""

    rules: Rules
    players: int
    hands: list[CardMask]  # per seat
    talon: list[Card]  # pop() draws; talon[0] is the face-up trump card while it is there
    trump: int  # the trump suit
    trump_card: Card  # the face-up card, or in a full deal the last card dealt (-1 once unknown)
    trump_seat: Seat  # seat publicly holding trump_card in a full deal until it is played, else -1
    discard: CardMask
    attack: list[Card]  # attack cards of this bout in the order they came
    cover: list[Card]  # cover[i] covers attack[i]; -1 while unbeaten
    unbeaten: int  # how many attack cards are not covered
    ranks: CardMask  # every card whose rank is on the table (what may be thrown in)
    on_table: CardMask
    lead: Seat
    defender: Seat
    taking: bool
    passed: SeatMask  # passed since the table last changed
    shown: SeatMask  # showed a trump to transfer in this bout
    throwers: tuple[Seat, ...]  # who may throw in this bout (from the defender and who is out)
    bout: int
    attack_limit: int  # attack cards this bout may hold (5 in the first bout, 6, or the hand "до завала")
    beaters: tuple[CardMask, ...]  # BEATERS for this game's trump
    out: list[int]  # per seat: the bout in which it went out, -1 while in play
    seats_out: SeatMask  # out of play (from ``out``)
    finishers: list[Seat]  # in the order they went out
    emptied: list[CardMask]  # per seat: the cards of the move that emptied its hand (pogony)
    known: list[CardMask]  # per seat: cards everybody knows it holds (picked up, shown, the public trump)
    misses: list[int]  # per seat: missed moves in a row
    bot_seats: SeatMask  # played by a bot (missed moves, or the player left)
    conceded: list[Seat]  # seats whose players conceded, in order: each took the last place not yet taken
    last_defender: Seat
    opening: tuple[str, Card]  # (Opening reason, card or -1)
    version: int
    result: Result | None

    @classmethod
    def assemble(
        cls,
        rules: Rules,
        *,
        hands: list[CardMask],
        talon: list[Card],
        trump: int,
        trump_card: Card,
        trump_seat: Seat,
        discard: CardMask,
        attack: list[Card],
        cover: list[Card],
        lead: Seat,
        defender: Seat,
        taking: bool,
        passed: SeatMask,
        shown: SeatMask,
        bout: int,
        out: list[int],
        finishers: list[Seat],
        emptied: list[CardMask],
        known: list[CardMask],
        misses: list[int],
        bot_seats: SeatMask,
        conceded: list[Seat],
        last_defender: Seat,
        opening: tuple[str, Card],
        version: int,
        result: Result | None,
    ) -> Game:
        """A state from all of its fields (the derived ones are worked out): the one place they are set."""
        g = cls()
        g.rules, g.hands, g.talon, g.trump, g.trump_card = rules, hands, talon, trump, trump_card
        g.trump_seat, g.discard, g.attack, g.cover, g.lead = trump_seat, discard, attack, cover, lead
        g.defender, g.taking, g.passed, g.shown, g.bout = defender, taking, passed, shown, bout
        g.out, g.finishers, g.emptied, g.known, g.misses = out, finishers, emptied, known, misses
        g.bot_seats, g.conceded, g.last_defender, g.opening = bot_seats, conceded, last_defender, opening
        g.version = version
        g.result = result
        g._derive()
        return g

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls,
        options: Options,
        players: int,
        *,
        rng: random.Random | None = None,
        deck: Sequence[int] | None = None,
        loser: int | None = None,
    ) -> Game:
        """Shuffle and deal. ``deck`` fixes the order: seat 0 gets deck[0:6], seat 1 deck[6:12], ...; the
        next card is turned face up (trump, drawn last) and the rest is the talon in draw order. ``loser`` is
        the durak of the previous game for a rematch (docs/rules.md §3)."""
        options.check_players(players)
        order = list(DECKS[options.deck])
        if deck is None:
            (rng or random.SystemRandom()).shuffle(order)
        elif sorted(deck) == order:
            order = list(deck)
        else:
            raise ValueError(f"deck must be a permutation of the {options.deck}-card deck")
        dealt = HAND_SIZE * players
        hands = [order[HAND_SIZE * s : HAND_SIZE * (s + 1)] for s in range(players)]
        if dealt == len(order):
            return cls.setup(options, hands, trump_card=order[-1], loser=loser)
        return cls.setup(options, hands, [*order[dealt + 1 :], order[dealt]], loser=loser)

    @classmethod
    def setup(
        cls,
        options: Options,
        hands: Sequence[Iterable[int]],
        talon: Sequence[int] = (),
        *,
        trump_card: int | None = None,
        trump_suit: int | None = None,
        lead: int | None = None,
        bout: int = 0,
        loser: int | None = None,
    ) -> Game:
        """A position: hands, the talon in draw order (its last card is the face-up trump), and every other
        card of the deck in the discard. With an empty talon give ``trump_card`` (a full deal: that card is
        in a hand and public) or ``trump_suit`` (a position after the talon ran out)."""
        players = len(hands)
        options.check_players(players)
        dealt = [list(h) for h in hands]
        every = list(chain(*dealt, talon))
        cards = set(every)
        if len(cards) != len(every) or not cards <= DECK_CARDS[options.deck]:
            raise ValueError("cards must be distinct cards of the deck")
        card_bit = BIT.__getitem__
        hand_masks = [sum(map(card_bit, h)) for h in dealt]  # a sum of distinct bits is their union
        known = [0] * players
        trump_seat = -1
        if talon:
            trump_card = talon[-1]
        elif trump_card is not None:
            holders = [s for s in range(players) if hand_masks[s] >> trump_card & 1]
            if not holders:
                raise ValueError("the public trump card must be in a hand")
            trump_seat = holders[0]
            known[trump_seat] = 1 << trump_card
        elif trump_suit is not None:
            trump_card = -1
        else:
            raise ValueError("with an empty talon, give trump_card or trump_suit")
        # Lead and defender are settled below, once it is known who is out and who leads.
        g = cls.assemble(
            rules_for(options, players),
            hands=hand_masks,
            talon=list(reversed(talon)),
            trump=trump_card & 3 if trump_card >= 0 else int(trump_suit or 0),
            trump_card=trump_card,
            trump_seat=trump_seat,
            discard=DECK_MASK[options.deck] ^ sum(map(card_bit, every)),
            attack=[],
            cover=[],
            lead=0,
            defender=0,
            taking=False,
            passed=0,
            shown=0,
            bout=bout,
            out=[-1] * players,
            finishers=[],
            emptied=[0] * players,
            known=known,
            misses=[0] * players,
            bot_seats=0,
            conceded=[],
            last_defender=-1,
            opening=(Opening.CHOSEN, -1),
            version=0,
            result=None,
        )
        if not talon:
            for s in range(players):
                if not hand_masks[s]:
                    g._go_out(s)
        g.opening = g._opening(lead, loser)
        g.lead, g.defender, g.throwers = g.rules.bout(g._opening_seat(lead, loser), g.seats_out)
        g.attack_limit = g.rules.first_attack_limit if bout == 0 else g.rules.attack_limit
        if g.opening[1] >= 0:
            g.known[g.lead] |= 1 << g.opening[1]  # everybody is told which card makes them lead
        return g

    def _opening(self, lead: int | None, loser: int | None) -> tuple[str, int]:
        if lead is not None:
            return (Opening.CHOSEN, -1)
        rematch = self.rules.options.rematch_lead
        if loser is not None and rematch is RematchLead.LOSER:
            return (Opening.LOSER, -1)
        if loser is not None and rematch is RematchLead.LEFT_OF_LOSER:
            return (Opening.LEFT_OF_LOSER, -1)
        trumps = [h & SUIT_MASK[self.trump] for h in self.hands]
        if any(trumps):
            return (Opening.LOWEST_TRUMP, min(lowest(t) for t in trumps if t))
        return (Opening.LOWEST_CARD, min(lowest(h) for h in self.hands if h))

    def _opening_seat(self, lead: int | None, loser: int | None) -> int:
        reason, card = self.opening
        if reason == Opening.CHOSEN:
            assert lead is not None
            return lead
        if reason == Opening.LOSER:
            assert loser is not None
            return loser
        if reason == Opening.LEFT_OF_LOSER:
            assert loser is not None
            return (loser + 1) % self.players
        return next(s for s in range(self.players) if self.hands[s] >> card & 1)

    def _derive(self) -> None:
        """Set the fields that follow from the others."""
        self.players = self.rules.players
        self.beaters = BEATERS[self.trump]
        self.unbeaten = self.cover.count(-1)
        self.on_table = self.ranks = 0
        if self.attack:  # a fresh deal (the common case) has nothing on the table
            self.on_table = mask_of((*self.attack, *(c for c in self.cover if c >= 0)))
            for c in cards_of(self.on_table):
                self.ranks |= RANK_MASK[rank(c)]
        self.attack_limit = self.rules.first_attack_limit if self.bout == 0 else self.rules.attack_limit
        self.seats_out = mask_of(s for s, bout in enumerate(self.out) if bout >= 0) if self.finishers else 0
        self.throwers = self.rules.throwers(self.defender, self.seats_out)

    def copy(self) -> Game:
        """An independent copy: every field of ``FIELDS`` and ``DERIVED``, lists copied (searches copy a game
        per playout, so this is written out rather than looped)."""
        g = Game()
        g.rules = self.rules
        g.players = self.players
        g.hands = self.hands[:]
        g.talon = self.talon[:]
        g.trump = self.trump
        g.trump_card = self.trump_card
        g.trump_seat = self.trump_seat
        g.discard = self.discard
        g.attack = self.attack[:]
        g.cover = self.cover[:]
        g.unbeaten = self.unbeaten
        g.ranks = self.ranks
        g.on_table = self.on_table
        g.lead = self.lead
        g.defender = self.defender
        g.taking = self.taking
        g.passed = self.passed
        g.shown = self.shown
        g.throwers = self.throwers
        g.bout = self.bout
        g.attack_limit = self.attack_limit
        g.beaters = self.beaters
        g.out = self.out[:]
        g.seats_out = self.seats_out
        g.finishers = self.finishers[:]
        g.emptied = self.emptied[:]
        g.known = self.known[:]
        g.misses = self.misses[:]
        g.bot_seats = self.bot_seats
        g.conceded = self.conceded[:]
        g.last_defender = self.last_defender
        g.opening = self.opening
        g.version = self.version
        g.result = self.result
        return g

    # ------------------------------------------------------------------ seats

    @property
    def options(self) -> Options:
        return self.rules.options

    @property
    def over(self) -> bool:
        return self.result is not None

    def decided(self) -> bool:
        """Whether the result can no longer change (docs/rules.md §7): the talon is empty, everybody but the
        defender is out, and the defender ends the bout holding cards whatever they do (or the draw option is
        off, so that emptying their hand makes them the durak as well). The defender still covers or takes;
        it only changes nothing."""
        if self.result is not None or not self.attack or self.talon:
            return False
        d = self.defender
        others = ((1 << self.players) - 1) & ~(1 << d)
        if self.seats_out & others != others:
            return False
        return self.hands[d].bit_count() > self.unbeaten or not self.rules.options.draw

    def team(self, seat: int) -> int:
        return team_of(seat) if self.rules.teams else seat

    def target(self, seat: int) -> int:
        """The next opponent in play clockwise: the defender against ``seat``, or whom it transfers to."""
        return self.rules.target(seat, self.seats_out)

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self, seat: int) -> list[Move]:
        if self.result is not None or self.out[seat] >= 0:
            return []
        hand = self.hands[seat]
        if not self.attack:
            return self._leads(hand) if seat == self.lead else []
        if seat == self.defender:
            return [] if self.taking or not self.unbeaten else self._defences(seat, hand)
        return self._throw_ins(hand) if seat in self._adders() else []

    def _throw_ins(self, hand: int) -> list[Move]:
        """Of a thrower who may add now: every card of a rank on the table, and Pass if the defender does
        not have to answer first."""
        moves = _each(hand & self.ranks, THROW_IN_KIND)
        if moves and (self.taking or not self.unbeaten):
            moves.append(PASS)
        return moves

    def _leads(self, hand: int) -> list[Move]:
        moves: list[Move] = []
        for shift, table in self.rules.lead_tables[self.hands[self.defender].bit_count()]:
            bits = hand >> shift & 4095
            if bits:
                moves += table[bits]
        return moves

    def _defences(self, seat: int, hand: int) -> list[Move]:
        beaters = self.beaters
        moves = []
        for a, c in zip(self.attack, self.cover):  # noqa: B905 - equal lengths; a keyword slows the hot path
            if c < 0:
                m = hand & beaters[a]
                on = COVER_ON[a]
                while m:
                    low = m & -m
                    moves.append(on | (low.bit_length() - 1) << COVER_SHIFT)
                    m ^= low
        moves.append(TAKE)
        if self.rules.transfer and self._transfer_open():
            same = hand & self.ranks
            target = self.rules.target(seat, self.seats_out) if same else -1
            if target >= 0:
                held, count = self.hands[target].bit_count(), len(self.attack)
                if count < self.attack_limit and held > count:
                    moves += _each(same, TRANSFER_KIND)
                if self.rules.show_trump and not self.shown >> seat & 1 and held >= count:
                    moves += _each(same & SUIT_MASK[self.trump], SHOW_TRUMP_KIND)
        return moves

    def _transfer_open(self) -> bool:
        """No card covered, no Take, every attack card of one rank, and the first-bout option allows it."""
        return (
            self.unbeaten == len(self.attack)
            and not self.taking
            and self.ranks == RANK_MASK[self.attack[0] >> 2]
            and (self.bout > 0 or self.rules.transfer_first_bout)
        )

    def actors(self) -> list[int]:
        """Every seat with a legal move now (throwers may add while the defender thinks)."""
        return [s for s in range(self.players) if self.legal_moves(s)]

    def turn(self, pick: Callable[[], float]) -> tuple[int, list[Move]]:
        """A seat on the clock and its legal moves, in one step (the playout loop): the lead attacker, the
        defender, or one of the throwers who may still add, drawn with ``pick`` (uniform in [0, 1)) when
        several may. The game must not be over."""
        if not self.attack:
            return self.lead, self._leads(self.hands[self.lead])
        if self.unbeaten and not self.taking:
            return self.defender, self._defences(self.defender, self.hands[self.defender])
        seats = self._adders()
        seat = seats[0] if len(seats) == 1 else seats[int(pick() * len(seats))]
        return seat, self._throw_ins(self.hands[seat])

    def to_act(self) -> list[int]:
        """Seats on the clock (docs/rules.md §9): the bout waits for them."""
        if self.result is not None:
            return []
        if not self.attack:
            return [self.lead]
        if self.unbeaten and not self.taking:
            return [self.defender]
        return self._adders()

    def _adders(self) -> list[int]:
        """Throwers who may still add a card: there is room (both limits of docs/rules.md §4.5: the cap, and no
        more unbeaten cards than the defender holds), they have not passed, and they hold a rank on the
        table. With every attack card covered or taken, the bout ends when there are none."""
        hands = self.hands
        if self.attack_limit <= len(self.attack) or hands[self.defender].bit_count() <= self.unbeaten:
            return []
        passed, ranks = self.passed, self.ranks
        seats = []
        for t in self.throwers:  # a loop, not a comprehension: cheaper on this hot path
            if not passed >> t & 1 and hands[t] & ranks:
                seats.append(t)
        return seats

    # ------------------------------------------------------------------ applying

    def check(self, seat: int, move: Move) -> Reason | None:
        """None if ``seat`` may make ``move`` now, else the reason it may not."""
        if not 0 <= seat < self.players:
            return Reason.NO_SUCH_SEAT
        if self.result is not None:
            return Reason.GAME_OVER
        if move in self.legal_moves(seat):
            return None
        return why_illegal(self, seat, move)

    def apply(self, seat: int, move: Move) -> Applied:
        """Make a move for ``seat`` or raise IllegalMove; returns what happened."""
        reason = self.check(seat, move)
        if reason is not None:
            raise IllegalMove(reason)
        log: list[Event] = []
        self.misses[seat] = 0
        self.push(seat, move, log)
        self.version += 1
        return Applied(self.version, tuple(log))

    def push(self, seat: int, move: Move, log: list[Event] | None = None) -> None:
        """Apply a move known to be legal (one of legal_moves): no checks, and events only if ``log`` is
        given. The playout path; everybody else calls ``apply``."""
        kind = move & KIND_MASK
        if kind == LEAD_KIND:
            mask = move >> CARDS_SHIFT
            base = lowest(mask) & ~3  # the rank's two of spades, so to speak: every card led is base + suit
            self.attack = [base + s for s in _SUITS_OF[mask >> base & 15]]
            self.ranks = RANK_MASK[base >> 2]
            self.unbeaten = n = len(self.attack)
            self.cover = [-1] * n
            self.on_table = mask
            if log is not None:
                log.append(Event(EventKind.LED, seat, tuple(self.attack)))
        elif kind == COVER_KIND:
            a, c = (move >> CARDS_SHIFT) & CARD_MASK, move >> COVER_SHIFT
            self.cover[self.attack.index(a)] = c
            self.unbeaten -= 1
            self.ranks |= RANK_MASK[c >> 2]
            mask = BIT[c]
            self.on_table |= mask
            self.passed = 0
            if log is not None:
                log.append(Event(EventKind.COVERED, seat, (a, c)))
        elif kind == TAKE_KIND:
            self.taking = True
            if log is not None:
                log.append(Event(EventKind.TOOK, seat))
            if not self._adders():
                self._end_bout(log)
            return
        elif kind == PASS_KIND:  # legal only with nothing to cover or after Take
            self.passed |= BIT[seat]
            if log is not None:
                log.append(Event(EventKind.PASSED, seat))
            if not self._adders():
                self._end_bout(log)
            return
        elif kind == SHOW_TRUMP_KIND:  # the trump stays in hand, now known to all; the new defender answers
            c = move >> CARDS_SHIFT
            self.known[seat] |= BIT[c]
            self.shown |= BIT[seat]
            self.passed = 0
            self._pass_attack(seat, EventKind.SHOWED_TRUMP, c, log)
            return
        else:  # a throw-in or a transfer
            c = move >> CARDS_SHIFT
            self.attack.append(c)
            self.cover.append(-1)
            self.unbeaten += 1
            self.ranks |= RANK_MASK[c >> 2]
            mask = BIT[c]
            self.on_table |= mask
            self.passed = 0
            if kind == TRANSFER_KIND:
                self._pass_attack(seat, EventKind.TRANSFERRED, c, log)
            elif log is not None:
                log.append(Event(EventKind.THREW_IN, seat, (c,)))
        # The cards of ``mask`` left the seat's hand for the table.
        hand = self.hands[seat] ^ mask
        self.hands[seat] = hand
        if self.known[seat]:
            self.known[seat] &= ~mask
        if self.trump_seat == seat and mask >> self.trump_card & 1:
            self.trump_seat = -1
        if not hand:
            self.emptied[seat] = mask
            if not self.talon:
                self._go_out(seat)
                if seat != self.defender:
                    self.throwers = self.rules.throwers(self.defender, self.seats_out)
                if log is not None:
                    log.append(Event(EventKind.WENT_OUT, seat))
        # never after a lead or a transfer: the defender is to answer
        if (not self.unbeaten or self.taking) and not self._adders():
            self._end_bout(log)

    def _pass_attack(self, seat: int, kind: EventKind, card: int, log: list[Event] | None) -> None:
        self.defender = d = self.rules.target(seat, self.seats_out)
        self.throwers = self.rules.throwers(d, self.seats_out)
        if log is not None:
            log.append(Event(kind, seat, (card,), self.defender))

    def _go_out(self, seat: int) -> None:
        self.out[seat] = self.bout
        self.seats_out |= 1 << seat
        self.finishers.append(seat)

    def settle(self) -> None:
        """End the bout if every attack card is covered or taken and no thrower may add (a state built
        field by field, as AI worlds are, may stand there)."""
        if self.attack and (self.taking or not self.unbeaten) and not self._adders():
            self._end_bout(None)

    def _end_bout(self, log: list[Event] | None) -> None:
        d, taken, table = self.defender, self.taking, self.on_table
        if taken:
            self.hands[d] |= table
            self.known[d] |= table
        else:
            self.discard |= table
        if log is not None:
            log.append(Event(EventKind.PICKED_UP if taken else EventKind.BEATEN, d, tuple(cards_of(table))))
        self.attack, self.cover = [], []
        self.unbeaten = self.ranks = self.on_table = self.passed = self.shown = 0
        self.taking = False
        if self.talon:
            self._draw(self.lead, d, log)
        self.last_defender = d
        self.bout += 1
        rules, seats_out = self.rules, self.seats_out
        if seats_out or self.conceded:
            alive = self._playing()
            if len(alive) <= 1 or (rules.teams and len({team_of(s) for s in alive}) == 1):
                self._finish(log)
                return
        if taken or not seats_out >> d & 1:
            bout = rules.bout(d, seats_out, taken)  # positional: a keyword call is slower here
        else:  # the defender went out: its partner in play leads, else the next seat in play
            partner = rules.partner(d, seats_out)
            bout = rules.bout(partner, seats_out) if partner >= 0 else rules.bout(d, seats_out, True)
        self.lead, self.defender, self.throwers = bout
        self.attack_limit = rules.attack_limit
        if log is not None:
            log.append(Event(EventKind.BOUT, self.lead, target=self.defender, count=self.bout))

    def _draw(self, lead: int, defender: int, log: list[Event] | None) -> None:
        """Lead attacker first, then clockwise, the defender last (docs/rules.md §6). Nobody is out of play
        while the talon lasts."""
        hands, talon = self.hands, self.talon
        order = self.rules.draw_order[lead | defender << 3]
        for s in order:
            need = HAND_SIZE - hands[s].bit_count()
            if need > 0:
                hand, count, c = hands[s], min(need, len(talon)), -1
                for _ in range(count):
                    c = talon.pop()
                    hand |= BIT[c]
                hands[s] = hand
                if log is not None:
                    log.append(Event(EventKind.DREW, s, count=count))
                if not talon:
                    if c == self.trump_card:  # everybody watched the face-up trump go into this hand
                        self.known[s] |= BIT[c]
                    for t in order:
                        if not hands[t]:
                            self._go_out(t)
                            if log is not None:
                                log.append(Event(EventKind.WENT_OUT, t))
                    return

    def _finish(self, log: list[Event] | None) -> None:
        holders = tuple(s for s in range(self.players) if self.out[s] < 0)
        drawn: tuple[int, ...] = ()
        if holders:
            losers = holders
        elif self.rules.options.draw:
            last = max(self.out)
            drawn = tuple(s for s in range(self.players) if self.out[s] == last)
            losers = ()
        else:
            losers = (self.last_defender,)
        winners = [s for s in range(self.players) if s not in losers]
        places = [0] * self.players
        for s in winners:
            places[s] = 1 + sum(1 for w in winners if self.out[w] < self.out[s])
        for s in losers:
            places[s] = 1 + len(winners)
        pogony = False
        if losers:
            final = next((s for s in reversed(self.finishers) if s not in losers), -1)
            played = self.emptied[final] if final >= 0 else 0
            pogony = bool(played) and played & ~RANK_MASK[SIX] == 0 and played & SUIT_MASK[self.trump] == 0
        if self.conceded:  # the players who conceded take the last places, the first of them the very last
            rest = [s for s in range(self.players) if s not in self.conceded]
            natural = places[:]
            for s in rest:
                places[s] = 1 + sum(1 for w in rest if natural[w] < natural[s])
            for i, s in enumerate(self.conceded):
                places[s] = self.players - i
            losers, drawn, pogony = (self.conceded[0],), (), False
        self.result = Result(
            places=tuple(places),
            durak=losers[0] if len(losers) == 1 else None,
            losers=losers,
            draw=not losers,
            drawn=drawn,
            pogony=pogony,
            losing_team=self.team(losers[0]) if losers and self.rules.teams else None,
            bouts=self.bout,
        )
        if log is not None:
            log.append(Event(EventKind.GAME_OVER))

    # ------------------------------------------------------------------ timers (docs/rules.md §9)

    def timeout_move(self, seat: int) -> Move | None:
        """What running out of time does for ``seat`` now, or None if it is not on the clock."""
        if seat not in self.to_act():
            return None
        if not self.attack:
            hand = self.hands[seat]
            plain = hand & ~SUIT_MASK[self.trump]
            return lead_of(BIT[lowest(plain or hand)])
        return TAKE if seat == self.defender else PASS

    def would_miss(self, seat: int) -> bool:
        """Whether running out of time now counts as a missed move for ``seat`` (docs/rules.md §9): the
        attacker who must lead or the defender; a thrower who lets the time run out just passes."""
        return seat in (self.lead, self.defender) and seat in self.to_act()

    def timeout(self) -> Applied:
        """Every seat on the clock ran out of time: apply what a timeout does and count missed moves."""
        log: list[Event] = []
        waiting = self.to_act()
        moves = {s: self.timeout_move(s) for s in waiting}
        for s in waiting:
            missed = self.would_miss(s)
            log.append(Event(EventKind.TIMED_OUT, s, count=int(missed)))
            if missed:
                self._miss(s, log)
        for s in waiting:
            move = moves[s]
            if move == PASS:
                self.passed |= 1 << s  # settle once after all passes, not per pass
                log.append(Event(EventKind.PASSED, s))
            elif move is not None:
                self.push(s, move, log)
        if waiting and self.attack and moves[waiting[0]] == PASS and not self._adders():
            self._end_bout(log)
        self.version += 1
        return Applied(self.version, tuple(log))

    def _miss(self, seat: int, log: list[Event]) -> None:
        if self.bot_seats >> seat & 1:
            return
        self.misses[seat] += 1
        if self.misses[seat] >= self.rules.miss_limit:
            self.bot_seats |= 1 << seat
            self.misses[seat] = 0
            log.append(Event(EventKind.TAKEN_OVER, seat))

    def is_auto(self, seat: int) -> bool:
        return bool(self.bot_seats >> seat & 1)

    def take_over(self, seat: int) -> Applied:
        """A bot plays ``seat`` from now on (the player left the table)."""
        log = [] if self.is_auto(seat) else [Event(EventKind.TAKEN_OVER, seat)]
        self.bot_seats |= 1 << seat
        self.version += 1
        return Applied(self.version, tuple(log))

    def concede(self, seat: int) -> Applied:
        """The player at ``seat`` concedes (docs/rules.md §9): the last place not yet taken is theirs, whatever
        their cards do, and a bot plays them to the end so that the others' game goes on; when at most one
        other player is left holding cards, the game is decided and ends now (heads-up: at once)."""
        refused = self.concede_refused(seat)
        if refused is not None:
            raise IllegalMove(refused)
        log = [Event(EventKind.CONCEDED, seat)]
        self.conceded.append(seat)
        self.bot_seats |= 1 << seat
        self.misses[seat] = 0
        if len(self._playing()) <= 1:
            self._finish(log)  # the cards stay where they are: the bout under way ends with the game
        self.version += 1
        return Applied(self.version, tuple(log))

    def concede_refused(self, seat: int) -> Reason | None:
        """Why the player at ``seat`` may not concede now; None: they may."""
        if self.result is not None:
            return Reason.GAME_OVER
        if not 0 <= seat < self.players:
            return Reason.NO_SUCH_SEAT
        if seat in self.conceded:
            return Reason.CONCEDED
        if self.out[seat] >= 0:
            return Reason.PLAYER_OUT
        if self.rules.teams:
            return Reason.TEAM_CONCEDE
        return None

    def _playing(self) -> list[int]:
        """The seats still holding cards whose players have not conceded."""
        return [s for s in range(self.players) if self.out[s] < 0 and s not in self.conceded]

    def reclaim(self, seat: int) -> Applied:
        """The player pressed "I'm back"."""
        if seat in self.conceded:
            raise IllegalMove(Reason.CONCEDED)
        log = [Event(EventKind.RECLAIMED, seat)] if self.is_auto(seat) else []
        self.bot_seats &= ~(1 << seat)
        self.misses[seat] = 0
        self.version += 1
        return Applied(self.version, tuple(log))

    # ------------------------------------------------------------------ helpers for views and tests

    def table(self) -> list[tuple[int, int | None]]:
        return [(a, c if c >= 0 else None) for a, c in zip(self.attack, self.cover, strict=True)]

    def hand(self, seat: int) -> list[int]:
        return list(cards_of(self.hands[seat]))

    def kind_allowed(self, seat: int, kind: Kind) -> bool:
        return any(m & KIND_MASK == kind for m in self.legal_moves(seat))

    def state_key(self) -> tuple[object, ...]:
        """Everything that defines the state (equality, round-trip tests): every field of ``FIELDS``."""
        return tuple(
            self.rules.options
            if name == "rules"
            else tuple(v)
            if isinstance(v := getattr(self, name), list)
            else v
            for name in self.FIELDS
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]
