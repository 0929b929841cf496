"""Rendering: pure functions from engine views to message text (HTML) and inline keyboards.

Nothing here talks to Telegram or reads the game: the group's message is drawn from the public view, a
player's hand message from that seat's view, so a hand can never reach the group by mistake.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import BackPress, HandPress, MovePress, PickPress, encode
from bot.i18n import Text
from engine.cards import card_str, sort_hand
from engine.events import Event, EventKind
from engine.fairness import commitment as seal
from engine.game import Game, Result
from engine.log import act
from engine.moves import TAKE, Kind, Move, cards, kind
from engine.views import View

MAX_TEXT = 4096  # Telegram counts the text as shown, after the HTML is parsed (in UTF-16 code units)
CARDS_PER_ROW = 6
NAME_LENGTH = 24  # a name is cut to this many characters wherever it is shown: a table fits six long names


def card_list(shown: Sequence[int]) -> str:
    return " ".join(card_str(c) for c in shown)


def cut(name: str, limit: int = NAME_LENGTH) -> str:
    """A name (or a chat title) at most ``limit`` characters long."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def short(name: str, limit: int = NAME_LENGTH) -> str:
    """A name as shown in a message: cut, and HTML-escaped."""
    return html.escape(cut(name, limit))


def _name(names: Sequence[str], seat: int) -> str:
    return short(names[seat]) if 0 <= seat < len(names) else "?"


def shown_length(text: str) -> int:
    """The length Telegram counts: tags dropped, entities read as one character, in UTF-16 code units."""
    plain = html.unescape(re.sub(r"<[^>]*>", "", text))
    return len(plain.encode("utf-16-le")) // 2


def event_line(event: Event, names: Sequence[str], t: Text) -> str | None:
    """One action in words, for the table message's recent lines; None for events not worth a line."""
    k = event.kind
    if k in (EventKind.BOUT, EventKind.DREW, EventKind.GAME_OVER):
        return None
    params: dict[str, object] = {"name": _name(names, event.seat), "cards": card_list(event.cards)}
    if k is EventKind.COVERED:
        params.update(attack=card_str(event.cards[0]), cover=card_str(event.cards[1]))
    if k in (EventKind.TRANSFERRED, EventKind.SHOWED_TRUMP):
        params["target"] = _name(names, event.target)
    return t(f"event.{k.value}", **params)


def opening_line(view: View, names: Sequence[str], t: Text) -> str:
    reason, card = view.opening
    return t(
        f"opening.{reason}", name=_name(names, view.lead), card=card_str(card) if card is not None else ""
    )


def table_text(
    view: View,
    names: Sequence[str],
    t: Text,
    *,
    seconds_left: int | None = None,
    recent: Sequence[str] = (),
    commitment: str | None = None,
) -> str:
    """The group's table message, from the public view (and the fair-play hash of the deck)."""
    assert view.seat is None, "the group message is drawn from the public view only"
    lines = [f"<b>{t('table.title', variant=t('variant.' + view.options.variant.value))}</b>"]
    if view.trump_card is not None:
        trump = card_str(view.trump_card)
        holder = view.trump_card_seat
        lines.append(
            t("table.trump_held", card=trump, name=_name(names, holder))
            if holder is not None
            else t("table.trump", card=trump)
        )
    lines.append(f"{t('table.talon', count=view.talon)} · {t('table.discard', count=view.discard)}")
    lines.append("")
    for info in view.seats:
        marks = []
        if info.place is not None:
            marks.append(t("table.out", place=info.place))
        else:
            marks.append(t.plural("cards", info.cards))
            if view.result is None and info.seat == view.lead and view.defender != view.lead:
                marks.append(t("table.attacking"))
            if view.result is None and info.seat == view.defender:
                marks.append(t("table.taking") if view.taking else t("table.defending"))
        if info.auto:
            marks.append(t("table.bot"))
        pointer = "▶ " if info.seat in view.to_act and view.result is None else "   "
        lines.append(f"{pointer}{_name(names, info.seat)} — {', '.join(marks)}")
    lines.append("")
    if view.table:
        lines.append(
            "  ".join(card_str(a) + (f" / {card_str(c)}" if c is not None else "") for a, c in view.table)
        )
    elif view.result is None:
        lines.append(t("table.empty"))
    if view.result is None and view.to_act:
        waiting = t("table.to_move", names=", ".join(_name(names, s) for s in view.to_act))
        if seconds_left is not None:
            waiting += f" · {t('table.seconds_left', seconds=seconds_left)}"
        lines.append(waiting)
    if view.bout == 0 and not view.table:
        lines.append(opening_line(view, names, t))
    optional = []
    if recent:  # the first lines to go if the message would not fit: whose move and the seal must stay
        lines.append("")
        lines.append(t("table.last_actions"))
        optional = [len(lines) + i for i in range(len(recent))]
        lines.extend(f"· {line}" for line in recent)
    if commitment:
        lines.append("")
        lines.append(t("table.commitment", hash=commitment))
    return _fit(lines, optional)


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
        f"{_name(names, info.seat)}: {info.cards}"
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
    return _fit(lines)


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
        return t("hand.taking", name=_name(names, view.defender))
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
    extra: list[InlineKeyboardButton] = []
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
            extra.append(press(TAKE, t("button.take")))
        else:
            extra.append(press(m, t("button.pass")))
    for card in sort_hand(by_card, view.trump):
        options = by_card[card]
        if len(options) == 1:
            card_buttons.append(press(options[0], card_str(card)))
        else:  # one card that could cover several attack cards: ask which, in a second step
            data = encode(PickPress(table_id, view.version, card))
            card_buttons.append(InlineKeyboardButton(card_str(card), callback_data=data))
    rows = [card_buttons[i : i + CARDS_PER_ROW] for i in range(0, len(card_buttons), CARDS_PER_ROW)]
    if extra:
        rows.append(extra)
    return InlineKeyboardMarkup(rows)


def _is_whole_group(move: Move, moves: Sequence[Move]) -> bool:
    """Offer one multi-card lead per rank: the largest allowed (leading fewer is a lead plus throw-ins)."""
    led = cards(move)
    rank = led[0] >> 2
    same = [m for m in moves if kind(m) == Kind.LEAD and cards(m)[0] >> 2 == rank]
    return len(led) == max(len(cards(m)) for m in same) and move == max(
        m for m in same if len(cards(m)) == len(led)
    )


def result_text(
    result: Result,
    names: Sequence[str],
    t: Text,
    *,
    rated: bool,
    ratings: Mapping[int, tuple[float, float]] | None = None,
    minutes: int | None = None,
    reveal: tuple[str, str] | None = None,
    game_id: int | None = None,
) -> str:
    """The result message; ``reveal`` (salt, deck) opens the fair-play commitment shown at the deal."""
    title = t("result.title") + (f" · #{game_id}" if game_id is not None else "")
    lines = [f"<b>{title}</b>", ""]
    for seat in sorted(range(len(result.places)), key=lambda s: (result.places[s], s)):
        lines.append(t("result.place", place=result.places[seat], name=_name(names, seat)))
    lines.append("")
    if result.draw:
        lines.append(t("result.draw"))
    if result.durak is not None:
        lines.append(t("result.durak", name=_name(names, result.durak)))
    if result.losing_team is not None:
        team = [s for s in range(len(result.places)) if s & 1 == result.losing_team]
        lines.append(t("result.durak_team", names=", ".join(_name(names, s) for s in team)))
    if result.pogony:
        lines.append(t("result.pogony"))
    if minutes is not None:
        lines.append(t("result.duration", minutes=minutes))
    if not rated:
        lines.append(t("result.unrated"))
    elif ratings:
        lines.append("")
        for seat, (before, after) in sorted(ratings.items()):
            lines.append(
                t("result.rating", name=_name(names, seat), before=f"{before:.1f}", after=f"{after:.1f}")
            )
    if reveal is not None:
        salt, deck = reveal
        lines.append("")
        lines.append(t("result.reveal", salt=salt, deck=deck, hash=seal(salt, deck)))
    return _fit(lines)


def replay_lines(deal: Game, actions: Sequence[tuple[int, str]], names: Sequence[str], t: Text) -> list[str]:
    """A whole game in words, move by move, from its deal and its log: bouts, leads, covers, takes,
    transfers and draws (how many cards, never which)."""
    game = deal.copy()
    lines = [t("replay.bout", n=1, lead=_name(names, game.lead), defender=_name(names, game.defender))]
    for seat, action in actions:
        for event in act(game, seat, action).events:
            if event.kind is EventKind.BOUT:
                lines.append(
                    t(
                        "replay.bout",
                        n=event.count + 1,
                        lead=_name(names, event.seat),
                        defender=_name(names, event.target),
                    )
                )
            elif event.kind is EventKind.DREW:
                lines.append(t.plural("replay.drew", event.count, name=_name(names, event.seat)))
            elif (line := event_line(event, names, t)) is not None:
                lines.append(line)
    return lines


def chunks(lines: Sequence[str], limit: int = MAX_TEXT - 96) -> list[str]:
    """Lines packed into messages within Telegram's limit."""
    out: list[str] = []
    current = ""
    for line in lines:
        if current and len(current) + len(line) + 1 > limit:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line[:limit]
    if current:
        out.append(current)
    return out


def _fit(lines: list[str], optional: Sequence[int] = ()) -> str:
    """The lines as one message within Telegram's limit. Names are cut, so the messages drawn here fit; if
    one still would not, the ``optional`` lines go first, from the last, and only then the text's tail."""
    keep = list(lines)
    text = "\n".join(keep)
    for index in sorted(optional, reverse=True):
        if shown_length(text) <= MAX_TEXT:
            break
        del keep[index]
        text = "\n".join(keep)
    if shown_length(text) <= MAX_TEXT:
        return text
    plain = html.unescape(re.sub(r"<[^>]*>", "", text))  # cut as plain text: tags cut in half do not parse
    return html.escape(plain[: MAX_TEXT - 1]) + "…"
