"""How cards and seats look in every message: suits in colour, hands by suit, the table's pairs, team marks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import card_str
from engine.views import View

SUIT_ORDER = (0, 2, 1, 3)  # ♠ ♣ ♦ ♥ shown as ♠ ♦ ♣ ♥: black and red take turns, so suits part at a glance
TEAM_MARKS = ("🔷", "🔶")


def face(card: int) -> str:
    """A card as shown: the suit in emoji presentation, so ♥️ ♦️ are red and ♠️ ♣️ black on every phone."""
    return card_str(card) + "\ufe0f"


def card_list(shown: Sequence[int]) -> str:
    return " ".join(face(c) for c in shown)


def by_suit(cards: Iterable[int], trump: int) -> list[int]:
    """A hand as shown: grouped by suit (black and red in turn), trumps last, each suit by rank."""
    return sorted(cards, key=lambda c: (c & 3 == trump, SUIT_ORDER[c & 3], c >> 2))


def hand_line(cards: Sequence[int], trump: int) -> str:
    """A hand sorted by suit, the suits set apart."""
    groups: list[list[int]] = []
    for card in by_suit(cards, trump):
        if groups and groups[-1][0] & 3 == card & 3:
            groups[-1].append(card)
        else:
            groups.append([card])
    return "  ".join(card_list(g) for g in groups)


def pairs(table: Sequence[tuple[int, int | None]]) -> list[str]:
    """The cards on the table, one attack per line with its cover."""
    return [face(a) + (f" ← {face(c)}" if c is not None else " ← ?") for a, c in table]


def team_mark(view: View, seat: int) -> str:
    """A seat's team marker in team play ("" otherwise)."""
    return f"{TEAM_MARKS[view.seats[seat].team]} " if view.options.teams else ""
