"""How cards and seats look in every message: suits in colour, hands by suit, the table's pairs, team marks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import SUITS, card_str, rank, suit
from engine.views import View

SUIT_ORDER = (0, 2, 1, 3)  # ♠ ♣ ♦ ♥ shown as ♠ ♦ ♣ ♥: black and red take turns, so suits part at a glance
TEAM_MARKS = ("🔷", "🔶")


EMOJI = "\ufe0f"  # the emoji presentation of a suit sign: ♥️ ♦️ red and ♠️ ♣️ black on every phone


def face(card: int) -> str:
    """A card as shown, its suit in colour."""
    return card_str(card) + EMOJI


def suit_face(suit: int) -> str:
    return SUITS[suit] + EMOJI


def card_list(shown: Sequence[int]) -> str:
    return " ".join(face(c) for c in shown)


def by_suit(cards: Iterable[int], trump: int) -> list[int]:
    """A hand as shown: grouped by suit (black and red in turn), trumps last, each suit by rank."""
    return sorted(cards, key=lambda c: (suit(c) == trump, SUIT_ORDER[suit(c)], rank(c)))


def suit_groups(cards: Iterable[int], trump: int) -> list[list[int]]:
    """The cards by suit, in the order ``by_suit`` shows them (``trump`` -1: no suit goes last)."""
    groups: list[list[int]] = []
    for card in by_suit(cards, trump):
        if groups and suit(groups[-1][0]) == suit(card):
            groups[-1].append(card)
        else:
            groups.append([card])
    return groups


def hand_line(cards: Sequence[int], trump: int) -> str:
    """A hand sorted by suit, the suits set apart."""
    return "  ".join(card_list(g) for g in suit_groups(cards, trump))


def pairs(table: Sequence[tuple[int, int | None]]) -> list[str]:
    """The cards on the table, one attack per line with its cover."""
    return [face(a) + (f" ← {face(c)}" if c is not None else " ← ?") for a, c in table]


def team_mark(view: View, seat: int) -> str:
    """A seat's team marker in team play ("" otherwise)."""
    return f"{TEAM_MARKS[view.seats[seat].team]} " if view.options.teams else ""
