"""The end of a group's season: the group is shown the season's podium once (whichever process gets there
first marks it, storage.chats.tell_season), and only if it played a rated game that season. The boards
themselves are read from the results when asked (storage.results.season_board)."""

from __future__ import annotations

import logging

from bot.deps import Deps
from bot.i18n import Text
from bot.render.standings import leader_line
from storage.records import Leader
from storage.seasons import season_of, shift

log = logging.getLogger(__name__)

EVERY = 3_600.0  # seconds between two looks: a podium comes within the first hour of a season
MEDALS = ("🥇", "🥈", "🥉")  # the places shown


async def announce(d: Deps, now: float) -> int:
    """Show every group whose last season ended unannounced its podium; returns how many were shown."""
    shown = 0
    for chat in await d.storage.chats.with_seasons():
        ended = shift(season_of(now, chat.seasons), -1)
        if chat.season_told == ended:
            continue
        # Marked first, played or not: the one process that marks it tells it, and a group that did not
        # play is not asked again every hour of the new season.
        if not await d.storage.chats.tell_season(chat.id, ended):
            continue
        played = await d.storage.results.played_in(chat.id, ended)
        if not played:
            continue
        boards = {
            kind: await d.storage.results.season_board(chat.id, kind, ended, limit=len(MEDALS))
            for kind in played
        }
        await d.outbox.send(chat.id, podium_text(ended, boards, await d.presenter.group_text(chat.id)))
        log.info("chat %s: the podium of season %s shown", chat.id, ended)
        shown += 1
    return shown


def podium_text(season: str, boards: dict[str, list[Leader]], t: Text) -> str:
    """The season's end: its top three per game type played (at most one leader a medal), and that a new
    season begins."""
    lines = [t("season.over", season=t.season(season, inline=True))]
    for kind, leaders in boards.items():
        lines.append("")
        variant = t(f"variant.{kind}")
        lines.append(t("season.board", variant=variant[:1].upper() + variant[1:]))
        lines.extend(f"{MEDALS[leader.rank - 1]} {leader_line(leader, t, season=True)}" for leader in leaders)
    lines.append("")
    lines.append(t("season.next"))
    return "\n".join(lines)
