"""Rendering: pure functions from engine views to message text (HTML) and inline keyboards.

Nothing here talks to Telegram or reads the game: the group's message is drawn from the public view, a
player's hand message from that seat's view, so a hand can never reach the group by mistake. (A replay, which
must replay the game's log, is told by ``bot.render.replay``.)
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from bot.i18n import Text
from bot.render.faces import card_list, face, pairs, team_mark
from engine.events import QUIET, Event, EventKind
from engine.views import View

SEAL_SHOWN = 12  # hex digits of the deck's seal on the table: enough to compare, short on a phone
MAX_TEXT = 4096  # Telegram counts the text as shown, after the HTML is parsed (in UTF-16 code units)
NAME_LENGTH = 24  # a name is cut to this many characters wherever it is shown: a table fits six long names


def cut(name: str, limit: int = NAME_LENGTH) -> str:
    """A name (or a chat title) at most ``limit`` characters long."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def short(name: str, limit: int = NAME_LENGTH) -> str:
    """A name as shown in a message: cut, and HTML-escaped."""
    return html.escape(cut(name, limit))


def name_of(names: Sequence[str], seat: int) -> str:
    """A seat's name as shown: cut and escaped ("?" for no seat)."""
    return short(names[seat]) if 0 <= seat < len(names) else "?"


RATING_START, RATING_STEP = (
    1500,
    20,
)  # a rating as shown: 1500 + 20 × openskill's ordinal (μ − 3σ), docs/rating.md


def rating(ordinal: float) -> int:
    """The rating players see, on a familiar scale: everybody starts at 1500."""
    return round(RATING_START + RATING_STEP * ordinal)


def rating_change(before: float, after: float, t: Text) -> dict[str, str]:
    """The before, after and signed change of a rating, as shown, for a text's placeholders."""
    shown_before, shown_after = rating(before), rating(after)
    return {
        "before": str(shown_before),
        "after": str(shown_after),
        "change": t.signed(shown_after - shown_before),
    }


def bot_name(seat: int, t: Text) -> str:
    """A bot's name at a seat, in the reader's language (the robot says what it is)."""
    names = [n.strip() for n in t("bot.names").split(",")]
    return f"🤖 {names[seat % len(names)]}"


def seat_names(names: Sequence[str], bots: Sequence[bool], t: Text) -> list[str]:
    """The names of a table's seats as one reader sees them: players as they are, bots named in their
    language, a player who asked to be forgotten (no name) as a former player."""
    return [
        bot_name(seat, t) if bot else name or t("forget.former")
        for seat, (name, bot) in enumerate(zip(names, bots, strict=True))
    ]


def shown_length(text: str) -> int:
    """The length Telegram counts: tags dropped, entities read as one character, in UTF-16 code units."""
    plain = html.unescape(re.sub(r"<[^>]*>", "", text))
    return len(plain.encode("utf-16-le")) // 2


def event_line(event: Event, names: Sequence[str], t: Text) -> str | None:
    """One action in words, for the table message's recent lines; None for events not worth a line."""
    k = event.kind
    if k in QUIET:
        return None
    params: dict[str, object] = {"name": name_of(names, event.seat), "cards": card_list(event.cards)}
    if k is EventKind.COVERED:
        params.update(attack=face(event.cards[0]), cover=face(event.cards[1]))
    if k in (EventKind.TRANSFERRED, EventKind.SHOWED_TRUMP):
        params["target"] = name_of(names, event.target)
    return t(f"event.{k.value}", **params)


def call_line(called: Sequence[tuple[int, str]], t: Text) -> str:
    """Whose move it is, as mentions of (user id, name): where the bot may not send a player their hand by
    itself (it is not an administrator of the group), a mention in a new table message is what makes their
    phone sound."""
    names = ", ".join(f'<a href="tg://user?id={user}">{short(name)}</a>' for user, name in called)
    return t("table.call", names=names)


def opening_line(view: View, names: Sequence[str], t: Text) -> str:
    reason, card = view.opening
    return t(f"opening.{reason}", name=name_of(names, view.lead), card=face(card) if card is not None else "")


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
        trump = face(view.trump_card)
        holder = view.trump_card_seat
        lines.append(
            t("table.trump_held", card=trump, name=name_of(names, holder))
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
        lines.append(f"{pointer}{team_mark(view, info.seat)}{name_of(names, info.seat)} — {', '.join(marks)}")
    lines.append("")
    if view.table:
        lines.extend(pairs(view.table))
    elif view.result is None:
        lines.append(t("table.empty"))
    if view.result is None and view.to_act:
        waiting = t("table.to_move", names=", ".join(name_of(names, s) for s in view.to_act))
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
        lines.append(t("table.commitment", hash=commitment[:SEAL_SHOWN]))
    return fit(lines, optional)


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


def fit(lines: list[str], optional: Sequence[int] = ()) -> str:
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
