"""Why a move is not legal. Only consulted after ``legal_moves`` said no, so it never decides legality:
it explains a refusal. A refusal it cannot explain comes out as NOT_ALLOWED (the property tests make
sure that never happens)."""

from __future__ import annotations

from typing import Protocol

from engine.cards import BEATERS, RANK_MASK, SUIT_MASK, Card, CardMask, Seat, SeatMask, lowest, mask_of, rank
from engine.compiled_rules import Rules
from engine.events import Reason
from engine.moves import Kind, Move, cards, well_formed
from engine.moves import kind as kind_of


class Position(Protocol):
    """What an explanation reads of a game (``engine.game.Game`` has it all)."""

    rules: Rules
    hands: list[CardMask]
    trump: int
    attack: list[Card]
    cover: list[Card]
    unbeaten: int
    ranks: CardMask
    lead: Seat
    defender: Seat
    taking: bool
    passed: SeatMask
    shown: SeatMask
    throwers: tuple[Seat, ...]
    bout: int
    attack_limit: int
    out: list[int]

    def target(self, seat: Seat) -> Seat: ...


def why_illegal(game: Position, seat: int, move: Move) -> Reason:
    if not well_formed(move):
        return Reason.MALFORMED
    kind = kind_of(move)
    played = cards(move)
    if game.out[seat] >= 0:
        return Reason.PLAYER_OUT
    hand = game.hands[seat]
    if kind == Kind.LEAD:
        return _lead(game, seat, mask_of(played))
    if not game.attack:
        return Reason.MUST_LEAD_FIRST
    if kind == Kind.THROW_IN:
        return _add(game, seat, played[0]) or Reason.NOT_ALLOWED
    if kind == Kind.PASS:
        if seat == game.defender:
            return Reason.NOTHING_TO_PASS
        if seat not in game.throwers:
            return Reason.NOT_A_THROWER
        if game.passed >> seat & 1:
            return Reason.PASSED_ALREADY
        return Reason.NOTHING_TO_PASS
    if seat != game.defender:
        return Reason.NOT_DEFENDER
    if kind == Kind.TAKE:
        return Reason.ALREADY_TAKING if game.taking else Reason.NOTHING_TO_TAKE
    if kind == Kind.COVER:
        attack, card = played
        if game.taking:
            return Reason.ALREADY_TAKING
        if attack not in game.attack:
            return Reason.NOT_ON_TABLE
        if game.cover[game.attack.index(attack)] >= 0:
            return Reason.ALREADY_COVERED
        if not hand >> card & 1:
            return Reason.NOT_IN_HAND
        if not BEATERS[game.trump][attack] >> card & 1:
            return Reason.DOES_NOT_BEAT
        return Reason.NOT_ALLOWED
    return _transfer(game, seat, kind, played[0])


def _lead(game: Position, seat: int, mask: int) -> Reason:
    if game.attack:
        return Reason.ALREADY_LED
    if seat != game.lead:
        return Reason.NOT_YOUR_LEAD
    if mask & ~game.hands[seat]:
        return Reason.NOT_IN_HAND
    if mask & ~RANK_MASK[rank(lowest(mask))]:
        return Reason.LEAD_ONE_RANK
    if mask.bit_count() > game.attack_limit:
        return Reason.CAP_REACHED
    if mask.bit_count() > game.hands[game.defender].bit_count():
        return Reason.TOO_MANY_FOR_DEFENDER
    return Reason.NOT_ALLOWED


def _add(game: Position, seat: int, card: int) -> Reason | None:
    """Why ``seat`` may not add ``card`` to the table as an attack card."""
    if seat == game.defender:
        return Reason.DEFENDER_CANNOT_THROW
    if seat not in game.throwers:
        return Reason.NOT_A_THROWER
    if game.passed >> seat & 1:
        return Reason.PASSED_ALREADY
    if not game.hands[seat] >> card & 1:
        return Reason.NOT_IN_HAND
    if not game.ranks >> card & 1:
        return Reason.RANK_NOT_ON_TABLE
    return _limits(game, 1)


def _limits(game: Position, extra: int) -> Reason | None:
    if len(game.attack) + extra > game.attack_limit:
        return Reason.CAP_REACHED
    if game.unbeaten + extra > game.hands[game.defender].bit_count():
        return Reason.TOO_MANY_FOR_DEFENDER
    return None


def _transfer(game: Position, seat: int, kind: Kind, card: int) -> Reason:
    if not game.rules.transfer:
        return Reason.TRANSFER_NOT_PLAYED
    if kind == Kind.SHOW_TRUMP and not game.rules.show_trump:
        return Reason.SHOW_TRUMP_OFF
    if game.taking:
        return Reason.TRANSFER_AFTER_TAKE
    if game.unbeaten != len(game.attack):
        return Reason.TRANSFER_AFTER_COVER
    if game.bout == 0 and not game.rules.transfer_first_bout:
        return Reason.TRANSFER_FIRST_BOUT
    if not game.hands[seat] >> card & 1:
        return Reason.NOT_IN_HAND
    if game.ranks != RANK_MASK[rank(card)]:
        return Reason.TRANSFER_RANK
    target = game.target(seat)
    if target < 0:
        return Reason.NO_TRANSFER_TARGET
    held = game.hands[target].bit_count()
    if kind == Kind.SHOW_TRUMP:
        if not SUIT_MASK[game.trump] >> card & 1:
            return Reason.NOT_TRUMP
        if game.shown >> seat & 1:
            return Reason.SHOWN_ALREADY
        return Reason.TRANSFER_TOO_FEW if held < len(game.attack) else Reason.NOT_ALLOWED
    if len(game.attack) + 1 > game.attack_limit:
        return Reason.CAP_REACHED
    return Reason.TRANSFER_TOO_FEW if held < len(game.attack) + 1 else Reason.NOT_ALLOWED
