"""Cards as small ints and sets of cards as bitmasks.

A card is ``rank * 4 + suit``: rank 0..12 stands for 2..A, suit 0..3 for ♠ ♣ ♦ ♥ (the tie-break order
of docs/rules.md §3). Ordering cards by that int orders them by rank first and suit second, so the lowest set
bit of a hand is its lowest card, and all four cards of one rank sit in one nibble. A set of cards (a
hand, the discard) is an int with bit ``card`` set; every rule check is a few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

Card = int  # rank * 4 + suit
CardMask = int  # a set of cards: bit ``card`` set for each
Seat = int  # 0 .. players - 1 in join order; -1 for "no seat"
SeatMask = int  # a set of seats: bit ``seat`` set for each

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_CODES = "23456789TJQKA"
SUITS = ("♠", "♣", "♦", "♥")
SUIT_CODES = "scdh"

SIX: Final = 4  # the rank index of a six: "pogony" are sixes

BIT: Final = tuple(1 << c for c in range(52))  # BIT[card]: the mask of one card
RANK_MASK: Final = tuple(0xF << (4 * r) for r in range(13))
SUIT_MASK: Final = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))

# The lowest rank of each deck size: 24 cards start at 9, 36 at 6, 52 at 2.
_LOWEST_RANK = {24: 7, 36: 4, 52: 0}
DECK_MASK: Final = {size: ((1 << 52) - 1) & ~((1 << (4 * low)) - 1) for size, low in _LOWEST_RANK.items()}

# BEATERS[trump][card]: every card (of any deck) that may cover ``card`` when ``trump`` is the trump suit.
BEATERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (SUIT_MASK[card & 3] & ~((1 << (card + 1)) - 1)) | (SUIT_MASK[trump] if card & 3 != trump else 0)
        for card in range(52)
    )
    for trump in range(4)
)


def make(rank_index: int, suit_index: int) -> int:
    return rank_index * 4 + suit_index


def cards_of(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def rank(card: Card) -> int:
    """0 for a two … 12 for an ace."""
    return card >> 2


def suit(card: Card) -> int:
    """0..3 for ♠ ♣ ♦ ♥."""
    return card & 3


def lowest(mask: int) -> int:
    """The lowest card of a non-empty mask (lowest rank, then suit order ♠ ♣ ♦ ♥)."""
    return (mask & -mask).bit_length() - 1


def card_str(card: int) -> str:
    """Display form: ``10♥``, ``Q♠``."""
    return RANKS[rank(card)] + SUITS[suit(card)]


def card_code(card: int) -> str:
    """Compact ASCII form used in move strings and snapshots: ``Th``, ``Qs``."""
    return RANK_CODES[rank(card)] + SUIT_CODES[suit(card)]


_SUIT_LOOKUP = {**{c: i for i, c in enumerate(SUIT_CODES)}, **{c: i for i, c in enumerate(SUITS)}}
_SUIT_LOOKUP.update({"♤": 0, "♧": 1, "♢": 2, "♡": 3})
_RANK_LOOKUP = {**{c: i for i, c in enumerate(RANK_CODES)}, **{r: i for i, r in enumerate(RANKS)}}


def parse_card(text: str) -> int:
    """Parse ``Th``, ``10h``, ``10♥``, ``q♠``; raises ValueError on anything else."""
    text = text.strip()
    if len(text) < 2:
        raise ValueError(f"not a card: {text!r}")
    rank_text, suit_text = text[:-1].upper(), text[-1].lower() if text[-1].isascii() else text[-1]
    if rank_text not in _RANK_LOOKUP or suit_text not in _SUIT_LOOKUP:
        raise ValueError(f"not a card: {text!r}")
    return make(_RANK_LOOKUP[rank_text], _SUIT_LOOKUP[suit_text])


def parse_cards(text: str) -> list[int]:
    """Parse a space- or comma-separated list of cards."""
    return [parse_card(part) for part in text.replace(",", " ").split()]


def sort_hand(cards: Iterable[int], trump: int) -> list[int]:
    """A hand as players like to see it: non-trumps by rank then suit, trumps last."""
    return sorted(cards, key=lambda c: (c & 3 == trump, c >> 2, c & 3))


DECKS = {size: tuple(cards_of(mask)) for size, mask in DECK_MASK.items()}  # every card, lowest first
DECK_CARDS = {size: frozenset(cards) for size, cards in DECKS.items()}


def deck(size: int) -> list[int]:
    """All cards of a deck of ``size`` (24, 36 or 52), lowest first."""
    return list(DECKS[size])
