"""Leaderboards and personal statistics: pure rendering to text and page buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import GAME_TYPES, BoardPress, BoardScope, encode
from bot.i18n import Text
from bot.render.group import rating, short
from engine.options import GameType
from storage.records import Leader, PlayerStats, Reliability
from storage.seasons import shift
from storage.series import HeadToHead

PAGE = 10
MIN_GAMES = 3  # games a player needs to appear on a leaderboard


def board_text(
    leaders: Sequence[Leader], t: Text, *, game_type: GameType, scope: BoardScope, page: int, season: str = ""
) -> str:
    """A leaderboard page: by rating, or (``season``) by the season's points."""
    variant = t(f"variant.{game_type}")
    if season:
        title = t("top.title_season", season=t.season(season, inline=True), variant=variant)
    else:
        title = t("top.title_global" if scope == "g" else "top.title_chat", variant=variant)
    lines = [f"<b>{title}</b>", ""]
    if not leaders:
        empty = t("top.empty_season") if season else t.plural("top.empty", MIN_GAMES)
        lines.append(empty if page == 0 else t("top.no_more"))
    lines.extend(leader_line(leader, t, season=bool(season)) for leader in leaders)
    return "\n".join(lines)


def leader_line(leader: Leader, t: Text, *, season: bool) -> str:
    """ "1. Ann — 1532 · 12 games", or on a season's board "1. Ann — 42 points · 12 games"."""
    name, games = short(leader.name or t("forget.former")), t.plural("stats.games", leader.games)
    if season:
        points = t.plural("season.points", round(leader.rating))
        return t("top.season_line", rank=leader.rank, name=name, points=points, games=games)
    return t("top.line", rank=leader.rank, name=name, rating=str(rating(leader.rating)), games=games)


def board_keyboard(
    t: Text,
    *,
    game_type: GameType,
    scope: BoardScope,
    page: int,
    more: bool,
    season: str = "",
    current: str | None = None,
) -> InlineKeyboardMarkup:
    """Game types, pages, and where the group has seasons (``current``, the season now): the season before
    and after the one shown, and all time."""

    def press(label: str, kind: GameType, to_page: int, to_season: str = season) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=encode(BoardPress(scope, kind, to_page, to_season)))

    switch = [
        press(("• " if kind == game_type else "") + t(f"variant.{kind}"), kind, 0) for kind in GAME_TYPES
    ]
    pages = []
    if page > 0:
        pages.append(press(t("top.previous"), game_type, page - 1))
    if more:
        pages.append(press(t("top.next"), game_type, page + 1))
    rows = [switch, pages] if pages else [switch]
    if current is not None and season:
        seasons = [press("◀ " + t.season(shift(season, -1)), game_type, 0, shift(season, -1))]
        if season < current:
            seasons.append(press(t.season(shift(season, 1)) + " ▶", game_type, 0, shift(season, 1)))
        rows.append(seasons)
        rows.append([press(t("top.all_time"), game_type, 0, "")])
    elif current is not None:
        rows.append(
            [press(t("top.this_season", season=t.season(current, inline=True)), game_type, 0, current)]
        )
    return InlineKeyboardMarkup(rows)


def stats_text(
    name: str,
    here: Sequence[PlayerStats],
    everywhere: Sequence[PlayerStats],
    t: Text,
    reliability: Reliability | None = None,
    season: tuple[str, Mapping[str, Leader]] | None = None,
) -> str:
    """``reliability``: how the player's recent games in this group ended for them; ``season``: the group's
    current season, and the player's line on its board per game type (where they played in it)."""
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
            if rows is here and season is not None and (line := season[1].get(s.game_type)) is not None:
                points = t.plural("season.points", round(line.rating))
                lines.append(
                    t("stats.season", season=t.season(season[0], inline=True), points=points, rank=line.rank)
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


def versus_text(you: str, them: str, record: HeadToHead, t: Text) -> str:
    """Your record against another player in this group (/stats in reply to them)."""
    names = {"you": short(you), "them": short(them)}
    if not record.games:
        return t("stats.versus_none", **names)
    return t(
        "stats.versus",
        games=record.games,
        wins=record.wins,
        losses=record.losses,
        durak=record.durak,
        their_durak=record.their_durak,
        **names,
    )
