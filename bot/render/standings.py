"""Leaderboards and personal statistics: pure rendering to text and page buttons."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import GAME_TYPES, BoardPress, BoardScope, encode
from bot.i18n import Text
from bot.render.group import rating, short
from engine.options import GameType
from storage.records import Leader, PlayerStats, Reliability

PAGE = 10
MIN_GAMES = 3  # games a player needs to appear on a leaderboard


def board_text(
    leaders: Sequence[Leader], t: Text, *, game_type: GameType, scope: BoardScope, page: int
) -> str:
    title = t("top.title_global" if scope == "g" else "top.title_chat", variant=t(f"variant.{game_type}"))
    lines = [f"<b>{title}</b>", ""]
    if not leaders:
        lines.append(t.plural("top.empty", MIN_GAMES) if page == 0 else t("top.no_more"))
    for leader in leaders:
        lines.append(
            t(
                "top.line",
                rank=leader.rank,
                name=short(leader.name or t("forget.former")),
                rating=str(rating(leader.rating)),
                games=t.plural("stats.games", leader.games),
            )
        )
    return "\n".join(lines)


def board_keyboard(
    t: Text, *, game_type: GameType, scope: BoardScope, page: int, more: bool
) -> InlineKeyboardMarkup:
    def press(label: str, kind: GameType, to_page: int) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=encode(BoardPress(scope, kind, to_page)))

    switch = [
        press(("• " if kind == game_type else "") + t(f"variant.{kind}"), kind, 0) for kind in GAME_TYPES
    ]
    pages = []
    if page > 0:
        pages.append(press(t("top.previous"), game_type, page - 1))
    if more:
        pages.append(press(t("top.next"), game_type, page + 1))
    return InlineKeyboardMarkup([switch, pages] if pages else [switch])


def stats_text(
    name: str,
    here: Sequence[PlayerStats],
    everywhere: Sequence[PlayerStats],
    t: Text,
    reliability: Reliability | None = None,
) -> str:
    """``reliability``: how the player's recent games in this group ended for them."""
    lines = [f"<b>{t('stats.title', name=short(name))}</b>"]
    if not everywhere:
        lines.append(t("stats.none"))
    for label, rows in ((t("stats.here"), here), (t("stats.everywhere"), everywhere)):
        if not rows:
            continue
        lines.append("")
        lines.append(f"<i>{label}</i>")
        if rows is here and reliability is not None:
            lines.append(reliability_line(reliability, t))
        for s in rows:
            lines.append(f"{t('variant.' + s.game_type)}: " + t.plural("stats.games", s.games))
            lines.append(
                t(
                    "stats.line",
                    wins=t.number(s.wins),
                    durak=t.number(s.durak),
                    draws=t.number(s.draws),
                    pogony=t.number(s.pogony),
                    place=t.number(s.average_place, 2),
                )
            )
            if s.rating is not None and s.rank is not None and s.games >= MIN_GAMES:
                lines.append(t("stats.rating", rating=str(rating(s.rating)), rank=s.rank))
            elif s.rating is not None:  # a rank only where /top shows the player
                lines.append(
                    t(
                        "stats.provisional",
                        rating=str(rating(s.rating)),
                        games=t.plural("stats.games", MIN_GAMES),
                    )
                )
    return "\n".join(lines)


def reliability_line(r: Reliability, t: Text) -> str:
    """ "Played to the end: 18 of the last 20 games (left: 1 · out of time: 1)"."""
    line = t.plural("stats.finished", r.games, finished=t.number(r.finished))
    gone = [
        t(f"stats.{why}", n=t.number(n))
        for why, n in (("left", r.left), ("timed_out", r.timed_out), ("kicked", r.kicked))
        if n
    ]
    return f"{line} ({' · '.join(gone)})" if gone else line
