"""The outbox against a fake Bot API that enforces Telegram's limits (scaled in time like RATE_SCALE):
replies always arrive, no group gets more than 20 messages a minute, a 429 is waited out and never
undercut, and no edit is sent that would change nothing."""

from __future__ import annotations

import asyncio
import random
import time
from typing import cast

import pytest
from telegram import Bot

from bot import metrics
from bot.budget import LATER, SOON, URGENT, Budget
from bot.outbox import Outbox
from bot.pacing import Key, Queue
from bot.service import seconds_shown
from engine.views import view
from tests.bot.conftest import Harness
from tests.bot.fake_telegram import ApiError, Message, RateLimits, Sent
from tests.bot.players import (
    GROUP,
    hand_message,
    move_choices,
    open_table,
    play_until_over,
    press_and_wait,
    start,
)

SCALE = 0.01  # the harness's RATE_SCALE


def most_in_a_window(times: list[float], window: float) -> int:
    return max((sum(1 for t in times if first <= t < first + window) for first in times), default=0)


async def test_command_replies_after_a_game_all_arrive_within_the_groups_budget(harness: Harness) -> None:
    fake = harness.fake
    fake.limits = RateLimits(scale=SCALE)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(41))
    for user, name in ((3, "Cid"), (4, "Dan"), (5, "Eve")):
        fake.add_user(user, name)
    commands = {1: "/top", 2: "/stats", 3: "/rules", 4: "/help", 5: "/top global"}
    expected = [" season · ", "Stats: Bob", "Throw-in durak", "/newgame", "Global"]
    before = len(fake.bot_messages(GROUP))
    for user, command in commands.items():  # five members at once
        fake.send(user, GROUP, command)
    replies = await fake.wait_for(
        lambda: len(fake.bot_messages(GROUP)) >= before + 5 and fake.bot_messages(GROUP)[before:], timeout=20
    )
    for text in expected:
        assert any(text in m.text for m in replies), text
    sent = [s.at for s in fake.sent if s.chat_id == GROUP and s.ok]
    assert most_in_a_window(sent, 60 * SCALE) <= 20
    assert fake.too_early == []
    assert [s for s in fake.sent if not s.ok] == []  # no 429 at all: the outbox kept every budget


async def test_a_429_is_waited_out_and_the_reply_sent_after_it_never_before(harness: Harness) -> None:
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    fake.add_user(1, "Ann")
    fake.fail_next("sendMessage", ApiError(429, "Too Many Requests: retry after 1", retry_after=1))
    asked = time.monotonic()
    fake.send(1, GROUP, "/help")
    reply = await fake.wait_for(lambda: fake.last(GROUP), timeout=10, what="the reply")
    assert "/newgame" in reply.text
    refused = next(s for s in fake.sent if not s.ok)
    delivered = next(s for s in fake.sent if s.ok and s.chat_id == GROUP)
    assert refused.at >= asked and delivered.at - refused.at >= 1.0
    assert fake.too_early == []


async def test_no_edit_is_sent_that_would_change_nothing(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2, 3], random.Random(42))
    await harness.deps.outbox.idle()
    await asyncio.sleep(0.1)
    unchanged = [s for s in fake.sent if s.method == "editMessageText" and not s.ok]
    assert unchanged == []


async def test_fifty_lobbies_at_once_stay_within_thirty_messages_a_second_overall(harness: Harness) -> None:
    from tests.bot.conftest import start_app, stop_app

    fake = harness.fake
    await stop_app(harness.app)
    scale = 0.1  # coarser than the harness, so the overall second is not lost in the timer's jitter
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale)
    fake.limits = RateLimits(scale=scale)
    for n in range(50):
        fake.add_group(-1000 - n, f"Group {n}")
        fake.add_user(n + 1, f"P{n}")
    for n in range(50):
        fake.send(n + 1, -1000 - n, "/newgame")
    await fake.wait_for(
        lambda: all(fake.bot_messages(-1000 - n) for n in range(50)), timeout=30, what="fifty lobbies"
    )
    sent = [s.at for s in fake.sent if s.ok]
    assert most_in_a_window(sent, 1.0 * scale) <= 30
    assert [s for s in fake.sent if not s.ok] == [] and fake.too_early == []


async def test_a_restart_does_not_forget_what_the_group_was_sent(harness: Harness) -> None:
    """A new process starts with the group's minute as the old one left it: replies after a restart wait
    for the budget instead of drawing a 429 (Telegram's limits enforced, scaled to a 6 s minute)."""
    from tests.bot.conftest import start_app, stop_app

    fake = harness.fake
    await stop_app(harness.app)
    scale = 0.1  # a minute of 6 s: longer than a restart takes
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale)
    fake.limits = RateLimits(scale=scale)
    fake.add_group(GROUP, "Friends")
    for user in range(1, 7):
        fake.add_user(user, f"P{user}")

    async def ask(times: int) -> None:
        before = len(fake.bot_messages(GROUP))
        for n in range(times):
            fake.send(n % 6 + 1, GROUP, "/help")
        await fake.wait_for(
            lambda: len(fake.bot_messages(GROUP)) >= before + times, timeout=30, what="replies"
        )

    await ask(17)
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale)
    await ask(6)
    sent = [s.at for s in fake.sent if s.chat_id == GROUP and s.ok]
    assert [s for s in fake.sent if not s.ok] == [] and fake.too_early == []
    assert most_in_a_window(sent, 60 * scale) <= 20


async def test_on_a_full_token_the_turn_goes_first_then_the_movers_hand_then_the_table(
    harness: Harness,
) -> None:
    """When the overall budget is short, a move's redraws go out by who needs them: the player who must act
    now, then the player who just moved (they look at their hand), then the group's table."""
    from tests.bot.conftest import start_app, stop_app

    fake = harness.fake
    await stop_app(harness.app)
    scale = 0.3  # an overall second of 0.3 s: long enough to queue a move's redraws behind a held slot
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    outbox = harness.deps.outbox
    await outbox.idle()
    live = harness.deps.service.tables[lobby.table_id or 0]
    assert live.game is not None
    mover, other = live.game.lead + 1, 2 - live.game.lead
    await asyncio.sleep(3.5 * scale)  # every chat's own spacing has passed: only the overall budget holds
    outbox.share(30)  # as if 30 processes shared the token: one send an overall second
    held = await outbox._budget.take(URGENT)
    hand = await fake.wait_for(lambda: hand_message(fake, mover), what="the mover's hand")
    before = len(fake.sent)
    fake.press(mover, mover, hand.message_id, move_choices(hand.reply_markup)[0])
    await fake.wait_for(lambda: outbox._budget.waiting() == 3, what="three redraws waiting for the budget")
    outbox._budget.done(held, 0)
    await outbox.idle()
    order = [s.chat_id for s in fake.sent[before:] if s.ok]
    assert order == [other, mover, GROUP]


async def test_on_a_full_token_a_move_is_answered_with_a_word_that_it_counted(harness: Harness) -> None:
    """When the token is so full that the hands of players who just moved wait, a move's press is answered
    with a short note that it counted (the answer is no message: it spends nothing), so nobody presses again
    while their hand catches up; otherwise presses are answered silently."""
    from tests.bot.conftest import start_app, stop_app

    fake = harness.fake
    await stop_app(harness.app)
    scale = 0.3
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    other = -200  # a second table, in another group
    fake.add_group(other, "Others")
    for user, name in ((3, "Cid"), (4, "Dan")):
        fake.add_user(user, name)
        fake.send(user, user, "/start")
    opened = fake.send(3, other, "/newgame")
    second = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(other) if m.buttons() and m.message_id > opened), None)
    )
    table = second.buttons()[0][1].split(":")[1]
    await press_and_wait(fake, 4, other, second.message_id, f"L:{table}:join")
    await press_and_wait(fake, 3, other, second.message_id, f"L:{table}:start")
    outbox, service = harness.deps.outbox, harness.deps.service
    await outbox.idle()
    await asyncio.sleep(3.5 * scale)  # every chat's own spacing has passed: only the overall budget holds

    def mover(table_id: int, first: int) -> tuple[int, Message]:
        game = service.tables[table_id].game
        assert game is not None
        user = first + game.to_act()[0]
        hand = hand_message(fake, user)
        assert hand is not None
        return user, hand

    outbox.share(30)  # one send an overall second
    held = await outbox._budget.take(URGENT)
    user, hand = mover(lobby.table_id or 0, 1)
    quiet = await press_and_wait(fake, user, user, hand.message_id, move_choices(hand.reply_markup)[0])
    assert "text" not in quiet  # nothing waited yet
    await asyncio.sleep(1.5 * scale)  # that move's redraws have waited longer than an overall second
    user, hand = mover(int(table), 3)
    busy = await press_and_wait(fake, user, user, hand.message_id, move_choices(hand.reply_markup)[0])
    assert str(busy.get("text", "")).startswith("✓ Move accepted.") and not busy.get("show_alert")
    outbox._budget.done(held, 0)
    await outbox.idle()


def group_lane(sent: int, *, last: float = 3.0) -> tuple[Outbox, Queue, list[float]]:
    """An outbox on a clock of our own, and a group lane whose in-group hands share its budget, with ``sent``
    calls in the last minute (the newest ``last`` seconds ago)."""

    async def nothing(*_: object) -> None:
        return None

    now = [1000.0]
    outbox = Outbox(
        cast(Bot, None),
        nothing,
        on_sent=nothing,
        on_refused=nothing,
        on_migrated=nothing,
        clock=lambda: now[0],
    )
    chat = outbox.lanes(GROUP)
    chat.sent.extend(now[0] - 59.0 + i * (56.0 - last) / max(1, sent - 1) for i in range(sent))
    chat.last_redraw = now[0] - last
    chat.hands_until = now[0] + 60.0
    return outbox, chat, now


def test_where_hands_share_a_groups_budget_a_turns_hand_goes_as_long_as_one_send_is_left() -> None:
    """A turn's hand is what a person waits for, as for a reply: it may use the group's budget but one send
    (kept for a reply); the other hands leave the turns their part (docs/operations.md, "In-group hands")."""
    outbox, chat, _ = group_lane(18)
    turn: Key = ("group_hand", 1, 0)
    other: Key = ("group_hand", 1, 1)
    chat.dirty = {other: LATER, turn: SOON}
    assert outbox._next(GROUP, chat) == (turn, SOON, 0.0)
    chat.sent.append(chat.sent[-1])  # 19 in the minute: the last send is a reply's
    assert outbox._next(GROUP, chat)[2] > 0
    del chat.dirty[turn]
    chat.sent.pop()
    assert outbox._next(GROUP, chat)[2] > 0  # the other hand waits, at 18 as at 8
    for _ in range(10):
        chat.sent.popleft()
    assert outbox._next(GROUP, chat)[2] > 0
    chat.sent.popleft()
    assert outbox._next(GROUP, chat) == (other, LATER, 0.0)


def test_a_table_unchanged_for_half_a_minute_takes_part_of_the_turns_share() -> None:
    """The whole group watches the table: while the turns' hands fill the group's budget it still comes every
    half a minute or so, taking half of what is kept for the turns, never all of it."""
    outbox, chat, now = group_lane(11)
    table: Key = ("table_message", 1, -1)
    chat.dirty = {table: LATER}
    chat.since = {table: now[0] - 1.0}
    assert outbox._next(GROUP, chat)[2] > 0  # 11 sent: only 8 are for redraws nobody acts on
    chat.since = {table: now[0] - 20.0}
    assert outbox._next(GROUP, chat)[2] > 0
    chat.since = {table: now[0] - 30.0}
    assert outbox._next(GROUP, chat) == (table, LATER, 0.0)
    chat.sent.append(chat.sent[-1])
    assert outbox._next(GROUP, chat)[2] > 0  # 12: the turns keep the rest


def test_a_finished_tables_tidy_up_goes_in_a_group_busy_with_the_next_game() -> None:
    """Deletions count against no limit (budget.COST): a tidy-up goes at once, ahead of the next game's
    table and hands, even with the group's minute spent and a redraw just sent; only a 429's pause holds it.
    (A group playing one all-bot game after another never gave it a slot: "a message has waited 122 s".)"""
    outbox, chat, now = group_lane(20, last=0.1)
    tidy: Key = ("tidy", 1, -1)
    table: Key = ("table_message", 2, -1)
    chat.dirty = {table: LATER, ("group_hand", 2, 0): SOON, tidy: LATER}
    chat.since = {table: now[0] - 50.0}
    chat.last_redraw = now[0] - 0.1
    assert outbox._next(GROUP, chat) == (tidy, URGENT, 0.0)
    chat.blocked_until = now[0] + 7.0  # Telegram asked the chat to wait
    assert outbox._next(GROUP, chat) == (tidy, URGENT, 7.0)
    del chat.dirty[tidy]
    chat.blocked_until = 0.0
    assert outbox._next(GROUP, chat)[2] > 0  # the rest wait for the group's minute


async def test_a_hand_drawn_anew_between_two_checkpoints_is_not_edited_for_the_seconds_alone(
    harness: Harness,
) -> None:
    """A message cannot count down; the time left it shows moves at the timer's checkpoints only, so a hand
    drawn anew a second later (another player moved, a press was stale) shows the same and costs nothing."""
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    outbox, service = harness.deps.outbox, harness.deps.service
    live = service.tables[lobby.table_id or 0]
    assert live.game is not None
    mover = live.game.to_act()[0] + 1
    await fake.wait_for(lambda: hand_message(fake, mover), what="the mover's hand")
    await outbox.idle()
    shown = hand_message(fake, mover)
    assert shown is not None and "⏳ 30 s" in shown.text
    await asyncio.sleep(1.6)  # the time left, rounded, is 28 s now
    before = len(fake.sent)
    outbox.mark(mover, ("hand", live.id, mover - 1), priority=LATER)  # both drawn again, as at a move
    outbox.mark(GROUP, ("table_message", live.id, -1), priority=LATER)
    await outbox.idle()
    assert [s for s in fake.sent[before:] if s.ok] == []
    assert seconds_shown(28.4, 30) == 30 and seconds_shown(20.3, 30) == 20 and seconds_shown(19.6, 30) == 20
    assert seconds_shown(3.0, 30) == 10 and seconds_shown(-1.0, 15) == 5


async def test_lanes_of_chats_served_a_window_ago_are_freed() -> None:
    """The outbox keeps a lane (its pace, its task) per chat it serves; one with nothing to send and nothing
    sent for a window goes, so memory follows the chats the bot talks to now, not every chat it ever served."""
    outbox, _, now = group_lane(0)
    for chat in range(1, 3000):
        outbox.lanes(chat).sent.append(now[0] - 61.0)  # served a while ago
    busy = outbox.lanes(-5)
    busy.sent.append(now[0] - 5.0)  # ... this group a moment ago: its pace still counts
    outbox.mark(7, ("hand", 1, 0))
    await outbox.idle()
    assert set(outbox.lanes.queues) <= {-5, 7, GROUP} and len(outbox.lanes.tasks) <= 1
    assert outbox.lanes.queues[-5] is busy
    await outbox.close()


async def test_with_paid_broadcasts_a_full_token_still_sends_the_turn_at_once_and_pays_for_it_alone(
    harness: Harness,
) -> None:
    """PAID_BROADCAST: when the free overall budget is spent, the turn's hand (a new message, so that it
    sounds) goes at once with allow_paid_broadcast, and only it: edits cannot be paid for, so the mover's
    hand and the group's table wait for the free budget. Where Telegram refuses to be paid, the turn still
    arrives, within the free budget, and nothing more is paid for."""
    from tests.bot.conftest import start_app, stop_app

    fake = harness.fake
    await stop_app(harness.app)
    scale = 0.3
    harness.app = await start_app(fake, harness.db_path, rate_scale=scale, paid_broadcast=50)
    fake.limits = RateLimits(scale=scale)
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    outbox = harness.deps.outbox
    await outbox.idle()
    service = harness.deps.service
    live = service.tables[lobby.table_id or 0]
    stars = metrics.PAID_STARS._value.get()

    async def play(expect: str) -> tuple[list[Sent], list[Sent]]:
        """Moves are played while the free budget is spent, until a turn's hand is sent paid for (or its paid
        send refused), or for three moves when nothing is ``expect``ed; then the free budget is let go. What
        was sent while it was spent, and after."""
        await asyncio.sleep(3.5 * scale)  # every chat's own spacing has passed: only the overall budget holds
        outbox.share(30)  # one free send an overall second, and every one taken as it frees (before a turn)
        hog = asyncio.get_running_loop().create_task(spend_every_slot(outbox._budget))
        before = len(fake.sent)
        for _ in range(3 if expect == "nothing" else 12):
            # Played as the hand's buttons play (the same command): the hands in the chat are a move behind.
            game = live.game
            assert game is not None
            seat = game.to_act()[0]
            verdict = await service.press(live.id, seat + 1, game.version, view(game, seat).moves[0])
            assert verdict.ok, verdict
            # Its hands drawn, past a chat's spacing: a turn that passes sounds (sent anew), unless the next
            # move came first and the turn is back where it was (one redraw of the latest, which is an edit).
            await asyncio.sleep(1.5 * scale)
            if expect != "nothing" and any(s.paid for s in fake.sent[before:]):
                break
        spent = fake.sent[before:]
        hog.cancel()
        outbox.share(1)
        await outbox.idle()
        return spent, fake.sent[before + len(spent) :]

    # A turn that passes to the other player is sent anew (it sounds): while the free budget is spent, paid for.
    spent, _ = await play("paid")
    assert spent and all(s.ok and s.paid and s.method == "sendMessage" and s.sound for s in spent), spent
    assert metrics.PAID_STARS._value.get() == pytest.approx(stars + 0.1 * len(spent))
    assert [s for s in fake.sent if not s.ok] == [] and fake.too_early == []
    paid = metrics.PAID_STARS._value.get()

    fake.paid_broadcasts = False  # paid broadcasts turned off in @BotFather, or the Stars ran out
    spent, after = await play("refused")
    assert [(s.paid, s.error) for s in spent] == [(True, 400)]  # tried once, refused
    refused = spent[0]
    assert any(s.ok and s.chat_id == refused.chat_id and s.text == refused.text and not s.paid for s in after)
    spent, after = await play("nothing")
    assert not any(s.paid for s in spent + after)  # nothing more is paid for
    assert metrics.PAID_STARS._value.get() == paid


async def spend_every_slot(budget: Budget) -> None:
    """Take each slot of the overall budget as it frees, ahead of any turn: the free budget stays spent."""
    while True:
        await budget.take(URGENT)
