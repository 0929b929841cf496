"""A group's arena through the real PTB stack and the fake Bot API, Telegram's limits enforced (docs/groups.md,
"Game night"): eight players paired as they come free, a berserk, a streak, a leaver and a player who timed
out (a bot sat in for them), and the points checked against the stored results, scored here on their own."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.callbacks import ArenaPress, ConcedePress, encode
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import FakeTelegram, Message, RateLimits
from tests.bot.players import GROUP, hand_message, move_choices, press_and_wait, welcome

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gil", "Hal"]
ANN, LEAVER, ABSENT = 1, 7, 8


@pytest.fixture
async def limited(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot against a fake that answers 429 past Telegram's limits (scaled as the bot's)."""
    async for h in running(tmp_path, fake=FakeTelegram(limits=RateLimits(scale=0.01))):
        yield h


def arena_message(fake: FakeTelegram) -> Message | None:
    return next((m for m in fake.bot_messages(GROUP) if "🏟 Arena" in m.text), None)


def scored_by_hand(results: list[tuple[float, int, int, bool, bool, bool]]) -> dict[int, int]:
    """Points from the stored results, (finished, user, place, lost, drawn, berserk) each: first place 2, a
    draw or a middle place 1, a loss 0; after two wins in a row a game counts double until one is not a win;
    a berserk win a point more."""
    points: dict[int, int] = {}
    wins: dict[int, int] = {}
    for _, user, place, lost, drawn, berserk in sorted(results):
        base = 0 if lost else 2 if place == 1 and not drawn else 1
        got = base * 2 if wins.get(user, 0) >= 2 else base
        points[user] = points.get(user, 0) + got + (1 if berserk and base == 2 else 0)
        wins[user] = wins.get(user, 0) + 1 if base == 2 else 0
    return points


async def test_a_whole_arena_pairs_scores_pauses_and_posts_its_podium_within_telegrams_limits(
    limited: Harness,
) -> None:
    h, fake = limited, limited.fake
    service, storage = h.deps.service, h.deps.storage
    arenas = service.arenas
    arenas.minute = 10.0  # the two minutes run 20 seconds
    await welcome(h, NAMES)
    fake.send(ANN, GROUP, "/arena 2 2")
    message = await fake.wait_for(lambda: arena_message(fake), what="the arena")
    (arena_id,) = list(arenas.records)

    async def press(user: int, action: str) -> str:
        data = encode(ArenaPress(arena_id, action))  # type: ignore[arg-type]
        return str((await press_and_wait(fake, user, GROUP, message.message_id, data)).get("text", ""))

    assert "Berserk" in await press(ANN, "berserk")  # before her first deal
    for user in range(2, 9):
        assert "You're in" in await press(user, "join")
    rng, conceded, left, back_at = random.Random(11), set[int](), False, None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        row = await storage.arenas.get(arena_id)
        assert row is not None
        if row.finished:
            break
        games = {u: g for g in row.games if g.finished_at is None for u in [g.user_id]}
        if ANN in games and rng.random() < 0.3:  # Ann's game: her opponent gives up (a streak for her)
            table_id = games[ANN].table_id
            other = next(g.user_id for g in row.games if g.table_id == table_id and g.user_id != ANN)
            hand = hand_message(fake, other)
            if table_id not in conceded and other != ABSENT and hand is not None and hand.reply_markup:
                conceded.add(table_id)
                await press_and_wait(
                    fake, other, other, hand.message_id, encode(ConcedePress(table_id, "yes"))
                )
        if LEAVER in games and not left:
            left = "left the arena" in await press(LEAVER, "leave")
        absent = games.get(ABSENT)
        if absent is not None and back_at is None:  # nobody presses for Hal: his timer runs out, thrice
            live = service.table(absent.table_id)
            seat = live.seat_of(ABSENT) if live is not None else None
            if (
                live is not None
                and live.game is not None
                and seat in live.to_act()
                and not live.game.is_auto(seat)
            ):
                await service.timeout(live.id, live.game.version)
        player = next((p for p in row.players if p.user_id == ABSENT), None)
        if player is not None and player.state == "paused" and back_at is None:
            await asyncio.sleep(1.0)  # paused: nobody is paired with him meanwhile
            back_at = time.time()
            assert "Welcome back" in await press(ABSENT, "back")
        users = [u for u in range(1, 9) if u != ABSENT or back_at is not None]
        for user in rng.sample(users, len(users)):
            hand = hand_message(fake, user)
            choices = move_choices(hand.reply_markup) if hand is not None else []
            if hand is not None and choices:
                await press_and_wait(fake, user, user, hand.message_id, rng.choice(choices))
                break
        else:
            await asyncio.sleep(0.02)
    else:
        raise AssertionError("the arena never finished")

    # Points: scored here from the results the games stored, against the board's.
    rows = await storage.db.fetch_all(
        """SELECT r.finished_at, p.user_id, p.place, p.durak, p.drawn, s.berserk, t.id AS table_id
           FROM results AS r JOIN result_players AS p ON p.game_id = r.game_id
           JOIN games AS g ON g.id = r.game_id JOIN tables AS t ON t.id = g.table_id
           JOIN seats AS s ON s.table_id = t.id AND s.seat = p.seat WHERE t.arena_id = ?""",
        (arena_id,),
    )
    by_hand = scored_by_hand(
        [
            (
                r["finished_at"],
                r["user_id"],
                r["place"],
                bool(r["durak"]),
                bool(r["drawn"]),
                bool(r["berserk"]),
            )
            for r in rows
        ]
    )
    from bot.arena.standings import podium, standings

    board = {s.user_id: s.points for s in standings(row)}
    assert board == {u: by_hand.get(u, 0) for u in range(1, 9)}, (board, by_hand)
    ann = next(s for s in standings(row) if s.user_id == ANN)
    assert ann.wins >= 3 and any(p >= 4 for p in ann.marks)  # a streak: a win counted double
    assert any(r["berserk"] and r["user_id"] == ANN for r in rows)  # her first game, berserk
    # The leaver played the one game he was in, and was never paired again; Hal, paused, not until he was back.
    assert len([g for g in row.games if g.user_id == LEAVER]) == 1
    hal = sorted({g.table_id for g in row.games if g.user_id == ABSENT})
    created = {
        r["id"]: r["created_at"] for r in await storage.db.fetch_all("SELECT id, created_at FROM tables")
    }
    assert back_at is not None and len(hal) >= 2 and all(created[t] >= back_at for t in hal[1:])
    # Nobody sat at two games at once.
    spans: dict[int, list[tuple[float, float]]] = {}
    for g in row.games:
        assert g.finished_at is not None
        spans.setdefault(g.user_id, []).append((created[g.table_id], g.finished_at))
    for user, played in spans.items():
        played.sort()
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(played)), (user, played)
    # The group: one arena message, its podium once, no table message of the arena's games; never a 429.
    top = podium(row)
    await fake.wait_for(
        lambda: "The arena is over." in fake.messages[GROUP][message.message_id].text, what="the end"
    )
    posted = [m for m in fake.bot_messages(GROUP) if "The arena is over!" in m.text]
    assert len(posted) == 1 and all(f"— {s.points} points" in posted[0].text for s in top)
    await fake.wait_for(
        lambda: "The arena is over." in fake.messages[GROUP][message.message_id].text, what="the end"
    )
    assert not [m for m in fake.bot_messages(GROUP) if "Durak ·" in m.text]
    assert [s for s in fake.sent if s.error == 429] == [] and fake.too_early == []
