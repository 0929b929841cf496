"""Moves as ints, with compact strings that round-trip (the format of callback data and the event log).

A move is ``kind | payload << 3``. Payloads: a lead carries the mask of its cards; a throw-in, transfer or
shown trump one card; a cover the attack card and the covering card. Take and pass carry nothing. This module
owns that encoding: the rest of the engine builds and reads moves through its functions, or on hot paths
through the constants and the per-card table below, never with bit shifts of its own.

Strings: ``l6s6c`` lead 6♠ 6♣ · ``t7h`` throw in 7♥ · ``c7h8h`` cover 7♥ with 8♥ · ``x`` take · ``p`` pass
· ``r7d`` transfer with 7♦ · ``s7d`` transfer by showing the trump 7♦.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from engine.cards import card_code, card_str, cards_of, mask_of, parse_card

Move = int


# For hot loops, where an IntEnum member would cost an attribute lookup each time: the kinds as plain ints,
# and the layout (``move & KIND_MASK`` is the kind, ``move >> CARDS_SHIFT`` a lead's card mask or the one card
# of a throw-in, transfer or shown trump; a cover's attack card is ``move >> CARDS_SHIFT & CARD_MASK`` and its
# covering card ``move >> COVER_SHIFT``). ``Final``: compiled, they become C constants rather than lookups.
LEAD_KIND: Final = 0
THROW_IN_KIND: Final = 1
COVER_KIND: Final = 2
TAKE_KIND: Final = 3
PASS_KIND: Final = 4
TRANSFER_KIND: Final = 5
SHOW_TRUMP_KIND: Final = 6
KIND_MASK: Final = 7
CARDS_SHIFT: Final = 3
CARD_MASK: Final = 63
COVER_SHIFT: Final = 9


class Kind(IntEnum):
    LEAD = LEAD_KIND
    THROW_IN = THROW_IN_KIND
    COVER = COVER_KIND
    TAKE = TAKE_KIND
    PASS = PASS_KIND
    TRANSFER = TRANSFER_KIND
    SHOW_TRUMP = SHOW_TRUMP_KIND


TAKE: Final[Move] = TAKE_KIND
PASS: Final[Move] = PASS_KIND

# COVER_ON[attack card]: a cover of that card, to be or-ed with ``covering card << COVER_SHIFT``.
COVER_ON: Final = tuple(COVER_KIND | c << CARDS_SHIFT for c in range(52))

_LETTER = {
    Kind.LEAD: "l",
    Kind.THROW_IN: "t",
    Kind.COVER: "c",
    Kind.TAKE: "x",
    Kind.PASS: "p",
    Kind.TRANSFER: "r",
    Kind.SHOW_TRUMP: "s",
}
_KIND = {letter: kind for kind, letter in _LETTER.items()}


def lead(*cards: int) -> Move:
    return lead_of(mask_of(cards))


def lead_of(mask: int) -> Move:
    """The lead of every card of ``mask`` (one rank, for the lead to be legal)."""
    return mask << CARDS_SHIFT


def led(move: Move) -> int:
    """A lead's card mask."""
    return move >> CARDS_SHIFT


def throw_in(card: int) -> Move:
    return THROW_IN_KIND | card << CARDS_SHIFT


def cover(attack: int, card: int) -> Move:
    return COVER_ON[attack] | card << COVER_SHIFT


def transfer(card: int) -> Move:
    return TRANSFER_KIND | card << CARDS_SHIFT


def show_trump(card: int) -> Move:
    return SHOW_TRUMP_KIND | card << CARDS_SHIFT


def kind(move: Move) -> Kind:
    return Kind(move & KIND_MASK)


def cards(move: Move) -> tuple[int, ...]:
    """The cards a move puts down or shows; for a cover: (attack card, covering card)."""
    k = move & KIND_MASK
    if k == Kind.LEAD:
        return tuple(cards_of(move >> CARDS_SHIFT))
    if k == Kind.COVER:
        return ((move >> CARDS_SHIFT) & CARD_MASK, move >> COVER_SHIFT)
    if k in (Kind.TAKE, Kind.PASS):
        return ()
    return (move >> CARDS_SHIFT,)


def well_formed(move: Move) -> bool:
    """The move decodes to a kind and cards of the 52-card deck (legal or not)."""
    k = move & KIND_MASK
    if move < 0 or k > Kind.SHOW_TRUMP:
        return False
    if k == Kind.LEAD:
        return 0 < move >> CARDS_SHIFT < 1 << 52
    if k in (Kind.TAKE, Kind.PASS):
        return not move >> CARDS_SHIFT
    if k == Kind.COVER:
        return move >> CARDS_SHIFT & CARD_MASK < 52 and move >> COVER_SHIFT < 52
    return move >> CARDS_SHIFT < 52


def move_str(move: Move) -> str:
    return _LETTER[kind(move)] + "".join(card_code(c) for c in cards(move))


def describe(move: Move) -> str:
    """A short English gloss for logs and the terminal game."""
    k = kind(move)
    shown = [card_str(c) for c in cards(move)]
    if k == Kind.COVER:
        return f"cover {shown[0]} with {shown[1]}"
    return {
        Kind.LEAD: "lead",
        Kind.THROW_IN: "throw in",
        Kind.TAKE: "take",
        Kind.PASS: "pass",
        Kind.TRANSFER: "transfer with",
        Kind.SHOW_TRUMP: "transfer showing",
    }[k] + ("" if not shown else " " + " ".join(shown))


def parse_move(text: str) -> Move:
    """Inverse of move_str; raises ValueError on malformed text (never on an illegal but well-formed move)."""
    if not text or text[0] not in _KIND:
        raise ValueError(f"not a move: {text!r}")
    k = _KIND[text[0]]
    body = text[1:]
    if len(body) % 2:
        raise ValueError(f"not a move: {text!r}")
    parsed = [parse_card(body[i : i + 2]) for i in range(0, len(body), 2)]
    if k in (Kind.TAKE, Kind.PASS):
        if parsed:
            raise ValueError(f"not a move: {text!r}")
        return int(k)
    if k == Kind.LEAD:
        if not parsed or len(set(parsed)) != len(parsed):
            raise ValueError(f"not a move: {text!r}")
        return lead(*parsed)
    if k == Kind.COVER:
        if len(parsed) != 2:
            raise ValueError(f"not a move: {text!r}")
        return cover(parsed[0], parsed[1])
    if len(parsed) != 1:
        raise ValueError(f"not a move: {text!r}")
    return int(k) | parsed[0] << CARDS_SHIFT
