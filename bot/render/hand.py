"""A player's hand message: what just happened to them, the table in short, the hand, what is asked of them,
and buttons for exactly their legal moves (pure, from that seat's view only). The prompt and the keyboard come
from the same list of choices, so they never disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import Text
from bot.render.faces import card_list, face, hand_line, pairs, suit_face, suit_groups, team_mark
from bot.render.group import NAME_LENGTH, fit, name_of, rating_change, short
from engine.cards import RANKS, rank, suit
from engine.events import Event, EventKind
from engine.moves import Kind, kind
from engine.views import View

# The order choices are named in and their buttons' rows: cards first, Take and Pass last, on a row of their own.
CHOICE_ORDER = (Kind.LEAD, Kind.THROW_IN, Kind.COVER, Kind.TRANSFER, Kind.SHOW_TRUMP, Kind.TAKE, Kind.PASS)


@dataclass(frozen=True, slots=True)
class Clock:
    """The seat's own timer, as drawn: seconds left, and whether running out counts as a missed move."""

    seconds: int
    warning: bool = False  # close to a timeout that counts: say so
    misses: int = 0  # missed moves in a row so far
    limit: int = 3  # missed moves after which a bot takes the seat


def choice_key(k: Kind, view: View) -> str:
    """The text key naming a choice. Saying you are done is «Пас» after "Take" but «Бито» once every card is
    covered: two words, one move."""
    if k == Kind.PASS and not view.taking:
        return "choice.done"
    return f"choice.{k.name.lower()}"


def choices(view: View) -> list[Kind]:
    """The kinds of move the seat may make now, in the order they are named and shown."""
    present = {kind(m) for m in view.moves}
    return [k for k in CHOICE_ORDER if k in present]


def hand_text(
    view: View,
    names: Sequence[str],
    t: Text,
    chat_title: str,
    *,
    selected: int | None = None,
    clock: Clock | None = None,
    last: Event | None = None,
    conceding: bool = False,
) -> str:
    """A player's private hand message while the game is on (``conceding``: asking to confirm a concession)."""
    assert view.seat is not None
    seat = view.seat
    lines = [f"<b>{t('hand.title', chat=short(chat_title, 2 * NAME_LENGTH))}</b>"]
    news = _news(view, names, t, last)
    if news:
        lines.append(news)
    top = []
    if view.trump_card is not None:
        top.append(t("table.trump", card=face(view.trump_card)))
    top.append(t("table.talon", count=view.talon))
    lines.append(" · ".join(top))
    others = [
        f"{team_mark(view, info.seat)}{name_of(names, info.seat)}: {info.cards}"
        for info in view.seats
        if info.seat != seat and info.place is None
    ]
    lines.append(" · ".join(others))
    partners = [s.seat for s in view.seats if s.team == view.seats[seat].team and s.seat != seat]
    if view.options.teams and partners:
        lines.append(t("hand.partner", names=", ".join(name_of(names, p) for p in partners)))
    lines.extend(pairs(view.table))
    lines.append(t("hand.your_hand", cards=hand_line(view.hand, view.trump) or "—"))
    lines.append("")
    prompt = t("hand.concede_ask") if conceding else prompt_line(view, names, t, selected)
    if clock is not None and seat in view.to_act:  # the clock runs on while a concession is confirmed
        prompt = f"⏳ {t('hand.seconds', seconds=clock.seconds)} · {prompt}"
    lines.append(prompt)
    if clock is not None and clock.warning:
        lines.append(t("hand.warning", seconds=clock.seconds, count=clock.misses + 1, limit=clock.limit))
    return fit(lines)


def hand_closed(t: Text, chat_title: str, ended: str) -> str:
    """A hand message once its table ended: no buttons, and how it ended for this player."""
    return f"<b>{t('hand.title', chat=short(chat_title, 2 * NAME_LENGTH))}</b>\n{ended}"


def _news(view: View, names: Sequence[str], t: Text, last: Event | None) -> str | None:
    """The last thing another player did, told to this player ("Alice leads 6♣ on you")."""
    if last is None or last.seat == view.seat:
        return None
    name = name_of(names, last.seat)
    if last.kind in (EventKind.LED, EventKind.THREW_IN) and view.defender == view.seat:
        return t(f"news.{last.kind.value}_on_you", name=name, cards=card_list(last.cards))
    if last.kind in (EventKind.TRANSFERRED, EventKind.SHOWED_TRUMP) and last.target == view.seat:
        return t(f"news.{last.kind.value}_to_you", name=name, cards=card_list(last.cards))
    return None


def prompt_line(view: View, names: Sequence[str], t: Text, selected: int | None) -> str:
    seat = view.seat
    assert seat is not None
    info = view.seats[seat]
    if info.place is not None:
        return t("hand.out", place=info.place)
    if seat in view.conceded:
        return t("hand.conceded")
    if info.auto:
        return t("hand.auto")
    if selected is not None:
        return t("hand.choose_attack", card=face(selected))
    found = choices(view)
    if not found:
        return _waiting(view, names, t)
    if found == [Kind.TAKE] and seat == view.defender:
        return t("hand.nothing_beats")  # not "you defend: take the cards"
    defender = name_of(names, view.defender)
    if Kind.LEAD in found:
        role = t("hand.role_lead", name=defender)
    elif seat == view.defender:
        role = t("hand.role_defend")
    elif view.taking:
        role = t("hand.role_taking", name=defender)
    else:
        role = t("hand.role_attack", name=defender)
    target = name_of(names, view.transfer_target)
    said = [t(choice_key(k, view), name=target) for k in found]
    if Kind.PASS not in found and seat not in view.to_act:  # throw-ins while the defender still covers
        said.append(t("choice.wait"))
    return f"{role}: {t.join(said)}."


def _waiting(view: View, names: Sequence[str], t: Text) -> str:
    """Nothing to do now: for whom this player waits, and why."""
    seat = view.seat
    assert seat is not None
    if not view.to_act:
        return t("hand.wait_end")
    them = ", ".join(name_of(names, s) for s in view.to_act)
    own = view.seats[seat].team
    if view.options.teams and view.seats[view.defender].team == own and view.defender != seat:
        return t("hand.partner_defends", name=name_of(names, view.defender), names=them)
    return t("hand.wait_for", names=them)


def discard_text(view: View, t: Text) -> str:
    """The discard pile as this seat saw it go (docs/rules.md §4.7), grouped by suit: short enough for an
    alert (200 characters, even with all 52 cards)."""
    if not view.seen:
        return t("discard.empty")
    lines = [t("discard.title", count=len(view.seen))]
    for group in suit_groups(view.seen, -1):
        lines.append(suit_face(suit(group[0])) + " " + " ".join(RANKS[rank(c)] for c in group))
    return "\n".join(lines)


def hand_over(
    view: View,
    names: Sequence[str],
    t: Text,
    chat_title: str,
    *,
    rating: tuple[float, float] | None = None,
    link: str | None = None,
    arena: bool = False,
) -> str:
    """The hand message once the game is over: how it ended for this player, their rating, and where the
    result is (an arena's game: its points on the arena's board)."""
    seat = view.seat
    result = view.result
    assert seat is not None and result is not None
    lines = [f"<b>{t('hand.title', chat=short(chat_title, 2 * NAME_LENGTH))}</b>"]
    if result.draw:
        lines.append(t("end.draw"))
    elif view.options.teams:
        lines.append(t("end.team_lost" if result.lost(seat) else "end.team_won"))
    elif result.lost(seat):
        lines.append(t("end.durak"))
    else:
        lines.append(t("end.place", place=result.places[seat], players=view.players))
    if result.durak is not None and result.durak != seat:
        lines.append(t("result.durak", name=name_of(names, result.durak)))
    if rating is not None:
        lines.append(t("end.rating", **rating_change(*rating, t)))
    chat = short(chat_title, 2 * NAME_LENGTH)
    lines.append(
        t("end.in_arena", chat=chat)
        if arena
        else t("end.link", link=link)
        if link
        else t("end.in_group", chat=chat)
    )
    return fit(lines)
