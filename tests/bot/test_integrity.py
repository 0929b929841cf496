"""Integrity and security through the real PTB stack: a cancelled game stays cancelled, a result is never
lost, a failed write is answered and retried, a broken game is told, strangers stay out, numbers from outside
are bounded, a failing handler still answers, long names fit, a group that removed the bot gets nothing more."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.metrics import REGISTRY
from bot.service import Published
from engine.ai import HeuristicPlayer
from engine.views import view
from storage import StaleGame, Storage
from storage.db import Write
from storage.records import TableStatus
from storage.results import result_from_engine
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import Message, shown_length
from tests.bot.players import (
    GROUP,
    hand_message,
    is_result,
    open_table,
    play_until_over,
    press_and_wait,
    start,
    stored,
    table_id,
)


class Silent:
    """A watcher that draws nothing: the process died before any message went out."""

    def published(self, record: Published) -> None: ...

    def forgotten(self, table_id: int) -> None: ...

    def tidy(self, chat_id: int, table_id: int) -> None: ...


async def count(storage: Storage, sql: str) -> int:
    row = await storage.db.fetch_one(sql)
    return int(row[next(iter(row.keys()))]) if row else 0


def move_buttons(message: Message) -> list[str]:
    return [data for _, data in message.buttons() if data.startswith(("m:", "k:"))]


async def until(check: Callable[[], object], what: str, timeout: float = 10.0) -> Any:
    for _ in range(int(timeout / 0.01)):
        if found := check():
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def play_moves(h: Harness, tid: int, moves: int) -> None:
    """Seats on the clock move (a rule-of-thumb player for each) through the table service."""
    live = h.deps.service.tables[tid]
    for _ in range(moves):
        assert live.game is not None and not live.game.over
        seat = live.game.to_act()[0]
        move = HeuristicPlayer().choose(view(live.game, seat))
        user = live.row.seats[seat].user_id
        assert user is not None
        assert (await h.deps.service.press(tid, user, live.game.version, move)).ok


# ---------------------------------------------------------------------- a cancelled game


async def test_a_cancelled_game_takes_no_move_is_never_rated_and_every_hand_says_so(harness: Harness) -> None:
    fake, service, storage = harness.fake, harness.deps.service, harness.deps.storage
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    await start(harness, lobby)
    tid = table_id(lobby)
    await play_moves(harness, tid, 3)
    live = service.tables[tid]
    assert live.game is not None
    await harness.deps.outbox.idle()  # a hand coming on the clock is sent anew: take the newest
    hands = {
        u: await until(lambda: (m := hand_message(fake, u)) and move_buttons(m) and m, "a hand")
        for u in (1, 2, 3)
        if u - 1 in live.game.to_act()
    }
    version, snapshot = live.game.version, live.game
    fake.send(1, GROUP, "/cancel")
    await until(lambda: "Table closed." in fake.messages[GROUP][lobby.message_id].text, "the closed table")
    # Every button of every hand, pressed by its owner: refused, and the game does not move.
    for user, message in hands.items():
        for data in move_buttons(message):
            answer = await press_and_wait(fake, user, user, message.message_id, data)
            assert "cancelled" in str(answer.get("text")), answer
    # Nor do the timer and a bot's turn, if they fire anyway.
    await service.timeout(tid, version)
    await service.bot_turn(tid, version)
    assert live.game.version == version and live.game == snapshot
    # Every hand message says so, without buttons.
    for user in (1, 2, 3):
        shown = live.row.seats[user - 1].hand_message_id
        assert shown is not None
        await until(
            lambda: "cancelled" in (m := fake.messages[user][shown]).text and not m.buttons(),
            f"user {user}'s hand to say the game was cancelled",
        )
    table = await storage.tables.get(tid)
    assert table is not None and table.status is TableStatus.CANCELLED
    assert await count(storage, "SELECT COUNT(*) FROM results") == 0
    assert await count(storage, "SELECT COUNT(*) FROM ratings") == 0
    assert not any(is_result(m.text) for m in fake.bot_messages(GROUP))


async def test_the_database_refuses_a_move_or_a_result_for_a_table_no_longer_in_play(
    harness: Harness,
) -> None:
    storage = harness.deps.storage
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    row = await storage.games.current(tid)
    assert row is not None
    await storage.tables.set_status(tid, TableStatus.CANCELLED)
    with pytest.raises(StaleGame):
        await storage.games.record(row.id, 1, 0, "x", row.snapshot, row.version + 1, deadline=None)
    assert await count(storage, "SELECT COUNT(*) FROM events") == 0
    # A finished game's result for it (ratings included) is refused whole, and the table stays cancelled.
    live = harness.deps.service.tables[tid]
    assert live.game is not None
    game = live.game.copy()
    while not game.over:
        seat = game.to_act()[0]
        game.push(seat, HeuristicPlayer().choose(view(game, seat)))
    assert game.result is not None
    record = result_from_engine(
        row.id,
        GROUP,
        live.row.seats,
        game.result,
        live.row.options,
        rated=True,
        started_at=0,
        finished_at=1,
    )
    with pytest.raises(StaleGame):
        await storage.results.record(record)
    for table in ("results", "result_players", "ratings"):
        assert await count(storage, f"SELECT COUNT(*) FROM {table}") == 0
    table_row = await storage.tables.get(tid)
    assert table_row is not None and table_row.status is TableStatus.CANCELLED


# ---------------------------------------------------------------------- a result is never lost


async def test_a_result_not_sent_before_the_process_died_is_sent_after_the_restart(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    service = harness.deps.service
    live = service.tables[tid]
    while True:  # play up to the final move
        assert live.game is not None
        seat = live.game.to_act()[0]
        move = HeuristicPlayer().choose(view(live.game, seat))
        after = live.game.copy()
        after.push(seat, move)
        if after.over:
            break
        await service.press(tid, seat + 1, live.game.version, move)
    # The final move commits; the process dies before anything is drawn.
    service.watcher = Silent()
    assert (await service.press(tid, seat + 1, live.game.version, move)).ok
    await stop_app(harness.app)
    assert not any(is_result(m.text) for m in fake.bot_messages(GROUP))
    harness.app = await start_app(fake, harness.db_path)
    result = await until(
        lambda: next((m for m in fake.bot_messages(GROUP) if is_result(m.text)), None), "the result"
    )
    assert "Fair play" in result.text and "→" in result.text and "Ann" in result.text
    await stored(
        lambda: harness.deps.storage.games.current(tid),
        lambda row: row is not None and row.result_message_id == result.message_id,
        "the result's message id",
    )
    # The table message and both hands show the end (no buttons left).
    await until(lambda: "▶" not in fake.messages[GROUP][lobby.message_id].text, "the final table")
    for at_table in harness.deps.service.tables[tid].row.seats:
        user, shown = at_table.user_id, at_table.hand_message_id
        assert user is not None and shown is not None
        await until(lambda: not fake.messages[user][shown].buttons(), "a final hand")
    # Delivered once: another restart sends nothing more.
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path)
    await asyncio.sleep(0.3)
    assert len([m for m in fake.bot_messages(GROUP) if is_result(m.text)]) == 1


# ---------------------------------------------------------------------- a failed write


def failing_writes(storage: Storage, times: int, sql: str = "INSERT INTO events") -> list[int]:
    """The next ``times`` writes with a statement containing ``sql`` fail as on a full disk, writing nothing;
    returns a counter of them. Every write reaches the database through ``Database.write``."""
    original = storage.db.write
    failed = [0]

    async def write(*writes: Write) -> list[Any]:
        if any(sql in w.sql for w in writes) and failed[0] < times:
            failed[0] += 1
            raise sqlite3.OperationalError("database or disk is full")
        return await original(*writes)

    storage.db.write = write  # type: ignore[method-assign]
    return failed


async def test_a_failed_write_is_answered_changes_nothing_and_the_table_keeps_its_timer(
    harness: Harness,
) -> None:
    fake, app = harness.fake, harness.app
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    live = harness.deps.service.tables[tid]
    assert live.game is not None and app.job_queue is not None
    leader = live.game.lead + 1
    hand = await until(
        lambda: (m := hand_message(fake, leader)) and move_buttons(m) and m, "the leader's hand"
    )
    version = live.game.version
    failed = failing_writes(harness.deps.storage, 4)
    answer = await press_and_wait(fake, leader, leader, hand.message_id, move_buttons(hand)[0])
    assert answer.get("show_alert") and "Couldn't save that" in str(answer.get("text"))
    assert live.game.version == version
    # The timer runs out while the disk is still full: it is set again, later each time.
    for _ in range(3):
        (job,) = app.job_queue.get_jobs_by_name(f"deadline:{tid}")
        live.clock.deadline = time.time()  # the job fires when the deadline has come
        await job.run(app)
        (again,) = app.job_queue.get_jobs_by_name(f"deadline:{tid}")  # set again, not lost
        assert again is not job and again.next_t is not None and again.next_t.timestamp() > time.time()
        assert live.game.version == version
    assert failed[0] == 4 and live.clock.failures == 4  # the pause grew: 1 s, 2 s, 4 s, now 8 s
    # Space is back: the same button works (on the hand as it is now: the time ran out, and the warning
    # sent it anew).
    await harness.deps.outbox.idle()
    hand = await until(lambda: (m := hand_message(fake, leader)) and move_buttons(m) and m, "the hand")
    answer = await press_and_wait(fake, leader, leader, hand.message_id, move_buttons(hand)[0])
    assert "text" not in answer, answer
    assert live.game.version > version and live.clock.failures == 0


async def test_a_bot_whose_move_could_not_be_saved_tries_again_and_the_game_ends(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:bot")
    await until(lambda: ". 🤖" in fake.messages[GROUP][lobby.message_id].text, "the bot seated")
    await start(harness, lobby)
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    if live.game.lead == 0:  # let Ann lead, so the next turn is the bot's
        await play_moves(harness, table_id(lobby), 1)
    failed = failing_writes(harness.deps.storage, 2)
    await until(lambda: failed[0] == 2, "two failed bot moves", timeout=15)  # retried after 1 s, then 2 s
    result = await play_until_over(fake, GROUP, [1], random.Random(3))
    assert "Practice game" in result


# ---------------------------------------------------------------------- a game that no longer loads


async def test_a_game_that_cannot_be_restored_is_told_to_its_group_and_its_hands(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    await play_moves(harness, tid, 2)
    await harness.deps.outbox.idle()  # a hand coming on the clock is sent anew: take the newest
    hands = {u: await until(lambda: hand_message(fake, u), "a hand") for u in (1, 2)}
    await stop_app(harness.app)
    with sqlite3.connect(harness.db_path) as conn:
        conn.execute("UPDATE games SET snapshot = '{\"schema\": 999}' WHERE table_id = ?", (tid,))
    harness.app = await start_app(fake, harness.db_path)
    await until(
        lambda: any("couldn't be restored" in m.text for m in fake.bot_messages(GROUP)), "the group told"
    )
    await until(
        lambda: "couldn't be restored" in fake.messages[GROUP][lobby.message_id].text, "the table message"
    )
    for user, message in hands.items():
        await until(
            lambda: (
                "couldn't be restored" in (m := fake.messages[user][message.message_id]).text
                and not m.buttons()
            ),
            "the hand without buttons",
        )
    table = await harness.deps.storage.tables.get(tid)
    assert table is not None and table.status is TableStatus.BROKEN
    answer = await press_and_wait(fake, 1, 1, hands[1].message_id, f"m:{tid}:1:x")
    assert answer.get("show_alert")


# ---------------------------------------------------------------------- who may act where


async def test_strangers_cannot_join_from_another_chat_or_with_a_link(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"])
    tid = table_id(lobby)
    fake.add_user(9, "Mallory")
    fake.send(9, 9, "/start")
    welcome = await until(lambda: fake.last(9), "the welcome")
    # A forged lobby button in her own chat: join, start, cancel, options.
    for action in ("join", "leave", "bot", "start", "options", "set:variant"):
        answer = await press_and_wait(fake, 9, 9, welcome.message_id, f"L:{tid}:{action}")
        assert "another chat" in str(answer.get("text")), (action, answer)
    # The table's link (leaked to her) and guessed links.
    table = await harness.deps.storage.tables.get(tid)
    assert table is not None and table.join_token
    for payload, expected in (
        (f"join_{table.join_token}", "Only members"),
        (f"join_{tid}", "doesn't lead"),
        ("join_" + "9" * 30, "doesn't lead"),
        ("join_", "doesn't lead"),
    ):
        before = len(fake.bot_messages(9))
        fake.send(9, 9, f"/start {payload}")
        reply = await until(lambda: fake.bot_messages(9)[before:], "a reply")
        assert expected in reply[0].text, (payload, reply[0].text)
    assert [s.user_id for s in harness.deps.service.tables[tid].row.seats] == [1]
    assert "Mallory" not in fake.messages[GROUP][lobby.message_id].text


# ---------------------------------------------------------------------- numbers from outside


BIG = "99999999999999999999"


async def test_oversized_and_negative_numbers_are_refused_with_an_answer(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(7))
    result = next(m for m in fake.bot_messages(GROUP) if is_result(m.text))
    tid = table_id(lobby)
    caplog.set_level(logging.ERROR)
    for data in (
        f"m:{BIG}:1:x",
        f"m:{tid}:{BIG}:x",
        f"k:{BIG}:1:6s",
        f"k:{tid}:{BIG}:6s",
        f"h:{BIG}",
        f"b:{BIG}",
        f"L:{BIG}:join",
        f"T:c:throw_in:{BIG}",
        f"T:g:transfer:{2**63}",
        "T:c:throw_in:999999999999999",  # the largest page accepted: an empty board
        "T:c:throw_in:-1",
        f"m:-{tid}:1:x",
    ):
        answer = await press_and_wait(fake, 1, GROUP, result.message_id, data)
        assert answer is not None, data
    said = fake.send(2, GROUP, f"see #{BIG}")
    replies_before = len(fake.bot_messages(GROUP))
    commands = [f"/replay {BIG}", "/replay -1", "/replay 1x", f"/top {BIG}", f"/stats {BIG}"]
    for text in commands:
        fake.send(1, GROUP, text)
    fake.send(1, GROUP, "/replay", reply_to=said)
    fake.send(1, 1, f"/start join_{BIG}")
    replies = await until(
        lambda: (
            len(fake.bot_messages(GROUP)) >= replies_before + len(commands) + 1
            and fake.bot_messages(GROUP)[replies_before:]
        ),
        "a reply to every command",
    )
    replays = [m.text for m in replies if "game" in m.text.lower() and "/replay" in m.text]
    assert len(replays) == 4, [m.text for m in replies]  # "No such game" for every /replay: -1 is not game 1
    assert not any("Replay of game" in m.text for m in replies)
    await until(lambda: any("doesn't lead" in m.text for m in fake.bot_messages(1)), "the /start reply")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


# ---------------------------------------------------------------------- a handler that raises


async def test_a_handler_that_raises_still_answers_and_logs_one_line(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    fake.add_user(1, "Ann")
    fake.send(1, GROUP, "/top")  # a board whose page buttons are pressed once the boards break
    board = await until(lambda: (m := fake.last(GROUP)) and m.buttons() and m, "a board")

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the board is on fire")

    harness.deps.storage.results.season_board = broken  # type: ignore[method-assign,assignment]
    harness.deps.storage.results.leaderboard = broken  # type: ignore[method-assign,assignment]
    caplog.set_level(logging.ERROR, logger="bot")
    raised = REGISTRY.get_sample_value("durak_handler_exceptions_total") or 0.0
    fake.send(1, GROUP, "/top")
    reply = await until(lambda: (m := fake.last(GROUP)) and m is not board and m, "a reply to /top")
    assert "Something went wrong" in reply.text
    answer = await press_and_wait(fake, 1, GROUP, board.message_id, "T:c:transfer:0")
    assert answer.get("show_alert") and "Something went wrong" in str(answer.get("text"))
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2 and all("\n" not in r.getMessage() and r.exc_info is None for r in errors)
    assert "RuntimeError: the board is on fire" in errors[0].getMessage()
    assert REGISTRY.get_sample_value("durak_handler_exceptions_total") == raised + 2  # for the alert


# ---------------------------------------------------------------------- long names


async def test_long_escaped_names_at_six_seats_never_cost_whose_move_the_seal_or_the_result(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    names = ["Ann", "Bob", "Cid", "Dan", "Eve"]
    fake.add_user(1, '"' * 64, last_name='"' * 64)
    for i, name in enumerate(names, 2):
        fake.add_user(i, name, last_name="&" * 64)
    for user in range(1, 7):
        fake.send(user, user, "/start")
        await until(lambda: fake.last(user), "the welcome")
    fake.send(1, GROUP, "/newgame")
    lobby = await until(lambda: fake.last(GROUP), "the lobby")
    tid = table_id(lobby)
    for user in range(2, 7):
        await press_and_wait(fake, user, GROUP, lobby.message_id, f"L:{tid}:join")
    await until(lambda: fake.messages[GROUP][lobby.message_id].text.count("&amp;") >= 5, "six seated")
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, list(range(1, 7)), random.Random(6))
    tables = [s.text for s in fake.sent if s.chat_id == GROUP and s.ok and "Durak ·" in s.text]
    too_long = [s for s in fake.sent if not s.ok and shown_length(s.text) > 4096]
    assert tables and not too_long
    for text in tables:
        if "Game over" not in text and "▶" in text:
            assert "Waiting for " in text and "Deck sealed" in text, text
    assert ("is the durak" in result or "A draw" in result) and "Fair play" in result and "→" in result


# ---------------------------------------------------------------------- a group that removed the bot


async def test_a_group_that_removed_the_bot_gets_nothing_more_and_its_game_ends(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    await until(lambda: "Deck sealed" in fake.messages[GROUP][lobby.message_id].text, "the table")
    fake.removed.add(GROUP)
    await play_moves(harness, tid, 2)
    await until(
        lambda: harness.deps.service.tables[tid].row.status is TableStatus.CANCELLED, "the table ended"
    )
    for user in (1, 2):
        await until(
            lambda: (m := fake.last(user)) is not None and "cancelled" in m.text and not m.buttons(),
            "the hand told",
        )
    refused = [s for s in fake.sent if s.chat_id == GROUP and not s.ok]
    await asyncio.sleep(0.3)  # nothing more is tried there
    assert len([s for s in fake.sent if s.chat_id == GROUP and not s.ok]) == len(refused) == 1
    assert await count(harness.deps.storage, "SELECT COUNT(*) FROM results") == 0


async def test_a_user_who_blocked_the_bot_gets_nothing_until_they_write_again(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.started.discard(2)  # Bob blocks the bot
    await start(harness, lobby)
    tid = table_id(lobby)
    await until(lambda: any(not s.ok and s.chat_id == 2 for s in fake.sent), "a refused send")
    await play_moves(harness, tid, 3)
    await asyncio.sleep(0.2)
    assert len([s for s in fake.sent if s.chat_id == 2 and not s.ok]) == 1  # no retries into a 403
    fake.send(2, 2, "/start")  # Bob is back: the next change reaches him
    await until(lambda: len([m for m in fake.bot_messages(2) if "Hi!" in m.text]) == 2, "the welcome")
    await play_moves(harness, tid, 1)
    await until(
        lambda: any(s.ok and s.chat_id == 2 and "Your hand" in s.text for s in fake.sent), "Bob's hand"
    )
