"""A group's arena through the real PTB stack and the fake Bot API, Telegram's limits enforced (docs/groups.md,
"Game night"): eight players paired as they come free, a berserk, a streak, a leaver and a player who timed
out (a bot sat in for them), and the points checked against the stored results, scored here on their own."""

from __future__ import annotations

import asyncio
import itertools
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.arena.standings import podium, standings
from bot.callbacks import ArenaPress, ConcedePress, encode
from storage import Storage
from tests.bot.conftest import Harness, running, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram, Message, RateLimits
from tests.bot.players import GROUP, hand_message, move_choices, press_and_wait, stored, welcome
from tests.bot.test_outbox import most_in_a_window
from tests.bot.test_stop import bot_process, stop

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
    arenas.minute = 5.0  # the two minutes run 10 seconds
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
            # The arena's message takes the group's pace, not its whole budget: a reply still gets through.
            asked = fake.send(2, GROUP, "/help")
            assert "/arena" in (await fake.answer_to(GROUP, asked)).text
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
    assert len([m for m in fake.bot_messages(GROUP) if "🏟 Arena" in m.text]) == 1
    assert [s for s in fake.sent if s.error == 429] == [] and fake.too_early == []
    group = [s.at for s in fake.sent if s.ok and s.chat_id == GROUP and s.receiver is None]
    assert most_in_a_window(group, 60 * 0.01) <= 20  # the group's budget, as the bot's tests scale it


async def press_a_move(fake: FakeTelegram, users: list[int], rng: random.Random) -> bool:
    """One player whose private hand shows a move presses one at random."""
    for user in rng.sample(users, len(users)):
        hand = hand_message(fake, user)
        choices = move_choices(hand.reply_markup) if hand is not None else []
        if hand is not None and choices:
            await press_and_wait(fake, user, user, hand.message_id, rng.choice(choices))
            return True
    return False


async def welcome_group(fake: FakeTelegram, names: list[str]) -> None:
    fake.add_group(GROUP, "Friends")
    for user, name in enumerate(names, 1):
        fake.add_user(user, name)
        fake.send(user, user, "/start")
    await fake.wait_for(lambda: all(fake.last(u) for u in range(1, len(names) + 1)), what="welcomes")


async def midway(db: Path) -> bool:
    """A game of the arena has ended and another is in play."""
    with sqlite3.connect(db) as conn:
        ended, playing = conn.execute(
            "SELECT COUNT(finished_at), COUNT(*) - COUNT(finished_at) FROM arena_games"
        ).fetchone()
    return bool(ended and playing)


async def finished(db: Path) -> bool:
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT status FROM arenas WHERE id = 1").fetchone()
    return bool(found == ("finished",))


async def test_a_kill_and_a_restart_mid_arena_change_no_score_and_the_arena_goes_on(tmp_path: Path) -> None:
    """``python -m bot`` killed (SIGKILL) while an arena's games are in play, and started again: every game
    that had ended counts as it did, the games in play come back and count once, and the arena ends with
    its podium."""
    fake = FakeTelegram()
    runner, port = await fake.serve()
    db = tmp_path / "arena.sqlite3"
    env = {"ARENA_MINUTE": "3", "GROUP_REDRAW_INTERVAL": "0.3", "LOG_LEVEL": "WARNING"}
    rng = random.Random(5)

    async def scores(finished: set[int] | None = None) -> tuple[dict[int, int], set[int]]:
        """The board from the database, counting only the games in ``finished`` (all ended ones if None)."""
        storage = await Storage.open(db)
        try:
            row = await storage.arenas.get(1)
        finally:
            await storage.close()
        assert row is not None
        ended = {g.table_id for g in row.games if g.finished_at is not None}
        kept = row.model_copy(
            update={"games": tuple(g for g in row.games if g.table_id in (finished or ended))}
        )
        return {s.user_id: s.points for s in standings(kept)}, ended

    async def play(until: Callable[[], Awaitable[bool]]) -> None:
        while not await until():
            if not await press_a_move(fake, [1, 2], rng):
                await asyncio.sleep(0.05)

    bot = await bot_process(port, db, env)
    try:
        await fake.wait_for(lambda: fake.commands, timeout=60, what="the bot to start")
        await welcome_group(fake, NAMES[:2])
        fake.send(ANN, GROUP, "/arena 2 2")
        message = await fake.wait_for(lambda: arena_message(fake), what="the arena")
        for user in (2,):
            await press_and_wait(fake, user, GROUP, message.message_id, encode(ArenaPress(1, "join")))
        # Played until a game has ended while another is in play (only the players here press: nothing
        # changes between this look and the kill).
        await play(lambda: midway(db))
        bot.kill()
        await bot.wait()
        before, ended = await scores()
        bot = await bot_process(port, db, env)
        await play(lambda: finished(db))
        after, _ = await scores(ended)
        assert after == before  # what had counted counts the same
        with sqlite3.connect(db) as conn:  # every game counted, once (a row a player and game), with points
            rows = conn.execute(
                """SELECT t.status, g.base, g.finished_at FROM arena_games AS g JOIN tables AS t ON t.id = g.table_id"""
            ).fetchall()
        assert rows and all(f is not None and (b is not None) == (s == "finished") for s, b, f in rows), rows
        await fake.wait_for(
            lambda: any("The arena is over!" in m.text for m in fake.bot_messages(GROUP)), what="the podium"
        )
    finally:
        await stop(bot)
        await runner.cleanup()


async def test_an_arena_ends_with_its_games_when_the_bot_is_removed_from_the_group(harness: Harness) -> None:
    fake, storage = harness.fake, harness.deps.storage
    await welcome(harness, NAMES[:2])
    fake.send(ANN, GROUP, "/arena 30 2")
    message = await fake.wait_for(lambda: arena_message(fake), what="the arena")
    await press_and_wait(fake, 2, GROUP, message.message_id, encode(ArenaPress(1, "join")))
    await fake.wait_for(lambda: hand_message(fake, 1), what="Ann's hand")
    fake.bot_membership(GROUP, by=1, added=False)
    row = await stored(
        lambda: storage.arenas.get(1), lambda r: r is not None and r.finished, "the arena ended"
    )
    assert row is not None and all(g.finished_at is not None and g.base is None for g in row.games)
    await fake.wait_for(lambda: harness.deps.service.arenas.of(1) is None, what="the arena gone from memory")


async def test_an_arena_whose_time_ran_out_while_the_bot_was_down_ends_on_start_with_its_results(
    harness: Harness,
) -> None:
    """Stopped mid-arena and started again after its end: the game in play comes back and is finished and
    counted, nobody is paired again, and the podium is posted once."""
    fake, rng = harness.fake, random.Random(2)
    await welcome(harness, NAMES[:2])
    fake.send(ANN, GROUP, "/arena 30 2")
    message = await fake.wait_for(lambda: arena_message(fake), what="the arena")
    await press_and_wait(fake, 2, GROUP, message.message_id, encode(ArenaPress(1, "join")))
    await fake.wait_for(lambda: hand_message(fake, 1) and hand_message(fake, 2), what="the hands")
    for _ in range(3):
        await press_a_move(fake, [1, 2], rng)
    await stop_app(harness.app)
    with sqlite3.connect(harness.db_path) as conn:
        conn.execute("UPDATE arenas SET ends_at = ?", (time.time() - 1,))
    harness.app = await start_app(fake, harness.db_path)
    storage = harness.deps.storage
    await fake.wait_for(
        lambda: "Time's up" in fake.messages[GROUP][message.message_id].text, what="time's up"
    )
    while not await finished(harness.db_path):
        if not await press_a_move(fake, [1, 2], rng):
            await asyncio.sleep(0.02)
    row = await storage.arenas.get(1)
    assert row is not None and len({g.table_id for g in row.games}) == 1  # nobody paired after the end
    assert all(g.base is not None for g in row.games)  # the game in play counted
    await fake.wait_for(
        lambda: "The arena is over." in fake.messages[GROUP][message.message_id].text, what="end"
    )
    assert len([m for m in fake.bot_messages(GROUP) if "The arena is over!" in m.text]) == 1
    assert await storage.results.leaderboard(GROUP, "throw_in")  # rated as any game
