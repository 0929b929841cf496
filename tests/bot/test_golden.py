"""Golden messages: what one fixed game looks like in each language (lobby, table, hand, result, end screen,
/top, /stats, /help), reviewed once and compared on every run, so that a wording change is always deliberate.

After an intended change, write them anew and read the diff:
    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/bot/test_golden.py
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import LANGUAGES, texts
from bot.render.group import call_line, event_line, seat_names, table_text
from bot.render.hand import Clock, hand_over, hand_text
from bot.render.keyboard import hand_keyboard
from bot.render.lobby import lobby_keyboard, lobby_text
from bot.render.result import result_text, summary_text
from bot.render.settings_menu import group_menu
from bot.render.standings import board_keyboard, board_text, stats_text
from bot.seasons import podium_text
from engine import Game, Options, Variant
from engine.events import QUIET, Event
from engine.views import view
from storage.records import Chat, Leader, Reliability
from tests.bot.test_render import STATS
from tests.engine.helpers import card, do, position

GOLDEN = Path(__file__).parent / "golden"
PLAYERS = ["Маша", "Олена", "Sam"]


# How a button shows on a current client: its colour (Bot API 9.4), and ( ) for one that does nothing (10.3).
COLOURS = {"danger": "🟥", "success": "🟩", "primary": "🟦"}


def labels(markup: InlineKeyboardMarkup) -> str:
    def shown(b: InlineKeyboardButton) -> str:
        label = f"{COLOURS[b.style]} {b.text}" if b.style else b.text
        return f"({label})" if (b.api_kwargs or {}).get("disabled") else f"[{label}]"

    return "\n".join(" | ".join(shown(b) for b in row) for row in markup.inline_keyboard)


def rendered(language: str) -> str:
    t = texts(language)
    options = Options(variant=Variant.TRANSFER)
    names = seat_names([*PLAYERS, "🤖 4"], [False, False, False, True], t)
    parts: list[tuple[str, str]] = []
    parts.append(("lobby", lobby_text(options, names[0], names, t, bots=True)))
    parts.append(("lobby buttons", labels(lobby_keyboard(1, t))))
    parts.append(("options", labels(lobby_keyboard(1, t, editing=True, options=options))))
    rng = random.Random(2024)
    game = Game.deal(options, 4, rng=rng)
    recent: list[Event] = []
    for _ in range(9):  # a few moves into the game: a bout under way
        seat = game.to_act()[0]
        applied = game.apply(seat, rng.choice(game.legal_moves(seat)))
        recent.extend(e for e in applied.events if e.kind not in QUIET)
    lines = [line for e in recent[-4:] if (line := event_line(e, names, t))]
    table = table_text(view(game), names, t, seconds_left=20, recent=lines, commitment="ab" * 32)
    parts.append(("table", table))
    called = call_line([(7, PLAYERS[0]), (8, PLAYERS[2])], t)
    parts.append(("table calling whoever must move, the bot no admin", table + "\n\n" + called))
    for seat in range(3):
        v = view(game, seat)
        clock = Clock(8, warning=True, misses=1, limit=3) if seat in v.to_act else None
        last = next((e for e in reversed(recent) if e.seat != seat), None)
        parts.append((f"hand {seat}", hand_text(v, names, t, "Друзі & friends", clock=clock, last=last)))
        parts.append((f"hand {seat} buttons", labels(hand_keyboard(v, 1, t))))
        if seat == 0:
            asking = hand_text(v, names, t, "Друзі & friends", conceding=True)
            parts.append(("conceding", asking + "\n" + labels(hand_keyboard(v, 1, t, conceding=True))))
    # A defender's every choice: covers (one card beats both attack cards: which, in a second step), a
    # transfer, Take; and a seat a bot plays.
    defending = position(["7s 7c 9d", "8s 7h 6h Ts", "Js Qs"], talon="Kc Ah", variant=Variant.TRANSFER)
    do(defending, 0, "l7s7c")
    defender = view(defending, 1)
    parts.append(("a defender's hand", hand_text(defender, names, t, "Друзі & friends")))
    parts.append(("a defender's buttons", labels(hand_keyboard(defender, 1, t))))
    parts.append(("a cover to pick", labels(hand_keyboard(defender, 1, t, selected=card("6h")))))
    defending.take_over(2)
    parts.append(("a seat a bot plays", labels(hand_keyboard(view(defending, 2), 1, t))))
    while not game.over:
        seat = rng.choice(game.actors())
        game.apply(seat, rng.choice(game.legal_moves(seat)))
    assert game.result is not None
    ratings = {0: (0.0, 1.6), 1: (0.0, -1.2), 2: (2.5, 2.9)}
    parts.append(
        ("result", result_text(game.result, names, t, rated=True, ratings=ratings, minutes=7, game_id=42))
    )
    parts.append(("table, over in a tidy chat", summary_text(view(game), names, t, minutes=7, game_id=42)))
    for seat in range(3):
        end = hand_over(view(game, seat), names, t, "Друзі", rating=ratings[seat], link="https://t.me/c/1/2")
        parts.append((f"end {seat}", end))
    leaders = [
        Leader(rank=i + 1, user_id=i, name=n, rating=8.0 - 3 * i, games=3 + i) for i, n in enumerate(PLAYERS)
    ]
    parts.append(("/top", board_text(leaders, t, game_type="transfer", scope="c", page=0)))
    parts.append(("/top empty", board_text([], t, game_type="throw_in", scope="g", page=0)))
    # The statistics test_render checks, seen here as a player reads them.
    stats = STATS.model_copy(update={"game_type": "transfer", "average_place": 1.75, "rating": 6.4})
    new = stats.model_copy(update={"games": 2, "rank": None})
    parts.append(("/stats", stats_text("Маша", [new], [stats], t)))
    ended = Reliability(games=20, left=2, timed_out=1, kicked=1)
    parts.append(("/stats, how recent games ended", stats_text("Маша", [new], [stats], t, ended)))
    parts.append(
        (
            "/stats, one game",
            stats_text("Маша", [new], [stats], t, Reliability(games=1, left=0, timed_out=0, kicked=0)),
        )
    )
    parts.append(("lobby, a player who walks away", lobby_text(options, names[0], names[:2], t, walked=[1])))
    forum = Chat(
        id=-1, type="supergroup", is_forum=True, opens="admins", tables_per="group", default_options=options
    )
    menu, buttons = group_menu(t, forum)
    parts.append(("/settings", menu))
    parts.append(("/settings buttons", labels(buttons)))
    parts.append(("/settings, the bot an admin", group_menu(t, forum, deletes=True, admin=True)[0]))
    parts.append(("hello, the bot added to a group", t("alert.hello")))
    parts.append(("🃏 My cards on a server without ephemeral messages", t("alert.no_group_cards")))
    parts.append(("opening refused", t("alert.admins_open") + "\n" + t("alert.one_table")))
    parts.append(("a move answered on a full token", t("alert.busy")))
    points = [
        Leader(rank=i + 1, user_id=i, name=n, rating=21.0 - 9 * i, games=12 - i)
        for i, n in enumerate(PLAYERS)
    ]
    season_board = board_text(points, t, game_type="throw_in", scope="c", page=0, season="2026-12")
    parts.append(("/top, a season", season_board))
    keyboard = board_keyboard(
        t, game_type="throw_in", scope="c", page=0, more=False, season="2026-11", current="2026-12"
    )
    parts.append(("/top, a season's buttons", labels(keyboard)))
    parts.append(
        ("/top, a quarter", board_text([], t, game_type="transfer", scope="c", page=0, season="2026-Q4"))
    )
    parts.append(("season over", podium_text("2026-12", {"throw_in": points, "transfer": points[:1]}, t)))
    mine = {"transfer": points[1]}
    parts.append(("/stats in a season", stats_text("Маша", [new], [stats], t, None, ("2026-12", mine))))
    parts.append(("/help", t("help.text")))
    return "".join(f"===== {title}\n{text}\n" for title, text in parts)


@pytest.mark.parametrize("language", LANGUAGES)
def test_messages_read_as_reviewed(language: str) -> None:
    path = GOLDEN / f"{language}.txt"
    text = rendered(language)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, (
        f"{path.name} differs: UPDATE_GOLDEN=1 and review the diff"
    )
