"""Whole games through the real PTB stack and the fake Bot API, played by simulated users who press only the
buttons they are shown. Every test runs twice: PTB's httpx requests in-process, and the aiohttp request
layer over real HTTP (``TELEGRAM_HTTP=aiohttp``)."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from bot.callbacks import MovePress, decode
from bot.deps import settings_of
from bot.metrics import REGISTRY
from engine.ai import HeuristicPlayer
from engine.cards import card_str, cards_of
from engine.options import BotLevel
from engine.views import view
from tests.bot.conftest import Harness, running, start_app, stop_app
from tests.bot.fake_telegram import ApiError, FakeTelegram, Message
from tests.bot.players import (
    GROUP,
    hand_message,
    is_hand,
    open_table,
    play_until_over,
    press_and_wait,
    start,
    stored,
    table_id,
    welcome,
)


@pytest.fixture(params=["httpx", "aiohttp"])
async def harness(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Harness]:
    async for h in running(tmp_path, over_http=request.param == "aiohttp"):
        yield h


@pytest.mark.parametrize(
    ("names", "options", "expect"),
    [
        (["Ann", "Bob"], [], "throw-in"),
        (["Ann", "Bob", "Cid"], ["variant"], "transfer"),
        (["Ann", "Bob", "Cid", "Dan"], ["teams"], "The durak team"),
        (["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"], ["variant", "show_trump_transfer"], "transfer"),
    ],
)
async def test_whole_games_by_pressing_buttons(
    harness: Harness, names: list[str], options: list[str], expect: str
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, names, options)
    await start(harness, lobby)
    users = list(range(1, len(names) + 1))
    service = harness.deps.service
    live = service.tables[table_id(lobby)]

    def group_shows_no_hidden_card() -> None:
        game = live.game
        assert game is not None
        hidden = set()
        for s in range(game.players):
            hidden |= set(cards_of(game.hands[s] & ~game.known[s]))
        hidden.discard(game.trump_card)
        for message in fake.bot_messages(GROUP):
            assert not [c for c in hidden if card_str(c) in message.text], message.text

    result = await play_until_over(
        fake, GROUP, users, random.Random(len(names)), check=group_shows_no_hidden_card
    )
    assert all(name in result for name in names)
    if expect == "The durak team":
        assert expect in result or "A draw" in result
    else:
        assert any(expect in m.text for m in fake.bot_messages(GROUP))
    # The group never got a move keyboard, and every callback query was answered exactly once.
    assert all(not data.startswith(("m:", "k:")) for m in fake.bot_messages(GROUP) for _, data in m.buttons())
    assert all(len(a) == 1 for a in fake.answers.values())
    stats = await harness.deps.storage.results.stats(1, GROUP)
    assert stats and stats[0].games == 1


async def test_a_user_who_never_started_the_bot_sits_down_from_the_group(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"])
    fake.add_user(7, "Zed", started=False)
    answer = await press_and_wait(fake, 7, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    assert "My cards" in str(answer.get("text")) and not answer.get("show_alert")  # where the cards will be
    await fake.wait_for(lambda: "Zed" in fake.messages[GROUP][lobby.message_id].text, what="Zed seated")
    # A table's deep link, from before players could hold their cards in the group, still seats a member.
    fake.add_user(8, "Yan", started=False)
    fake.members.setdefault(GROUP, set()).add(8)
    table = await harness.deps.storage.tables.get(table_id(lobby))
    assert table is not None and table.join_token and len(table.join_token) >= 16  # 96 random bits
    fake.send(8, 8, f"/start join_{table.join_token}")
    await fake.wait_for(lambda: "Yan" in fake.messages[GROUP][lobby.message_id].text, what="Yan seated")
    assert "joined" in (fake.last(8).text if fake.last(8) else "")  # type: ignore[union-attr]


async def test_stale_foreign_and_forged_presses_get_an_alert_and_change_nothing(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    leader = live.game.lead + 1
    message: Message = await fake.wait_for(
        lambda: (m := hand_message(fake, leader)) and m.buttons() and m, what="the leader's buttons"
    )
    old = [data for _, data in message.buttons() if isinstance(decode(data), MovePress)]
    await press_and_wait(fake, leader, leader, message.message_id, old[0])
    version = live.game.version
    # The same (now out-of-date) keyboard pressed again: that lead is no longer legal, and says why.
    answer = await press_and_wait(fake, leader, leader, message.message_id, old[-1])
    assert answer.get("show_alert") and "first card is already down" in str(answer.get("text"))
    # Somebody not at the table, replaying another player's button data.
    fake.add_user(9, "Mallory")
    fake.send(9, 9, "/start")
    await fake.wait_for(lambda: fake.last(9), what="welcome")
    fake.messages.setdefault(9, {})[message.message_id] = message
    answer = await press_and_wait(fake, 9, 9, message.message_id, old[0])
    assert "aren't your cards" in str(answer.get("text"))
    for forged in ("m:999:1:x", "zzz", "m:1:1:l6s6s6s6s6s", "L:1:set:__class__"):
        answer = await press_and_wait(fake, leader, leader, message.message_id, forged)
        assert answer.get("show_alert"), forged
    assert live.game.version == version


async def test_timeouts_hand_the_seat_to_a_bot_until_im_back(harness: Harness) -> None:
    fake = harness.fake
    app = harness.app
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    tid = table_id(lobby)
    live = harness.deps.service.tables[tid]
    assert live.game is not None and app.job_queue is not None

    async def fire_deadline() -> None:
        jobs = app.job_queue.get_jobs_by_name(f"deadline:{tid}")  # type: ignore[union-attr]
        assert jobs, "no deadline is scheduled"
        await jobs[0].run(app)

    sleeper = live.game.lead
    await fire_deadline()  # the leader's lead times out: it leads its lowest plain card
    while not live.game.is_auto(sleeper):
        assert live.game.to_act(), "the game stalled"
        if sleeper in live.game.to_act():
            await fire_deadline()
        else:
            other = live.game.to_act()[0]
            move = HeuristicPlayer().choose(view(live.game, other))
            await harness.deps.service.press(tid, other + 1, live.game.version, move)
    # The seat is played by the bot now; its owner sees only "I'm back".
    message = await fake.wait_for(
        lambda: (m := hand_message(fake, sleeper + 1)) and [d for _, d in m.buttons()] == [f"b:{tid}"] and m,
        what="the I'm back button",
    )
    # The group sees that a bot plays the seat.
    await fake.wait_for(lambda: " bot" in fake.messages[GROUP][lobby.message_id].text, what="the bot mark")
    await press_and_wait(fake, sleeper + 1, sleeper + 1, message.message_id, f"b:{tid}")
    assert not live.game.is_auto(sleeper)


async def test_restart_mid_game_and_finish(tmp_path: object, harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    await start(harness, lobby)
    tid = table_id(lobby)
    rng = random.Random(3)
    await play_until_over(fake, GROUP, [1, 2, 3], rng, limit=12, allow_unfinished=True)
    before = harness.deps.service.tables[tid].game
    assert before is not None and not before.over
    await stop_app(harness.app)
    # A new Application on the same database file: the table comes back and the game goes on.
    harness.app = await start_app(fake, harness.db_path)
    restored = harness.deps.service.tables[tid].game
    assert restored == before
    result = await play_until_over(fake, GROUP, [1, 2, 3], rng)
    assert "Ann" in result


async def test_429_is_waited_out_and_the_table_still_updates(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.fail_next("editMessageText", ApiError(429, "Too Many Requests: retry after 1", retry_after=1))
    await start(harness, lobby)
    await fake.wait_for(
        lambda: "Deck:" in fake.messages[GROUP][lobby.message_id].text, timeout=5, what="the table message"
    )
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(5))
    assert "Game over" in result


async def test_group_messages_are_paced(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await harness.deps.outbox.idle()  # lobby presses are answered at once: the pacing is about play
    dealt = len(fake.sent)
    await play_until_over(fake, GROUP, [1, 2], random.Random(8))
    settings = settings_of(harness.app)
    sent = [s for s in fake.sent[dealt:] if s.chat_id == GROUP and s.ok]
    redraws = [s.at for s in sent if s.method == "editMessageText"]
    # Redraws are spaced by the interval; only what people wait for (the result here) may come sooner.
    gaps = [b - a for a, b in itertools.pairwise(redraws)]
    assert min(gaps) >= settings.group_redraw_interval * 0.95, min(gaps)
    # And never more than Telegram's 20 a minute into the group (the minute scaled like every limit).
    window = settings.limits().window
    assert max(sum(1 for t in (s.at for s in sent) if first <= t < first + window) for first in redraws) <= 20
    assert len(redraws) < 150  # many moves, few edits: redraws coalesce


async def test_a_table_with_a_bot_seat_plays_through_and_is_not_rated(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"])
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:bot")
    assert "text" not in answer
    await fake.wait_for(lambda: ". 🤖" in fake.messages[GROUP][lobby.message_id].text, what="the bot seated")
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1], random.Random(2))
    assert "Practice game" in result
    assert await harness.deps.storage.results.leaderboard(GROUP, "throw_in") == []


async def test_hard_bots_think_in_worker_processes_and_play_a_whole_game(harness: Harness) -> None:
    """The production path: searches run in a process pool (spawned workers), at the table's bot level."""
    await stop_app(harness.app)
    harness.app = await start_app(harness.fake, harness.db_path, ai_workers=1, ai_budget_scale=0.02)
    fake = harness.fake
    lobby = await open_table(harness, ["Ann"], ["bot_level"])
    tid = table_id(lobby)
    for _ in range(2):
        await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{tid}:bot")
    await fake.wait_for(
        lambda: fake.messages[GROUP][lobby.message_id].text.count(". 🤖") == 2, what="two bots seated"
    )
    assert "Bot level: hard" in fake.messages[GROUP][lobby.message_id].text
    live = harness.deps.service.tables[tid]
    assert live.row.options.bot_level is BotLevel.HARD and live.bot_level(1) is BotLevel.HARD
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1], random.Random(4))
    assert "Practice game" in result
    pools = harness.deps.service.thinker._pools
    assert pools and all(isinstance(p, ProcessPoolExecutor) for p in pools.values())


async def test_a_deleted_table_message_is_sent_anew(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    del fake.messages[GROUP][lobby.message_id]  # an admin deleted it
    fake.send(1, GROUP, "/startgame")
    fresh = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if "Deck:" in m.text), None),
        what="a new table message",
    )
    assert fresh.message_id != lobby.message_id
    await stored(
        lambda: harness.deps.storage.tables.get(table_id(lobby)),
        lambda table: table is not None and table.message_id == fresh.message_id,
        "the new table message's id",
    )


async def test_a_player_who_blocked_the_bot_is_recorded_and_their_seat_plays_on(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.started.discard(2)  # Bob blocks the bot: messages to him now fail with 403
    await start(harness, lobby)
    await fake.wait_for(lambda: any(not s.ok and s.chat_id == 2 for s in fake.sent), what="a refused send")
    await stored(
        lambda: harness.deps.storage.users.get(2), lambda bob: bob is not None and bob.blocked, "Bob's block"
    )
    # The game goes on: Bob's seat answers by its timer.
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None and not live.game.over
    assert harness.app.job_queue is not None and harness.app.job_queue.get_jobs_by_name(
        f"deadline:{table_id(lobby)}"
    )


async def test_a_group_that_became_a_supergroup_is_followed(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.upgrade(GROUP, -1009)
    await start(harness, lobby)
    await fake.wait_for(
        lambda: any("Deck:" in m.text for m in fake.bot_messages(-1009)), what="the table in the supergroup"
    )
    table = await harness.deps.storage.tables.get(table_id(lobby))
    assert table is not None and table.chat_id == -1009
    assert await harness.deps.storage.chats.get(GROUP) is None


async def test_the_creator_cancels_a_game_and_the_group_is_told(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    fake.send(2, GROUP, "/cancel")  # not the creator, not an admin
    await fake.wait_for(
        lambda: any("Only the table's host" in m.text for m in fake.bot_messages(GROUP)), what="a refusal"
    )
    fake.send(1, GROUP, "/cancel")
    await fake.wait_for(
        lambda: "Table closed." in fake.messages[GROUP][lobby.message_id].text, what="the closed table"
    )
    fake.send(1, GROUP, "/newgame")  # the chat is free for a new table
    await fake.wait_for(
        lambda: len([m for m in fake.bot_messages(GROUP) if "New game" in m.text]) == 1, what="a new lobby"
    )


async def test_leaving_a_game_hands_the_seat_to_a_bot(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    fake.send(2, GROUP, "/leave")
    tid = table_id(lobby)
    await fake.wait_for(
        lambda: (m := hand_message(fake, 2)) is not None and [d for _, d in m.buttons()] == [f"b:{tid}"],
        what="Bob's I'm back button",
    )
    live = harness.deps.service.tables[tid]
    assert live.game is not None and live.game.is_auto(1)
    # The bot plays Bob's seat; Ann plays on alone and the game ends.
    result = await play_until_over(fake, GROUP, [1], random.Random(4))
    assert "Bob" in result


async def test_a_player_at_two_tables_gets_two_titled_hand_messages(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.add_group(-200, "Workmates")
    for group in (GROUP, -200):
        fake.send(1, group, "/newgame")
        lobby = await _lobby_in(harness, group)
        await press_and_wait(fake, 2, group, lobby.message_id, f"L:{table_id(lobby)}:join")
        await _seated(fake, group, lobby, "Bob")
        await press_and_wait(fake, 1, group, lobby.message_id, f"L:{table_id(lobby)}:start")
    hands = await fake.wait_for(
        lambda: (
            len([m for m in fake.bot_messages(1) if is_hand(m)]) == 2
            and [m for m in fake.bot_messages(1) if is_hand(m)]
        ),
        what="two hand messages",
    )
    titles = sorted(m.text.splitlines()[0] for m in hands)
    assert titles == ["<b>Your hand · Friends</b>", "<b>Your hand · Workmates</b>"]


async def _lobby_in(h: Harness, chat_id: int) -> Message:
    found: Message = await h.fake.wait_for(lambda: h.fake.last(chat_id), what="a lobby")
    return found


async def test_leaderboard_and_stats_after_three_games(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    for game in range(3):
        if game:
            fake.send(1, GROUP, "/newgame")
            lobby = await fake.wait_for(
                lambda: next((m for m in reversed(fake.bot_messages(GROUP)) if "New game" in m.text), None),
                what="a lobby",
            )
            await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
            await _seated(fake, GROUP, lobby, "Bob")
        await start(harness, lobby)
        await play_until_over(fake, GROUP, [1, 2], random.Random(game))
    fake.send(1, GROUP, "/top")  # this month's season first, by points per place
    board = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if " season · " in m.text), None), what="/top"
    )
    assert "1. " in board.text and "Ann" in board.text and "Bob" in board.text and "3 games" in board.text
    transfer = next(data for label, data in board.buttons() if "transfer" in label)
    await press_and_wait(fake, 2, GROUP, board.message_id, transfer)
    await fake.wait_for(
        lambda: "Nobody has played" in fake.messages[GROUP][board.message_id].text, what="the transfer board"
    )
    all_time = next(
        data for label, data in fake.messages[GROUP][board.message_id].buttons() if label == "All time"
    )
    await press_and_wait(fake, 2, GROUP, board.message_id, all_time)
    await fake.wait_for(
        lambda: (
            "Chat leaderboard · transfer" in fake.messages[GROUP][board.message_id].text
            and "Nobody yet" in fake.messages[GROUP][board.message_id].text
        ),
        what="the all-time transfer board",
    )
    fake.send(2, GROUP, "/top global")
    await fake.wait_for(
        lambda: any("Global leaderboard" in m.text for m in fake.bot_messages(GROUP)), what="/top global"
    )
    fake.send(2, GROUP, "/stats")
    stats = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if "Stats: Bob" in m.text), None),
        what="/stats",
    )
    assert "3 games" in stats.text and "In this chat" in stats.text and ", rank " in stats.text


async def _seated(fake: FakeTelegram, chat_id: int, lobby: Message, name: str) -> None:
    await fake.wait_for(lambda: name in fake.messages[chat_id][lobby.message_id].text, what=f"{name} seated")


async def test_a_user_chooses_the_language_of_private_messages(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.send(1, 1, "/language")
    menu = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(1) if "Your settings" in m.text), None), what="the menu"
    )
    russian = next(data for label, data in menu.buttons() if "Русский" in label)
    await press_and_wait(fake, 1, 1, menu.message_id, russian)
    await fake.wait_for(
        lambda: "Ваши настройки" in fake.messages[1][menu.message_id].text, what="the menu in Russian"
    )
    fake.send(1, GROUP, "/newgame")
    lobby = await _lobby_in(harness, GROUP)
    await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    await _seated(fake, GROUP, lobby, "Bob")
    await start(harness, lobby)
    await fake.wait_for(
        lambda: (m := hand_message(fake, 1)) is not None and "Ваши карты" in m.text, what="a Russian hand"
    )
    # Bob's hand may come a moment after Ann's (whoever must move first is drawn first): he keeps English.
    await fake.wait_for(lambda: (m := hand_message(fake, 2)) is not None and m.text, what="Bob's hand")
    assert (m := hand_message(fake, 2)) is not None and "Your hand" in m.text


async def test_group_settings_are_for_admins_and_new_tables_start_from_them(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.send(2, GROUP, "/settings")
    await fake.wait_for(
        lambda: any("Only the group's admins" in m.text for m in fake.bot_messages(GROUP)), what="a refusal"
    )
    fake.admins[GROUP] = {1}
    fake.send(1, GROUP, "/settings")
    menu = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if "Group settings" in m.text), None),
        what="settings",
    )
    ukrainian = next(data for label, data in menu.buttons() if "Українська" in label)
    variant = next(data for label, data in menu.buttons() if label.startswith("Game:"))
    assert "show_alert" in await press_and_wait(fake, 2, GROUP, menu.message_id, variant)  # Bob is no admin
    await press_and_wait(fake, 1, GROUP, menu.message_id, ukrainian)
    await fake.wait_for(
        lambda: "Налаштування групи" in fake.messages[GROUP][menu.message_id].text, what="Ukrainian settings"
    )
    variant = next(
        data for label, data in fake.messages[GROUP][menu.message_id].buttons() if label.startswith("Дурень:")
    )
    await press_and_wait(fake, 1, GROUP, menu.message_id, variant)
    fake.send(1, GROUP, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if "Нова гра" in m.text), None), what="a lobby"
    )
    assert "перевідний" in lobby.text


async def test_the_deck_is_sealed_at_the_deal_and_revealed_with_the_result(harness: Harness) -> None:
    import hashlib
    import re

    from engine import Game, Options, parse_cards
    from engine.snapshot import dumps

    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    tid = table_id(lobby)
    await start(harness, lobby)
    # The table shows a short fingerprint of the seal, out of the way ...
    sealed = await fake.wait_for(
        lambda: re.search(r"Deck sealed: ([0-9a-f]{12})…", fake.messages[GROUP][lobby.message_id].text),
        what="the seal",
    )
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(6))
    assert f"seal {sealed.group(1)}… opened" in result and "<code>" not in result
    game = re.search(r"/replay (\d+)", result)
    assert game is not None
    # ... and /replay opens it in full, with the deck readable.
    before = len(fake.bot_messages(GROUP))
    fake.send(2, GROUP, f"/replay {game.group(1)}")
    told = await fake.wait_for(
        lambda: next((m.text for m in fake.bot_messages(GROUP)[before:] if "salt" in m.text), None),
        what="the opened seal",
    )
    deck = re.search(
        r"<code>([^<]+)</code> with salt <code>([0-9a-f]+)</code>; SHA-256 .* is ([0-9a-f]{64})", told
    )
    assert deck is not None and "The deck from the top" in told
    order, salt = deck.group(1), deck.group(2)
    # Anyone can recompute the seal from what the replay reveals ...
    digest = hashlib.sha256(f"{salt}:{order}".encode()).hexdigest()
    assert digest == deck.group(3) and digest.startswith(sealed.group(1))
    # ... and the revealed order deals exactly the game that was played.
    row = await harness.deps.storage.games.current(tid)
    assert row is not None and dumps(Game.deal(Options(), 2, deck=parse_cards(order))) == row.deal


async def test_forum_topics_each_have_their_own_table(harness: Harness) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann", "Bob"])
    fake.add_group(GROUP, "Club", forum=True)
    fake.send(1, GROUP, "/newgame", thread_id=5)
    fake.send(2, GROUP, "/newgame", thread_id=7)
    lobbies = await fake.wait_for(
        lambda: len(found := [m for m in fake.bot_messages(GROUP) if "New game" in m.text]) == 2 and found,
        what="two lobbies",
    )
    assert sorted(m.thread_id for m in lobbies) == [5, 7]
    fake.send(1, GROUP, "/newgame", thread_id=5)  # the topic already has a table
    await fake.wait_for(
        lambda: any("already a table" in m.text and m.thread_id == 5 for m in fake.bot_messages(GROUP)),
        what="a refusal",
    )
    first = next(m for m in lobbies if m.thread_id == 5)
    await press_and_wait(fake, 2, GROUP, first.message_id, f"L:{table_id(first)}:join")
    await _seated(fake, GROUP, first, "Bob")
    await press_and_wait(fake, 1, GROUP, first.message_id, f"L:{table_id(first)}:start")
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(9))
    assert "Game over" in result
    assert all(m.thread_id in (5, 7) for m in fake.bot_messages(GROUP))  # nothing outside the topics


async def test_replay_tells_the_whole_game_from_the_log(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(11))
    result = next(m for m in fake.bot_messages(GROUP) if "Game over" in m.text)
    game_id = result.text.split("#")[1].split("<")[0]
    fake.send(2, GROUP, "/replay")  # without a game: explained
    await fake.wait_for(lambda: any("No such game" in m.text for m in fake.bot_messages(GROUP)), what="usage")
    fake.send(1, GROUP, f"/replay {game_id}")
    first = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if f"Replay of game #{game_id}" in m.text), None),
        what="a replay",
    )
    assert "— Bout 1:" in first.text and ("leads" in first.text) and "draws" in first.text
    assert all(len(m.text) <= 4096 for m in fake.bot_messages(GROUP))
    # Another chat cannot read this chat's games.
    fake.add_group(-300, "Strangers")
    fake.send(1, -300, f"/replay {game_id}")
    await fake.wait_for(
        lambda: any("No such game" in m.text for m in fake.bot_messages(-300)), what="a refusal"
    )


async def test_rematch_seats_the_same_players_who_confirm_and_the_durak_leads(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    first = table_id(lobby)
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(12))
    result = next(m for m in fake.bot_messages(GROUP) if "Game over" in m.text)
    old = harness.deps.service.tables[first]
    assert old.result is not None
    # Random play ends in a draw now and then (the deal is shuffled for real): nobody leads by right then.
    durak = old.result.durak
    durak_user = old.row.seats[durak].user_id if durak is not None else None
    rematch = next(data for label, data in result.buttons() if label == "Rematch")
    fake.add_user(9, "Zed")
    assert "show_alert" in await press_and_wait(fake, 9, GROUP, result.message_id, rematch)  # not a player
    assert "text" not in await press_and_wait(fake, 1, GROUP, result.message_id, rematch)
    new = await fake.wait_for(
        lambda: next(
            (m for m in reversed(fake.bot_messages(GROUP)) if "New game" in m.text and "⏳" in m.text), None
        ),
        what="the rematch lobby",
    )
    assert "Ann" in new.text and "Bob ⏳" in new.text
    assert "press Join within 60 s" in new.text  # ⏳ is explained, and the window is its own
    # One rematch per game: the old result loses its button, and a second press is told where to go.
    await fake.wait_for(
        lambda: not fake.messages[GROUP][result.message_id].buttons(), what="the old button gone"
    )
    again = await press_and_wait(fake, 2, GROUP, result.message_id, rematch)
    assert "already open" in str(again.get("text"))
    tid = table_id(new)
    answer = await press_and_wait(fake, 1, GROUP, new.message_id, f"L:{tid}:start")
    assert "confirm" in str(answer.get("text"))
    await press_and_wait(fake, 2, GROUP, new.message_id, f"L:{tid}:join")  # Bob confirms
    await fake.wait_for(lambda: "⏳" not in fake.messages[GROUP][new.message_id].text, what="Bob confirmed")
    await press_and_wait(fake, 1, GROUP, new.message_id, f"L:{tid}:start")
    live = harness.deps.service.tables[tid]
    assert live.game is not None
    if durak_user is None:
        assert live.game.opening[0] != "loser"  # a draw has no durak: the lowest trump leads
    else:
        assert live.game.opening[0] == "loser"
        assert live.row.seats[live.game.lead].user_id == durak_user  # rematch_lead = loser (the default)


async def test_rematch_players_who_do_not_confirm_are_dropped(harness: Harness) -> None:
    fake = harness.fake
    app = harness.app
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(13))
    result = next(m for m in fake.bot_messages(GROUP) if "Game over" in m.text)
    rematch = next(data for label, data in result.buttons() if label == "Rematch")
    await press_and_wait(fake, 1, GROUP, result.message_id, rematch)
    new = await fake.wait_for(
        lambda: next((m for m in reversed(fake.bot_messages(GROUP)) if "⏳" in m.text), None),
        what="the rematch lobby",
    )
    tid = table_id(new)
    assert app.job_queue is not None
    (job,) = app.job_queue.get_jobs_by_name(f"rematch:{tid}")
    await job.run(app)  # the confirmation time runs out
    await fake.wait_for(lambda: "Bob" not in fake.messages[GROUP][new.message_id].text, what="Bob dropped")
    assert [s.user_id for s in harness.deps.service.tables[tid].row.seats] == [1]


LOCAL = {
    "en": [
        "Deck sealed",
        "Your hand",
        "Game over",
        "Rematch",
        " season · ",
        "Stats:",
        "Replay of game",
    ],
    "ru": [
        "Колода запечатана",
        "Ваши карты",
        "Игра окончена",
        "Реванш",
        "<b>Сезон: ",
        "Статистика:",
        "Запись игры",
    ],
    "uk": [
        "Колоду запечатано",
        "Ваші карти",
        "Гру закінчено",
        "Реванш",
        "<b>Сезон: ",
        "Статистика:",
        "Запис гри",
    ],
}


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
async def test_group_life_in_every_language(harness: Harness, language: str) -> None:
    from bot.render.settings_menu import LANGUAGE_NAMES

    sealed, hand, over, rematch, top, stats, replay = LOCAL[language]
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    for i, name in ((1, "Ann"), (2, "Bob")):
        fake.add_user(i, name, language=language, started=False)
        fake.send(i, i, "/start")
        await fake.wait_for(lambda i=i: fake.last(i), what="the welcome")  # type: ignore[misc]
    fake.admins[GROUP] = {1}
    fake.send(1, GROUP, "/settings")
    menu = await _lobby_in(harness, GROUP)
    choice = next(data for label, data in menu.buttons() if LANGUAGE_NAMES[language] in label)
    await press_and_wait(fake, 1, GROUP, menu.message_id, choice)
    fake.send(1, GROUP, "/newgame")
    lobby = await fake.wait_for(
        lambda: (m := fake.last(GROUP)) is not None and m.message_id != menu.message_id and m, what="a lobby"
    )
    await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    await fake.wait_for(lambda: "Bob" in fake.messages[GROUP][lobby.message_id].text, what="Bob seated")
    await start(harness, lobby)
    await fake.wait_for(lambda: sealed in fake.messages[GROUP][lobby.message_id].text, what="the seal")
    await fake.wait_for(lambda: (m := hand_message(fake, 1)) is not None and hand in m.text, what="a hand")
    result_text = await play_until_over(fake, GROUP, [1, 2], random.Random(21))
    assert over in result_text
    result = next(m for m in fake.bot_messages(GROUP) if m.text == result_text)
    assert [label for label, _ in result.buttons()] == [rematch]
    game_id = result_text.split("#")[1].split("<")[0]
    for command, expected in (("/top", top), ("/stats", stats), (f"/replay {game_id}", replay)):
        fake.send(2, GROUP, command)
        await _group_says(fake, expected)
    await press_and_wait(fake, 2, GROUP, result.message_id, result.buttons()[0][1])
    await fake.wait_for(
        lambda: any("⏳" in m.text for m in fake.bot_messages(GROUP)), what="the rematch lobby"
    )


async def _group_says(fake: FakeTelegram, text: str) -> None:
    await fake.wait_for(lambda: any(text in m.text for m in fake.bot_messages(GROUP)), what=text)


async def test_stats_of_a_replied_to_user(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(22))
    said = fake.send(2, GROUP, "good game")
    fake.send(1, GROUP, "/stats", reply_to=said)
    await _group_says(fake, "Stats: Bob")


async def test_starting_alone_or_with_a_wrong_team_size_is_refused(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"], ["teams"])
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    assert "exactly 4 or 6" in str(answer.get("text"))
    for user in (2, 3):
        await press_and_wait(fake, user, GROUP, lobby.message_id, f"L:{table_id(lobby)}:leave")
    await fake.wait_for(
        lambda: "Cid" not in fake.messages[GROUP][lobby.message_id].text, what="Cid seats_out"
    )
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    assert "At least 2 players" in str(answer.get("text"))


async def test_rules_give_the_short_form_and_link_the_rule_book_when_the_operator_set_one(
    harness: Harness,
) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann"])
    fake.send(1, 1, "/rules")
    short = await fake.wait_for(lambda: next((m for m in fake.bot_messages(1) if "durak" in m.text), None))
    assert "rule book" not in short.text
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path, rules_url="https://example.org/rules.md")
    fake.send(1, 1, "/rules")
    await fake.wait_for(
        lambda: any(
            "rule book" in m.text and "https://example.org/rules.md" in m.text for m in fake.bot_messages(1)
        ),
        what="the link",
    )


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_webhook_mode_plays_a_whole_game_and_refuses_updates_without_the_secret(
    harness: Harness,
) -> None:
    """Production mode: Telegram posts each update to the bot's HTTPS URL (a reverse proxy hands it to
    WEBHOOK_LISTEN:WEBHOOK_PORT) with the secret token in a header."""
    fake = harness.fake
    await stop_app(harness.app)
    harness.app = await start_app(
        fake,
        harness.db_path,
        webhook_url="https://durak.example.org/telegram/hook",
        webhook_secret="s3cret-token_1",
        webhook_listen="127.0.0.1",
        webhook_port=free_port(),
    )
    assert fake.webhook == {
        "url": "https://durak.example.org/telegram/hook",
        "secret_token": "s3cret-token_1",
    }
    assert fake.webhook_target is not None and fake.webhook_target.endswith("/telegram/hook")
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(31))
    assert "Game over" in result
    assert fake.webhook_answers and set(fake.webhook_answers) == {200}
    # A forged update (a press for Bob's seat) without the secret, or with a wrong one, is refused unread.
    before = len(fake.answers)
    refused = REGISTRY.get_sample_value("durak_webhook_refused_total") or 0.0
    forged = {"update_id": 10**6, "message": {"message_id": 1, "date": 0, "chat": fake.chat(GROUP),
              "from": fake.users[2], "text": "/newgame"}}  # fmt: skip
    assert await fake.post_update(forged, None) == 403
    assert await fake.post_update(forged, "wrong") == 403
    assert REGISTRY.get_sample_value("durak_webhook_refused_total") == refused + 2  # counted for the operator
    await asyncio.sleep(0.2)
    assert len(fake.answers) == before
    assert not any("New game" in m.text for m in fake.bot_messages(GROUP)[-1:])


def test_a_webhook_without_a_secret_is_refused_at_start() -> None:
    from bot.settings import SettingsError, load_settings
    from tests.bot.fake_telegram import TOKEN

    with pytest.raises(SettingsError, match="WEBHOOK_SECRET is required"):
        load_settings(bot_token=TOKEN, webhook_url="https://durak.example.org/hook")
