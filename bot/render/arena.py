"""An arena's one message in the group and its podium (pure): the standings, each game in play in one line
(who against whom, cards left, whose move), and the buttons to join, leave, go berserk, come back and see
one's cards (docs/groups.md, "Game night")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.arena.standings import Standing, podium, standings
from bot.callbacks import ArenaAction, ArenaPress, encode
from bot.i18n import Text
from bot.render.group import short
from bot.render.keyboard import DANGER, SUCCESS
from bot.render.lobby import summary
from storage.records import ArenaRow

BOARD_SHOWN = 20  # players on the board; the rest are counted
MARKS_SHOWN = 8  # a player's last games' points shown beside their score
MEDALS = ("🥇", "🥈", "🥉")
MARKS = {"paused": " ⏸", "left": " 🚪"}


@dataclass(frozen=True, slots=True)
class GameLine:
    """A game of the arena in play: each seat's (name, cards in hand), and whose move it is (seats)."""

    seats: tuple[tuple[str, int], ...]
    to_move: tuple[int, ...]


def arena_text(
    row: ArenaRow,
    games: Sequence[GameLine],
    name: Callable[[int], str],
    t: Text,
    *,
    now: float,
) -> str:
    """The arena as the group sees it now; ``name`` gives each player's name (unescaped)."""
    lines = [f"<b>{t(f'arena.title_{row.size}')}</b>", t("arena.by", name=short(name(row.creator_id)))]
    # The seats are the title's ("one on one"); the rest as a lobby says them.
    lines.extend(f"· {line}" for line in summary(row.options.model_copy(update={"seats": None}), t))
    if row.finished:
        lines.append(t("arena.over"))
    elif now >= row.ends_at:
        lines.append(t("arena.closing"))
    else:
        lines.append(t.plural("arena.ends_in", max(1, round((row.ends_at - now) / 60))))
    lines.append("")
    board = standings(row)
    if board:
        lines.append(t("arena.board"))
        lines.extend(_standing(i, s, name, t) for i, s in enumerate(board[:BOARD_SHOWN]))
        if len(board) > BOARD_SHOWN:
            lines.append(t("arena.more", count=len(board) - BOARD_SHOWN))
    else:
        lines.append(t("arena.nobody"))
    if games:
        lines.append("")
        lines.append(t("arena.games"))
        lines.extend(_game(g, t) for g in games)
    if not row.finished:
        lines.append("")
        lines.append(t("arena.legend"))
        lines.append(t("arena.hint"))
    return "\n".join(lines)


def _standing(i: int, s: Standing, name: Callable[[int], str], t: Text) -> str:
    marks = (" 🔥" if s.on_fire else "") + (" ⚔️" if s.berserk else "") + MARKS.get(s.state, "")
    games = ("… " if len(s.marks) > MARKS_SHOWN else "") + " ".join(str(p) for p in s.marks[-MARKS_SHOWN:])
    shown = f" · {games}" if s.marks else ""
    return f"{i + 1}. {short(name(s.user_id))} — <b>{s.points}</b>{shown}{marks}"


def _game(game: GameLine, t: Text) -> str:
    seats = " – ".join(f"{short(n)} ({cards})" for n, cards in game.seats)
    movers = ", ".join(short(game.seats[s][0]) for s in game.to_move if s < len(game.seats))
    return f"• {seats}" + (f" · {t('arena.to_move', names=movers)}" if movers else "")


def arena_keyboard(row: ArenaRow, t: Text, *, closing: bool) -> InlineKeyboardMarkup | None:
    """Join and Leave, Berserk and "I'm back", and 🃏 My cards; only My cards once its time is up (its games
    still play), nothing once it is over."""
    if row.finished:
        return None

    def button(label: str, action: ArenaAction, style: str | None = None) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=encode(ArenaPress(row.id, action)), style=style)

    cards = [button(t("table.my_cards"), "cards")]
    if closing:
        return InlineKeyboardMarkup([cards])
    return InlineKeyboardMarkup(
        [
            [button(t("arena.join"), "join", SUCCESS), button(t("arena.leave"), "leave", DANGER)],
            [button(t("arena.berserk"), "berserk"), button(t("arena.back"), "back")],
            cards,
        ]
    )


def podium_text(row: ArenaRow, name: Callable[[int], str], t: Text) -> str:
    """The podium, posted once when the arena is over."""
    lines = [f"<b>{t('arena.podium')}</b>"]
    top = podium(row)
    for medal, s in zip(MEDALS, top, strict=False):
        lines.append(f"{medal} {short(name(s.user_id))} — {t.plural('arena.points', s.points)}")
    if not top:
        lines.append(t("arena.no_games"))
    games = len({g.table_id for g in row.games if g.base is not None})
    lines.append(t.plural("arena.played", games))
    return "\n".join(lines)
