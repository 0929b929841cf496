"""Moves as ints, with compact strings that round-trip (the format of callback data and the event log).

A move is ``kind | payload << 3``. Payloads: a lead carries the mask of its cards; a throw-in, transfer or
shown trump one card; a cover the attack card and the covering card. Take and pass carry nothing.

Strings: ``l6s6c`` lead 6♠ 6♣ · ``t7h`` throw in 7♥ · ``c7h8h`` cover 7♥ with 8♥ · ``x`` take · ``p`` pass
· ``r7d`` transfer with 7♦ · ``s7d`` transfer by showing the trump 7♦.
"""

from __future__ import annotations

from enum import IntEnum

from engine.cards import card_code, card_str, cards_of, mask_of, parse_card

Move = int


class Kind(IntEnum):
    LEAD = 0
    THROW_IN = 1
    COVER = 2
    TAKE = 3
    PASS = 4
    TRANSFER = 5
    SHOW_TRUMP = 6


TAKE: Move = Kind.TAKE
PASS: Move = Kind.PASS

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
    return mask_of(cards) << 3


def throw_in(card: int) -> Move:
    return Kind.THROW_IN | card << 3


def cover(attack: int, card: int) -> Move:
    return Kind.COVER | attack << 3 | card << 9


def transfer(card: int) -> Move:
    return Kind.TRANSFER | card << 3


def show_trump(card: int) -> Move:
    return Kind.SHOW_TRUMP | card << 3


def kind(move: Move) -> Kind:
    return Kind(move & 7)


def cards(move: Move) -> tuple[int, ...]:
    """The cards a move puts down or shows; for a cover: (attack card, covering card)."""
    k = move & 7
    if k == Kind.LEAD:
        return tuple(cards_of(move >> 3))
    if k == Kind.COVER:
        return ((move >> 3) & 63, move >> 9)
    if k in (Kind.TAKE, Kind.PASS):
        return ()
    return (move >> 3,)


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
    return int(k) | parsed[0] << 3
