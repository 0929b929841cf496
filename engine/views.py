"""What one seat may see, and what everybody may see. Hidden information leaves the engine only here, and
only to its owner: a seat view holds its own hand and nobody else's; the public view holds no hand at all.
AI players and the bot render from views, never from the game."""

from __future__ import annotations

from dataclasses import dataclass, fields

from engine.cards import cards_of, sort_hand
from engine.game import Game, Result
from engine.moves import Move
from engine.options import Options


def _arguments(record: SeatInfo | View) -> tuple[object, ...]:
    """A view's constructor arguments, for pickle. Compiled, a frozen dataclass cannot be unpickled field by
    field (its __setattr__ refuses), and a view crosses into the computer players' worker processes."""
    return tuple(getattr(record, field.name) for field in fields(record))


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    cards: int  # how many cards it holds
    known: tuple[int, ...]  # cards everybody knows it holds (picked up, shown, the public trump)
    place: int | None  # once out: its place (places of those out are final)
    auto: bool  # played by a bot after missed moves
    team: int

    def __reduce__(self) -> tuple[type[SeatInfo], tuple[object, ...]]:
        return SeatInfo, _arguments(self)


@dataclass(frozen=True, slots=True)
class View:
    seat: int | None  # None: the public view (the group)
    hand: tuple[int, ...]  # own hand, sorted with trumps last; empty in the public view
    moves: tuple[Move, ...]  # own legal moves now
    options: Options
    trump: int
    trump_card: int | None  # the card turned face up (or, in a full deal, the last card dealt)
    trump_card_seat: int | None  # who is publicly known to hold that card now
    talon: int
    discard: int
    seen: tuple[int, ...]  # cards that went to the discard: every player saw them on the table
    table: tuple[tuple[int, int | None], ...]
    lead: int
    defender: int
    transfer_target: int  # whom a transfer now would make the defender (the next opponent in play after them)
    taking: bool
    passed: tuple[int, ...]
    shown: tuple[int, ...]  # seats that showed a trump to transfer in this bout (once each)
    throwers: tuple[int, ...]
    bout: int
    conceded: tuple[int, ...]  # seats whose players conceded, in order (public)
    may_concede: bool  # the own seat may concede now (Game.concede_refused); False in the public view
    seats: tuple[SeatInfo, ...]
    to_act: tuple[int, ...]
    opening: tuple[str, int | None]
    result: Result | None
    version: int

    def __reduce__(self) -> tuple[type[View], tuple[object, ...]]:
        return View, _arguments(self)

    @property
    def players(self) -> int:
        return len(self.seats)


def _place(game: Game, seat: int) -> int | None:
    if game.out[seat] < 0:
        return None
    if game.result is not None:
        return game.result.places[seat]
    return 1 + sum(1 for s in range(game.players) if 0 <= game.out[s] < game.out[seat])


def view(game: Game, seat: int | None = None) -> View:
    """The view of ``seat``, or the public view with ``seat=None``."""
    n = game.players
    holder = next(
        (s for s in range(n) if game.trump_card >= 0 and game.known[s] >> game.trump_card & 1), None
    )
    return View(
        seat=seat,
        hand=tuple(sort_hand(cards_of(game.hands[seat]), game.trump)) if seat is not None else (),
        moves=tuple(game.legal_moves(seat)) if seat is not None else (),
        options=game.options,
        trump=game.trump,
        trump_card=game.trump_card if game.trump_card >= 0 else None,
        trump_card_seat=holder,
        talon=len(game.talon),
        discard=game.discard.bit_count(),
        seen=tuple(cards_of(game.discard)) if seat is not None else (),
        table=tuple(game.table()),
        lead=game.lead,
        defender=game.defender,
        transfer_target=game.target(game.defender),
        taking=game.taking,
        passed=tuple(s for s in range(n) if game.passed >> s & 1),
        shown=tuple(s for s in range(n) if game.shown >> s & 1),
        throwers=tuple(game.throwers),
        bout=game.bout,
        conceded=tuple(game.conceded),
        may_concede=seat is not None and game.concede_refused(seat) is None,
        seats=tuple(
            SeatInfo(
                seat=s,
                cards=game.hands[s].bit_count(),
                known=tuple(cards_of(game.known[s])),
                place=_place(game, s),
                auto=game.is_auto(s),
                team=game.team(s),
            )
            for s in range(n)
        ),
        to_act=tuple(game.to_act()),
        opening=(game.opening[0], game.opening[1] if game.opening[1] >= 0 else None),
        result=game.result,
        version=game.version,
    )
