"""A player's hand message: the table in short, the hand, what is asked of them, and buttons for exactly
their legal moves (pure, from that seat's view only)."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import BackPress, HandPress, MovePress, PickPress, encode
from bot.i18n import Text
from bot.render import NAME_LENGTH, card_list, fit, name_of, short
from engine.cards import card_str, sort_hand
from engine.moves import TAKE, Kind, Move, cards, kind
from engine.views import View

CARDS_PER_ROW = 6


def hand_text(
    view: View, names: Sequence[str], t: Text, chat_title: str, *, selected: int | None = None
) -> str:
    """A player's private hand message: the table in short, the hand, and what is asked of them."""
    assert view.seat is not None
    seat = view.seat
    lines = [f"<b>{t('hand.title', chat=short(chat_title, 2 * NAME_LENGTH))}</b>"]
    if view.trump_card is not None:
        lines.append(
            f"{t('table.trump', card=card_str(view.trump_card))} · {t('table.talon', count=view.talon)}"
        )
    others = [
        f"{name_of(names, info.seat)}: {info.cards}"
        for info in view.seats
        if info.seat != seat and info.place is None
    ]
    lines.append(" · ".join(others))
    if view.table:
        lines.append(
            "  ".join(card_str(a) + (f" / {card_str(c)}" if c is not None else "") for a, c in view.table)
        )
    lines.append(t("hand.your_hand", cards=card_list(sort_hand(view.hand, view.trump)) or "—"))
    lines.append("")
    lines.append(_prompt(view, names, t, selected))
    return fit(lines)


def hand_closed(t: Text, chat_title: str, ended: str) -> str:
    """A hand message once its table ended without a result: no cards, no buttons, and why."""
    return f"<b>{t('hand.title', chat=short(chat_title, 2 * NAME_LENGTH))}</b>\n{ended}"


def _prompt(view: View, names: Sequence[str], t: Text, selected: int | None) -> str:
    seat = view.seat
    assert seat is not None
    info = view.seats[seat]
    if info.place is not None:
        return t("hand.out", place=info.place)
    if info.auto:
        return t("hand.auto")
    if selected is not None:
        return t("hand.choose_attack", card=card_str(selected))
    kinds = {kind(m) for m in view.moves}
    if Kind.LEAD in kinds:
        return t("hand.lead")
    if Kind.TAKE in kinds:
        return t("hand.defend")
    if view.taking and view.moves:
        return t("hand.taking", name=name_of(names, view.defender))
    if view.moves:
        return t("hand.throw_in")
    return t("hand.wait")


def hand_keyboard(view: View, table_id: int, t: Text, *, selected: int | None = None) -> InlineKeyboardMarkup:
    """Buttons for exactly the seat's legal moves (or "I'm back" while a bot plays the seat)."""
    assert view.seat is not None
    if view.seats[view.seat].auto:
        return InlineKeyboardMarkup(
            [[InlineKeyboardButton(t("button.back"), callback_data=encode(BackPress(table_id)))]]
        )

    def press(move: Move, label: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=encode(MovePress(table_id, view.version, move)))

    moves = view.moves
    if selected is not None:
        covers = [m for m in moves if kind(m) == Kind.COVER and cards(m)[1] == selected]
        row = [press(m, f"{card_str(cards(m)[0])} ← {card_str(selected)}") for m in covers]
        back = InlineKeyboardButton(t("button.cancel"), callback_data=encode(HandPress(table_id)))
        return InlineKeyboardMarkup([row, [back]] if row else [[back]])
    card_buttons: list[InlineKeyboardButton] = []
    extra: list[InlineKeyboardButton] = []  # moves of several cards, or with a card of the table's rank
    final: list[InlineKeyboardButton] = []  # Take and Pass: a row of their own, away from the cards
    by_card: dict[int, list[Move]] = {}
    for m in moves:
        k = kind(m)
        if k == Kind.LEAD and len(cards(m)) > 1:
            if _is_whole_group(m, moves):
                extra.append(press(m, t("button.all_of_rank", cards=card_list(cards(m)))))
        elif k in (Kind.LEAD, Kind.THROW_IN):
            by_card.setdefault(cards(m)[0], []).append(m)
        elif k == Kind.COVER:
            by_card.setdefault(cards(m)[1], []).append(m)
        elif k == Kind.TRANSFER:
            extra.append(press(m, t("button.transfer", card=card_str(cards(m)[0]))))
        elif k == Kind.SHOW_TRUMP:
            extra.append(press(m, t("button.show", card=card_str(cards(m)[0]))))
        elif k == Kind.TAKE:
            final.append(press(TAKE, t("button.take")))
        else:
            final.append(press(m, t("button.pass")))
    for card in sort_hand(by_card, view.trump):
        options = by_card[card]
        if len(options) == 1:
            card_buttons.append(press(options[0], card_str(card)))
        else:  # one card that could cover several attack cards: ask which, in a second step
            data = encode(PickPress(table_id, view.version, card))
            card_buttons.append(InlineKeyboardButton(card_str(card), callback_data=data))
    rows = [card_buttons[i : i + CARDS_PER_ROW] for i in range(0, len(card_buttons), CARDS_PER_ROW)]
    rows += [row for row in (extra, final) if row]
    return InlineKeyboardMarkup(rows)


def _is_whole_group(move: Move, moves: Sequence[Move]) -> bool:
    """Offer one multi-card lead per rank: the largest allowed (leading fewer is a lead plus throw-ins)."""
    led = cards(move)
    rank = led[0] >> 2
    same = [m for m in moves if kind(m) == Kind.LEAD and cards(m)[0] >> 2 == rank]
    return len(led) == max(len(cards(m)) for m in same) and move == max(
        m for m in same if len(cards(m)) == len(led)
    )
