"""A player's buttons (pure, from that seat's view only): every card of the hand, in the hand's order (by suit,
trumps last) and rows of at most six, so the keyboard keeps its shape from move to move; the cards with no
move now are disabled (Bot API 10.3: the button does nothing; an older client that presses it is told the
card can't be played now). Then the moves of several cards, Take and Pass on a row of their own, and the
discard list below everything. Colours (Bot API 9.4 ``style``) say what a button does: red gives something
up (Take, Concede), green ends a bout (Done, Pass), blue moves the bout on (a transfer, a cover picked)."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import (
    ConcedePress,
    ConcedeStep,
    DiscardPress,
    MovePress,
    PickPress,
    ReclaimPress,
    UnpickPress,
    encode,
)
from bot.i18n import Text
from bot.render.faces import by_suit, card_list, face
from engine.cards import rank, suit
from engine.moves import Kind, Move, cards, kind
from engine.views import View

CARDS_PER_ROW = 6
DANGER, SUCCESS, PRIMARY = "danger", "success", "primary"  # Bot API 9.4's button styles
# By what a move does; a card of the hand is a card, not an action: no colour (but the cover chosen in a
# second step, which ends the choice: blue).
STYLES = {Kind.TAKE: DANGER, Kind.PASS: SUCCESS, Kind.TRANSFER: PRIMARY, Kind.SHOW_TRUMP: PRIMARY}


def hand_keyboard(
    view: View, table_id: int, t: Text, *, selected: int | None = None, conceding: bool = False
) -> InlineKeyboardMarkup:
    """Buttons for exactly the seat's legal moves, and "🏳 Concede" (or "I'm back" while a bot plays the seat;
    nothing once the player conceded; ``conceding``: the confirmation)."""
    assert view.seat is not None
    if view.seat in view.conceded:
        return InlineKeyboardMarkup([])
    if conceding:
        answers: tuple[tuple[str, ConcedeStep], ...] = (
            ("button.concede_yes", "yes"),
            ("button.concede_no", "no"),
        )
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t(key),
                        callback_data=encode(ConcedePress(table_id, step)),
                        style=DANGER if step == "yes" else None,
                    )
                ]
                for key, step in answers
            ]
        )
    if view.seats[view.seat].auto:
        return InlineKeyboardMarkup(
            [[InlineKeyboardButton(t("button.back"), callback_data=encode(ReclaimPress(table_id)))]]
        )

    def press(move: Move, label: str, style: str | None = None) -> InlineKeyboardButton:
        data = encode(MovePress(table_id, view.version, move))
        return InlineKeyboardButton(label, callback_data=data, style=style or STYLES.get(kind(move)))

    moves = view.moves
    if selected is not None:
        covers = [m for m in moves if kind(m) == Kind.COVER and cards(m)[1] == selected]
        row = [press(m, f"{face(cards(m)[0])} ← {face(selected)}", PRIMARY) for m in covers]
        back = InlineKeyboardButton(t("button.cancel"), callback_data=encode(UnpickPress(table_id)))
        return InlineKeyboardMarkup([row, [back]] if row else [[back]])
    choices = hand_choices(view, t)
    playable = dict(choices.cards)
    card_buttons: list[InlineKeyboardButton] = []
    for card in by_suit(view.hand, view.trump):
        options = playable.get(card, [])
        if len(options) == 1:
            card_buttons.append(press(options[0], face(card)))
        else:  # a card that could cover several attack cards: which, in a second step; none: disabled
            data = encode(PickPress(table_id, view.version, card))
            shown = (
                disabled(face(card), data)
                if not options
                else InlineKeyboardButton(face(card), callback_data=data)
            )
            card_buttons.append(shown)
    extra = [press(m, label) for m, label in choices.extra]
    final = [press(m, label) for m, label in choices.final]
    rows = [card_buttons[i : i + CARDS_PER_ROW] for i in range(0, len(card_buttons), CARDS_PER_ROW)]
    rows += [row for row in (extra, final) if row]
    if view.options.discard_list and view.discard:
        label = t("button.discard", count=view.discard)
        rows.append([InlineKeyboardButton(label, callback_data=encode(DiscardPress(table_id)))])
    if view.may_concede:
        rows.append(
            [
                InlineKeyboardButton(
                    t("button.concede"), callback_data=encode(ConcedePress(table_id, "ask")), style=DANGER
                )
            ]
        )
    return InlineKeyboardMarkup(rows)


def disabled(label: str, data: str) -> InlineKeyboardButton:
    """A button that does nothing (Bot API 10.3, newer than PTB 22.8: sent as it is documented); an older
    client shows it as any other, and its press is answered like any press (``data``)."""
    return InlineKeyboardButton(label, callback_data=data, api_kwargs={"disabled": True})


@dataclass(frozen=True, slots=True)
class Choices:
    """A seat's legal moves as its player is offered them, wherever they are drawn (the hand's buttons, the
    web table): each playable card with its moves, in the hand's order; moves of several cards or with a
    card shown (all of a rank, a transfer, a trump shown); Take and Pass (or Done), apart from the cards."""

    cards: list[tuple[int, list[Move]]]
    extra: list[tuple[Move, str]]
    final: list[tuple[Move, str]]


def hand_choices(view: View, t: Text) -> Choices:
    by_card: dict[int, list[Move]] = {}
    for m in view.moves:
        k = kind(m)
        if k in (Kind.LEAD, Kind.THROW_IN) and len(cards(m)) == 1:
            by_card.setdefault(cards(m)[0], []).append(m)
        elif k == Kind.COVER:
            by_card.setdefault(cards(m)[1], []).append(m)
    extra = [
        (m, t("button.all_of_rank", cards=card_list(by_suit(cards(m), view.trump))))
        for m in lead_groups(view)
    ]
    final: list[tuple[Move, str]] = []
    for m in view.moves:
        k = kind(m)
        if k == Kind.TRANSFER:
            extra.append((m, t("button.transfer", card=face(cards(m)[0]))))
        elif k == Kind.SHOW_TRUMP:
            extra.append((m, t("button.show", card=face(cards(m)[0]))))
        elif k == Kind.TAKE:
            final.append((m, t("button.take")))
        elif k == Kind.PASS:
            final.append((m, t("button.pass" if view.taking else "button.done")))
    return Choices([(card, by_card[card]) for card in by_suit(by_card, view.trump)], extra, final)


def lead_groups(view: View) -> list[Move]:
    """The leads of several cards a player would want, in the hand's order: per rank, all its plain cards,
    and all its cards with the trump too (a trump is not given away unasked). Any other subset is a lead and
    throw-ins."""
    legal = {frozenset(cards(m)): m for m in view.moves if kind(m) == Kind.LEAD and len(cards(m)) > 1}
    if not legal:
        return []
    ranks: dict[int, list[int]] = {}  # in the order of each rank's first card in the hand
    for card in by_suit(view.hand, view.trump):
        ranks.setdefault(rank(card), []).append(card)
    chosen: list[Move] = []
    for group in ranks.values():
        plain = frozenset(c for c in group if suit(c) != view.trump)
        for wanted in (plain, frozenset(group)):
            move = legal.get(wanted) if len(wanted) > 1 else None
            if move is not None and move not in chosen:
                chosen.append(move)
    return chosen
