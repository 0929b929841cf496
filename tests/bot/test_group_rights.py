"""Cards in the group as Telegram allows them (bot.ephemeral), through the real PTB stack and the fake Bot API,
which enforces the rules: a bot that is not an administrator of the group sends an ephemeral message only as
the answer to its receiver's press, within 15 seconds, once; a server older than Bot API 10.3 answers 404 to
the ephemeral methods and posts a "hand" to the whole group; a 429 holds the whole chat. Nobody's screen ever
shows another player's card, whatever the bot's rights or the server."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import ephemeral
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import ApiError, FakeTelegram, Message, RateLimits
from tests.bot.players import (
    GROUP,
    group_hand,
    hand_message,
    is_result,
    move_choices,
    press_and_wait,
    table_id,
)
from tests.bot.test_cards_in_group import (
    SCALE,
    current_table,
    dealt,
    lobby_of,
    my_cards,
    no_hidden_card_shown,
    press_in_group,
    within_limits,
)
from tests.bot.test_stop import bot_process, stop


@pytest.fixture
async def member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    """The bot a plain member of the group, and a press allowing it an answer for 0.6 s (not fifteen),
    so that presses made before a short pause allow nothing any more."""
    monkeypatch.setattr(ephemeral, "GRANT_SECONDS", 0.6)
    async for h in running(tmp_path):
        h.fake.limits = RateLimits(scale=SCALE)
        yield h


@pytest.fixture
async def old_server(tmp_path: Path) -> AsyncIterator[Harness]:
    """A Bot API server older than 10.3, the bot an administrator of the group."""
    async for h in running(tmp_path, fake=FakeTelegram(api_version=(10, 2))):
        h.fake.bot_rights[GROUP] = set()
        yield h


@pytest.fixture
async def receiver(tmp_path: Path) -> AsyncIterator[Harness]:
    """In-group hands paced as their receivers' own (EPHEMERAL_LIMITS=receiver), the bot an administrator."""
    async for h in running(tmp_path, ephemeral_limits="receiver"):
        h.fake.ephemeral_limits = "receiver"
        h.fake.bot_rights[GROUP] = set()
        yield h


def mentions(text: str) -> set[int]:
    return {int(part.split('"', 1)[0]) for part in text.split('href="tg://user?id=')[1:]}


async def play_from_the_group(
    h: Harness, lobby: Message, users: list[int], seed: int, *, pause_every: int = 0
) -> int:
    """Every player plays from the group as a person would: if their hand is not there (nothing came, it was
    lost), they press 🃏 My cards under the table; otherwise they press one of its moves (and every
    ``pause_every`` presses, everybody looks away for a while first). After every press nobody's screen shows
    another's card. Returns how often 🃏 My cards was pressed."""
    fake, rng = h.fake, random.Random(seed)
    asked = presses = 0
    while not any(is_result(m.text) for m in fake.bot_messages(GROUP)):
        assert presses < 3000, "the game did not end"
        acted = False
        for user in rng.sample(users, len(users)):
            hand = group_hand(fake, user)
            if hand is None:
                table = current_table(fake, lobby)
                answer = await press_and_wait(fake, user, GROUP, table.message_id, my_cards(lobby))
                assert not answer.get("show_alert"), answer
                await fake.wait_for(lambda u=user: group_hand(fake, u), what="the hand asked for")  # type: ignore[misc]
                asked += 1
            elif hand.seen is not None and move_choices(hand.seen[1]):
                if pause_every and presses % pause_every == pause_every - 1:
                    await asyncio.sleep(ephemeral.GRANT_SECONDS + 0.2)  # no press allows the bot anything
                    await h.deps.outbox.idle()
                    hand = group_hand(fake, user)
                    if hand is None or hand.seen is None or not move_choices(hand.seen[1]):
                        continue
                choices = move_choices(hand.seen[1]) if hand.seen is not None else []
                await press_in_group(fake, user, hand, rng.choice(choices))
            else:
                continue
            presses += 1
            acted = True
            no_hidden_card_shown(h, users)
            break
        if not acted:
            await asyncio.sleep(0.02)
    return asked


async def test_nobody_started_the_bot_and_it_is_no_admin_yet_three_play_to_the_result(
    member: Harness,
) -> None:
    """The README's set-up: the bot a plain member of the group, and three players who never opened its
    private chat. It sends no hand Telegram would refuse: only as the answer to a press, within the window
    (shortened here to 0.6 s, so that the joins are long past when the cards are dealt). Whoever must move
    is called by name on the table message, sent anew so that the mention sounds; the player presses 🃏 My
    cards, and from then on their hand is kept current by edits."""
    h, fake = member, member.fake
    users = [1, 2, 3]
    lobby = await lobby_of(h, ["Ann", "Bob", "Cid"], [False, False, False])
    await asyncio.sleep(0.8)  # Bob's and Cid's presses (Join) no longer allow the bot anything
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await h.deps.outbox.idle()
    assert fake.shown_to(2, GROUP) == [] and fake.shown_to(3, GROUP) == []  # nothing came by itself
    live = h.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    movers = {live.row.seats[s].user_id for s in live.game.to_act()}
    table = current_table(fake, lobby)
    assert mentions(table.text) == movers - {1} or (movers == {1} and group_hand(fake, 1) is not None)
    asked = await play_from_the_group(h, lobby, users, seed=51, pause_every=30)
    assert asked >= 2  # Bob and Cid at least: nothing reached them unasked
    await h.deps.outbox.idle()
    # Every in-group hand sent was the answer to its player's press a moment before (the fake refuses any
    # other: none was refused), and the table called a player each time the turn came to one whose hand
    # could not sound.
    sends = [s for s in fake.sent if s.receiver is not None and s.method == "sendMessage"]
    assert sends and all(s.ok for s in sends)
    calls = [
        s
        for s in fake.sent
        if s.chat_id == GROUP and s.receiver is None and s.method == "sendMessage" and mentions(s.text)
    ]
    assert len(calls) >= 2 and all(s.sound for s in calls)
    assert len(fake.bot_messages(GROUP)) <= 3  # each table sent anew deleted the one before it
    within_limits(fake)


async def test_nobody_started_the_bot_and_it_is_an_admin_three_play_to_the_result(member: Harness) -> None:
    """The same three players with the bot an admin: every hand comes by itself at the deal, sounds when its
    player's turn comes, and the table never needs to call anybody."""
    h, fake = member, member.fake
    fake.bot_rights[GROUP] = set()
    lobby = await lobby_of(h, ["Ann", "Bob", "Cid"], [False, False, False])
    await asyncio.sleep(ephemeral.GRANT_SECONDS + 0.2)  # no press allows anything: only the rights do
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    for user in (1, 2, 3):
        await fake.wait_for(lambda u=user: group_hand(fake, u), what="a hand that came by itself")  # type: ignore[misc]
    asked = await play_from_the_group(h, lobby, [1, 2, 3], seed=52)
    await h.deps.outbox.idle()
    assert asked == 0
    assert not [s for s in fake.sent if s.chat_id == GROUP and s.receiver is None and mentions(s.text)]
    assert [s for s in fake.sent if s.receiver is not None and s.method == "sendMessage" and s.sound]
    within_limits(fake)


async def test_made_an_admin_mid_game_the_bot_sends_hands_by_itself_from_then_on(member: Harness) -> None:
    h, fake = member, member.fake
    lobby = await lobby_of(h, ["Ann", "Bob"], [False, False])
    await asyncio.sleep(ephemeral.GRANT_SECONDS + 0.2)
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await h.deps.outbox.idle()
    assert fake.shown_to(2, GROUP) == []
    fake.admins[GROUP] = {1}
    fake.promote_bot(GROUP, by=1, rights={"can_delete_messages"})
    await fake.wait_for(lambda: fake.calls["getChatMember"] >= 1, what="the rights asked again")
    # Ann moves when her turn comes; Bob's hand now comes without a press, sounding on his turn.
    live = h.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    for _ in range(6):
        await h.deps.outbox.idle()
        ann = live.seat_of(1) in live.game.to_act()
        user = 1 if ann else 2
        hand = await fake.wait_for(lambda u=user: group_hand(fake, u), what="the hand of whoever moves")  # type: ignore[misc]
        if hand.seen is None or not move_choices(hand.seen[1]):
            break
        await press_in_group(fake, user, hand, move_choices(hand.seen[1])[0])
    await h.deps.outbox.idle()
    assert group_hand(fake, 2) is not None
    assert [s for s in fake.sent if not s.ok] == []


async def test_a_server_without_ephemeral_messages_never_shows_a_hand_to_the_group(
    old_server: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """A local Bot API server older than 10.3: the bot finds out at start (a probe that sends nothing) and
    sends no in-group hand; 🃏 My cards says where the cards can be had instead. A server that passes the
    probe and still posts a "hand" to everyone (a proxy that drops the parameter, say) has it deleted at
    once, never sent again, and in-group hands stop there with one line for the operator."""
    h, fake = old_server, old_server.fake
    lobby = await lobby_of(h, ["Ann", "Bob"], [True, False])
    assert h.deps.outbox.support.known is False
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    table = await dealt(fake, lobby)
    answer = await press_and_wait(fake, 2, GROUP, table.message_id, my_cards(lobby))
    assert answer.get("show_alert") and "can't show cards in the group" in str(answer.get("text"))
    await h.deps.outbox.idle()
    timeline = [m.text for m in fake.messages[GROUP].values()]
    assert not any("Your hand" in text for text in timeline) and fake.deleted == []
    assert [s for s in fake.sent if "Your hand" in s.text and s.chat_id == GROUP] == []
    lines = [r.message for r in caplog.get_records("setup") + caplog.records if "ephemeral" in r.message]
    assert len(lines) == 1 and "10.3" in lines[0]  # said once, at start
    # The probe fooled: the one "hand" posted to everyone is deleted at once, and nothing more is tried.
    h.deps.outbox.support.known = True
    answer = await press_and_wait(fake, 2, GROUP, table.message_id, my_cards(lobby))
    await h.deps.outbox.idle()
    public = [s for s in fake.sent if "Your hand" in s.text and s.chat_id == GROUP]
    assert len(public) == 1 and [m for m in fake.bot_messages(GROUP) if "Your hand" in m.text] == []
    assert len(fake.deleted) == 1 and h.deps.outbox.support.known is False
    answer = await press_and_wait(fake, 2, GROUP, table.message_id, my_cards(lobby))
    assert answer.get("show_alert")
    await h.deps.outbox.idle()
    assert len([s for s in fake.sent if "Your hand" in s.text and s.chat_id == GROUP]) == 1
    lines = [r.message for r in caplog.get_records("setup") + caplog.records if "ephemeral" in r.message]
    assert len(lines) == 2  # said once more, then never


async def test_a_429_for_an_in_group_hand_holds_the_whole_group_and_moves_its_hands_into_its_budget(
    receiver: Harness,
) -> None:
    """Hands paced as their receivers' own (EPHEMERAL_LIMITS=receiver): Telegram answers one with a 429.
    Nothing goes into the group by any lane until its retry_after, and from then on that group's hands are
    counted in its own budget."""
    h, fake = receiver, receiver.fake
    lobby = await lobby_of(h, ["Ann", "Bob", "Cid"], [False, False, False])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    for user in (1, 2, 3):
        await fake.wait_for(lambda u=user: group_hand(fake, u), what="the hands")  # type: ignore[misc]
    await h.deps.outbox.idle()
    fake.limits = RateLimits(scale=SCALE, retry_after=1.0)
    fake.fail_next(
        "editEphemeralMessageText", ApiError(429, "Too Many Requests: retry after 1", retry_after=1)
    )
    await play_from_the_group_for(h, lobby, [1, 2, 3], presses=6)
    refused = next(s for s in fake.sent if s.error == 429)
    await h.deps.outbox.idle()
    inside = [s for s in fake.sent if s.chat_id == GROUP and refused.at < s.at < refused.at + 1.0]
    assert inside == [] and fake.too_early == []
    assert any(s.chat_id == GROUP and s.at >= refused.at + 1.0 for s in fake.sent)  # then it went on
    assert GROUP in h.deps.outbox.lanes.shared


async def play_from_the_group_for(h: Harness, lobby: Message, users: list[int], presses: int) -> None:
    """Players press moves of their in-group hands, ``presses`` in all (or until the game ends)."""
    fake, rng = h.fake, random.Random(7)
    done = 0
    deadline = time.monotonic() + 30
    while done < presses and time.monotonic() < deadline:
        for user in rng.sample(users, len(users)):
            hand = group_hand(fake, user)
            if hand is not None and hand.seen is not None and move_choices(hand.seen[1]):
                await press_in_group(fake, user, hand, rng.choice(move_choices(hand.seen[1])))
                done += 1
                break
        else:
            await asyncio.sleep(0.02)


async def test_group_only_players_play_on_after_a_kill_9(tmp_path: Path) -> None:
    """The bot an administrator, two players who hold their cards in the group only: the process is killed
    (SIGKILL) mid-game and started again; the game plays on to its result from the in-group hands, each
    player seeing one current hand, nobody another's cards."""
    fake = FakeTelegram()
    runner, port = await fake.serve()
    db = tmp_path / "kill.sqlite3"
    env = {"GROUP_REDRAW_INTERVAL": "0.05", "PRIVATE_REDRAW_INTERVAL": "0.01", "BOT_MOVE_DELAY": "0.01"}
    rng = random.Random(3)
    bot = await bot_process(port, db, env)
    try:
        await fake.wait_for(lambda: fake.commands, timeout=60, what="the bot to start")
        fake.add_group(GROUP, "Friends")
        fake.bot_rights[GROUP] = set()
        for user, name in ((1, "Ann"), (2, "Bob")):
            fake.add_user(user, name, started=False)
        fake.send(1, GROUP, "/newgame")
        lobby = await fake.wait_for(lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons()), None))
        table = int(lobby.buttons()[0][1].split(":")[1])
        await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table}:join")
        await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:start")

        async def press_some(count: int) -> bool:
            """Players press moves of their in-group hands; True once the result is out."""
            for _ in range(count):
                if any(is_result(m.text) for m in fake.bot_messages(GROUP)):
                    return True
                shown = [
                    (u, m)
                    for u in (1, 2)
                    if (m := group_hand(fake, u)) is not None and m.seen and move_choices(m.seen[1])
                ]
                if not shown:
                    await asyncio.sleep(0.05)
                    continue
                user, hand = rng.choice(shown)
                assert hand.seen is not None
                callback = fake.press_ephemeral(
                    user, GROUP, hand.message_id, rng.choice(move_choices(hand.seen[1]))
                )
                await fake.wait_for(lambda c=callback: fake.answers[c], timeout=20, what="an answer")  # type: ignore[misc]
            return any(is_result(m.text) for m in fake.bot_messages(GROUP))

        await fake.wait_for(lambda: group_hand(fake, 1) or group_hand(fake, 2), what="a hand in the group")
        await press_some(8)
        bot.send_signal(signal.SIGKILL)
        await bot.wait()
        bot = await bot_process(port, db, env)
        over = False
        for _ in range(200):
            over = await press_some(10)
            if over:
                break
        assert over, "the game did not end after the restart"
        for user in (1, 2):
            hands = [m for m in fake.shown_to(user, GROUP) if not m.gone]
            assert len(hands) == 1 and hands[0].receiver == user
        assert [s for s in fake.sent if s.error == 429] == [] and fake.too_early == []
    finally:
        await stop(bot)
        await runner.cleanup()


async def test_a_hand_gone_from_the_group_is_forgotten_and_comes_back_with_my_cards(member: Harness) -> None:
    """The bot no admin: Bob's in-group hand expires (Telegram drops ephemeral messages after a while). The
    next change cannot edit it and may not send it anew without his press: it is forgotten (no call is wasted
    on it again) until he presses 🃏 My cards; after his app restarts, likewise."""
    h, fake = member, member.fake
    lobby = await lobby_of(h, ["Ann", "Bob"], [True, False])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await h.deps.outbox.idle()
    live = h.deps.service.tables[table_id(lobby)]
    if group_hand(fake, 2) is None:
        answer = await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
        assert not answer.get("show_alert"), answer
    first = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand")
    await asyncio.sleep(ephemeral.GRANT_SECONDS + 0.1)  # his press allows nothing any more
    fake.ephemeral_ttl = 0.5
    await asyncio.sleep(0.6)
    assert group_hand(fake, 2) is None and fake.ephemeral[GROUP][first.message_id].gone
    fake.ephemeral_ttl = None
    # The game moves on (Ann plays from private, or Bob's timer runs out), so Bob's hand changes: the edit
    # finds it gone, and nothing is sent anew.
    assert live.game is not None
    if live.seat_of(1) in live.game.to_act():
        private = await fake.wait_for(lambda: hand_message(fake, 1), what="Ann's hand")
        await press_and_wait(fake, 1, 1, private.message_id, move_choices(private.reply_markup)[0])
    else:
        await live.play.timeout(live.game.version)  # what the move timer's job does
    await h.deps.outbox.idle()
    assert live.row.seats[live.seat_of(2) or 0].group_hand_id is None  # forgotten
    gone_edits = [s for s in fake.sent if s.receiver == 2 and not s.ok]
    assert len(gone_edits) == 1 and fake.too_early == []
    # 🃏 My cards brings it back, current.
    answer = await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
    assert not answer.get("show_alert"), answer
    back = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand again")
    await h.deps.outbox.idle()
    assert back.seen == (back.text, back.reply_markup) and "Your hand" in back.text
    # His app restarts: the hand is gone from his screen; the next 🃏 My cards brings a fresh one.
    fake.restart_app(2)
    assert group_hand(fake, 2) is None
    answer = await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
    assert not answer.get("show_alert"), answer
    await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand after the restart")
