"""Cards in the group: each player's hand inside the group chat as an ephemeral message only they see, through
the real PTB stack and the fake Bot API (which keeps what each client shows apart from what its server
holds, and enforces Telegram's rules: a bot that is not an administrator sends one only as the answer to its
receiver's press, within 15 seconds). Every test runs with the bot an administrator of the group and with it
a plain member. Players who never started the bot play from the group alone; hidden cards stay hidden from
every other user's screen; a lost hand comes back with "🃏 My cards"."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.callbacks import CardsPress, MovePress, encode
from engine.cards import card_str, cards_of
from engine.moves import TAKE
from tests.bot.conftest import Harness, running, start_app, stop_app
from tests.bot.fake_telegram import ApiError, FakeTelegram, Message, RateLimits
from tests.bot.players import (
    GROUP,
    choose,
    group_hand,
    hand_message,
    is_result,
    move_choices,
    press_and_wait,
    table_id,
)

SCALE = 0.01  # the bot's RATE_SCALE in these tests (tests/bot/conftest.py)


@pytest.fixture(params=[("admin", "group"), ("member", "group"), ("member", "receiver")])
async def harness(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Harness]:
    """The bot an administrator of the group or a plain member, and both models of how Telegram counts
    ephemeral messages, the fake enforcing the same one as the bot keeps to."""
    rights, model = request.param
    async for h in running(tmp_path, ephemeral_limits=model):
        h.fake.ephemeral_limits = model
        h.fake.limits = RateLimits(scale=SCALE)
        if rights == "admin":
            h.fake.bot_rights[GROUP] = set()
        yield h


def admin(h: Harness) -> bool:
    return GROUP in h.fake.bot_rights


async def show_my_cards(h: Harness, user: int, lobby: Message) -> Message:
    """The player presses 🃏 My cards under the table: their hand comes, as the answer to that press."""
    before = {m.message_id for m in h.fake.shown_to(user, GROUP)}
    answer = await press_and_wait(
        h.fake, user, GROUP, current_table(h.fake, lobby).message_id, my_cards(lobby)
    )
    assert not answer.get("show_alert"), answer
    fresh: Message = await h.fake.wait_for(
        lambda: next((m for m in h.fake.shown_to(user, GROUP) if m.message_id not in before), None),
        what=f"{user}'s hand",
    )
    return fresh


async def hands_in_group(h: Harness, users: list[int], lobby: Message) -> None:
    """Each of ``users`` sees their hand in the group: sent by itself where the bot is an administrator;
    where it is not, as the answer to their last press if that was a moment ago (Join, say), else they press
    🃏 My cards (Telegram allows nothing else)."""
    for user in users:
        if admin(h):
            await h.fake.wait_for(lambda u=user: group_hand(h.fake, u), what=f"{user}'s hand")  # type: ignore[misc]
            continue
        await h.deps.outbox.idle()
        if group_hand(h.fake, user) is None:
            await show_my_cards(h, user, lobby)


async def press_in_group(fake: FakeTelegram, user: int, message: Message, data: str) -> dict[str, object]:
    callback = fake.press_ephemeral(user, GROUP, message.message_id, data)
    await fake.wait_for(lambda: fake.answers[callback], what=f"an answer to {data}")
    return fake.answers[callback][0]


async def lobby_of(h: Harness, names: list[str], started: list[bool]) -> Message:
    """The group, its users (some never started the bot), a table opened by the first and joined by all."""
    fake = h.fake
    fake.add_group(GROUP, "Friends")
    for user, (name, did) in enumerate(zip(names, started, strict=True), 1):
        fake.add_user(user, name, started=False)
        if did:
            fake.send(user, user, "/start")
            await fake.wait_for(lambda u=user: fake.last(u), what="the welcome")  # type: ignore[misc]
    fake.send(1, GROUP, "/newgame")
    lobby: Message = await fake.wait_for(lambda: fake.last(GROUP), what="the lobby")
    table = table_id(lobby)
    for user in range(2, len(names) + 1):
        answer = await press_and_wait(fake, user, GROUP, lobby.message_id, f"L:{table}:join")
        assert not answer.get("show_alert"), answer
        if not started[user - 1]:  # told where the cards will be, instead of being sent to a private chat
            assert "My cards" in str(answer.get("text"))
    await fake.wait_for(lambda: names[-1] in fake.messages[GROUP][lobby.message_id].text, what="seated")
    return lobby


def current_table(fake: FakeTelegram, lobby: Message) -> Message:
    """The group's table message as it is now: where the bot is not an admin, it is sent anew (at the bottom)
    whenever it calls somebody to move."""
    cards = ("🃏 My cards", my_cards(lobby))
    return next(m for m in reversed(fake.bot_messages(GROUP)) if cards in m.buttons())


def my_cards(lobby: Message) -> str:
    """What the table's 🃏 My cards button sends."""
    return encode(CardsPress(table_id(lobby)))


async def dealt(fake: FakeTelegram, lobby: Message) -> Message:
    """The table once dealt: the lobby's message as the game edits it, with its 🃏 My cards button. The
    start press is answered before that edit, so the lobby itself is no sign the game is on."""
    cards = ("🃏 My cards", my_cards(lobby))
    table: Message = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if cards in m.buttons()), None), what="the table"
    )
    return table


def no_hidden_card_shown(h: Harness, users: list[int]) -> None:
    """Nothing any user's screen shows in the group or in private holds a card hidden from that user."""
    fake = h.fake
    (live,) = h.deps.service.tables.values()
    game = live.game
    assert game is not None
    for user in users:
        seat = live.seat_of(user)
        hidden = set()
        for s in range(game.players):
            if s != seat:
                hidden |= set(cards_of(game.hands[s] & ~game.known[s]))
        hidden.discard(game.trump_card)
        texts = fake.visible(user, GROUP) + [m.text for m in fake.bot_messages(user)]
        for text in texts:
            assert not [c for c in hidden if card_str(c) in text], (user, text)


def within_limits(fake: FakeTelegram, *, restarted: bool = False) -> None:
    """No call was refused with a 429 nor made before one's retry_after, and the group got at most 20 calls
    in any (scaled) minute: its own messages, and in the group model the in-group hands too. No call was
    refused at all, unless the bot ``restarted``: a new process does not know what its messages show, and
    learns it from an edit Telegram answers "not modified"."""
    assert [s for s in fake.sent if s.error == 429] == [] and fake.too_early == []
    assert restarted or [s for s in fake.sent if not s.ok] == []
    window = 60 * SCALE
    counted = [
        s.at
        for s in fake.sent
        if s.chat_id == GROUP and (s.receiver is None or fake.ephemeral_limits == "group")
    ]
    worst = max((sum(1 for t in counted if a <= t < a + window) for a in counted), default=0)
    assert worst <= 20, worst


async def test_a_three_player_game_played_to_its_result_from_the_group_alone(harness: Harness) -> None:
    """Ann chose the group in her settings, Bob (who started the bot) asks for his cards in the group with
    🃏 My cards, Cid never started the bot: all three play every move from their in-group hands."""
    fake = harness.fake
    names, users = ["Ann", "Bob", "Cid"], [1, 2, 3]
    lobby = await lobby_of(harness, names, [True, True, False])
    await choose(fake, 1, "group")
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    assert "text" not in answer, answer
    await dealt(fake, lobby)
    await show_my_cards(harness, 2, lobby)
    await hands_in_group(harness, [1, 3], lobby)

    def private_hands(user: int) -> list[Message]:
        return [m for m in fake.bot_messages(user) if "Your hand" in m.text]

    assert private_hands(1) == [] and private_hands(3) == []  # Ann chose the group, Cid cannot have one
    assert private_hands(2)  # Bob keeps his private hand as well

    rng = random.Random(30)
    presses = 0
    while not any(is_result(m.text) for m in fake.bot_messages(GROUP)):
        assert presses < 3000, "the game did not end"
        for user in rng.sample(users, len(users)):
            message = group_hand(fake, user)
            choices = move_choices(message.seen[1]) if message is not None and message.seen else []
            if message is not None and choices:
                await press_in_group(fake, user, message, rng.choice(choices))
                presses += 1
                no_hidden_card_shown(harness, users)
                break
        else:
            await fake.wait_for(
                lambda: (
                    any(move_choices(m.seen[1]) for u in users for m in fake.shown_to(u, GROUP) if m.seen)
                    or any(is_result(m.text) for m in fake.bot_messages(GROUP))
                ),
                what="a hand with moves",
            )
    # Each in-group hand ends on its own player's result; nobody was ever shown another's hand.
    await harness.deps.outbox.idle()
    for user in users:
        (last,) = [m for m in fake.shown_to(user, GROUP) if not m.gone]
        assert last.seen is not None and ("Your place" in last.seen[0] or "durak" in last.seen[0])
        assert all(m.receiver == user for m in fake.shown_to(user, GROUP))
    # The group never got a move keyboard in its own history, and every press had one answer.
    assert all(not d.startswith(("m:", "k:")) for m in fake.bot_messages(GROUP) for _, d in m.buttons())
    assert all(len(a) == 1 for a in fake.answers.values())
    within_limits(fake)


async def test_a_player_with_both_channels_plays_from_either_and_hears_one_sound_a_turn(
    harness: Harness,
) -> None:
    fake = harness.fake
    lobby = await lobby_of(harness, ["Ann", "Bob"], [True, True])
    await choose(fake, 1, "both")
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await hands_in_group(harness, [1], lobby)
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    ann = live.seat_of(1)
    rng = random.Random(4)
    from_group = from_private = 0
    while live.game is not None and not live.game.over and from_group + from_private < 8:
        await harness.deps.outbox.idle()
        user = 1 if ann in live.game.to_act() else 2
        if user == 1 and from_group <= from_private:
            message = group_hand(fake, 1)
            assert message is not None and message.seen is not None
            await press_in_group(fake, 1, message, rng.choice(move_choices(message.seen[1])))
            from_group += 1
        else:
            private = hand_message(fake, user)
            assert private is not None
            await press_and_wait(
                fake, user, user, private.message_id, rng.choice(move_choices(private.reply_markup))
            )
            from_private += user == 1
    assert from_group >= 2 and from_private >= 2
    await harness.deps.outbox.idle()
    # Both of Ann's hands show the same, current game; only her private one sounds when her turn comes.
    group, private = group_hand(fake, 1), hand_message(fake, 1)
    assert group is not None and group.seen is not None and private is not None
    assert group.seen[0] == private.text
    sent_to_ann_in_group = [s for s in fake.sent if s.receiver == 1 and s.method == "sendMessage"]
    assert len(sent_to_ann_in_group) == 1  # sent once, then only edited: silent
    assert len([s for s in fake.sent if s.chat_id == 1 and s.method == "sendMessage" and s.sound]) > 2
    within_limits(fake)


async def test_a_lost_hand_comes_back_with_my_cards_and_a_stranger_is_refused(harness: Harness) -> None:
    fake = harness.fake
    lobby = await lobby_of(harness, ["Ann", "Bob"], [True, False])
    fake.offline.add(2)  # Bob's phone is offline when the cards are dealt: his hand never reaches it
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    live = harness.deps.service.tables[table_id(lobby)]
    if not admin(harness):  # he presses 🃏 My cards, and the answer is lost on the way too
        answer = await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
        assert not answer.get("show_alert"), answer
    await fake.wait_for(
        lambda: any(m.receiver == 2 for m in fake.ephemeral.get(GROUP, {}).values()), what="Bob's hand sent"
    )
    await harness.deps.outbox.idle()
    assert group_hand(fake, 2) is None  # lost, and Telegram said ok: the bot cannot know
    fake.offline.discard(2)
    before = set(fake.ephemeral[GROUP])
    answer = await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
    assert not answer.get("show_alert"), answer
    fresh = await fake.wait_for(
        lambda: next((m for m in fake.shown_to(2, GROUP) if m.message_id not in before), None), what="fresh"
    )
    await harness.deps.outbox.idle()
    assert fresh.seen == (fresh.text, fresh.reply_markup)  # the current hand, as the server holds it
    assert "Your hand" in fresh.text
    assert all(fake.ephemeral[GROUP][i].gone for i in before if fake.ephemeral[GROUP][i].receiver == 2)
    # Somebody not at the table: a short alert, and nothing sent for them.
    fake.add_user(9, "Mallory")
    answer = await press_and_wait(fake, 9, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
    assert answer.get("show_alert") and "not at this table" in str(answer.get("text"))
    assert not fake.shown_to(9, GROUP)
    # ... nor can they play Bob's seat by sending a move under his hand.
    assert live.game is not None
    version = live.game.version
    answer = await press_in_group_as(fake, 9, fresh, encode(MovePress(live.id, version, TAKE)))
    assert answer.get("show_alert") and "aren't your cards" in str(answer.get("text"))
    assert live.game.version == version
    within_limits(fake)


async def press_in_group_as(fake: FakeTelegram, user: int, message: Message, data: str) -> dict[str, object]:
    """A forged press: ``user`` sends button data from somebody else's in-group hand."""
    callback = fake.press_ephemeral(user, GROUP, message.message_id, data, forged=True)
    await fake.wait_for(lambda: fake.answers[callback], what=f"an answer to {data}")
    return fake.answers[callback][0]


async def test_after_a_restart_an_in_group_hand_is_carried_on_not_doubled(harness: Harness) -> None:
    """The in-group hand's id is kept in the database: after a restart the bot edits it, or (when the table
    starts waiting for its player) sends it anew and deletes it; the player never sees two hands."""
    fake = harness.fake
    lobby = await lobby_of(harness, ["Ann", "Bob"], [True, False])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await hands_in_group(harness, [2], lobby)
    hand = await fake.wait_for(lambda: group_hand(fake, 2), what="Bob's hand in the group")
    await harness.deps.outbox.idle()
    await stop_app(harness.app)
    harness.app = await start_app(fake, harness.db_path, ephemeral_limits=fake.ephemeral_limits)
    live = next(iter(harness.deps.service.tables.values()))
    assert live.row.seats[1].group_hand_id == hand.message_id  # kept in the database
    assert live.game is not None
    user = 1 if live.seat_of(1) in live.game.to_act() else 2
    if user == 1:
        private = await fake.wait_for(lambda: hand_message(fake, 1), what="Ann's hand")
        await press_and_wait(fake, 1, 1, private.message_id, move_choices(private.reply_markup)[0])
    else:  # Bob's hand as it is now: the restarted bot may already have sent it anew (his turn sounds)
        current = await fake.wait_for(
            lambda: (m := group_hand(fake, 2)) is not None and m.seen and move_choices(m.seen[1]) and m,
            what="Bob's hand with his moves",
        )
        await press_in_group(fake, 2, current, move_choices(current.seen[1])[0])
    await harness.deps.outbox.idle()
    (shown,) = fake.shown_to(2, GROUP)
    assert shown.seen == (shown.text, shown.reply_markup)
    assert live.row.seats[1].group_hand_id == shown.message_id
    within_limits(fake, restarted=True)  # across the restart too: the new process knows what was sent


async def test_a_client_too_old_for_ephemeral_messages_still_plays_from_private(harness: Harness) -> None:
    fake = harness.fake
    fake.old_clients.add(2)
    lobby = await lobby_of(harness, ["Ann", "Bob"], [True, True])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await press_and_wait(fake, 2, GROUP, current_table(fake, lobby).message_id, my_cards(lobby))
    await harness.deps.outbox.idle()
    assert fake.shown_to(2, GROUP) == [] and any(m.receiver == 2 for m in fake.ephemeral[GROUP].values())
    private = [m for m in fake.bot_messages(2) if "Your hand" in m.text]
    assert private and fake.messages[2][private[-1].message_id].text.startswith("<b>Your hand")


async def test_a_429_on_an_in_group_hand_is_waited_out_never_undercut(harness: Harness) -> None:
    fake = harness.fake
    lobby = await lobby_of(harness, ["Ann", "Bob"], [True, False])
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:start")
    await dealt(fake, lobby)
    await hands_in_group(harness, [2], lobby)
    await harness.deps.outbox.idle()
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    # Bob's next in-group hand is refused once with a 429: sent anew when Ann's lead makes him defend (the
    # one send of that move; edited where the bot is not an admin), or edited after his own lead.
    ann_leads = live.seat_of(1) in live.game.to_act()
    method = "sendMessage" if ann_leads and admin(harness) else "editEphemeralMessageText"
    fake.fail_next(method, ApiError(429, "Too Many Requests: retry after 1", retry_after=1))
    if ann_leads:
        private = await fake.wait_for(lambda: hand_message(fake, 1), what="Ann's hand")
        await press_and_wait(fake, 1, 1, private.message_id, move_choices(private.reply_markup)[0])
    else:
        hand = group_hand(fake, 2)
        assert hand is not None and hand.seen is not None
        await press_in_group(fake, 2, hand, move_choices(hand.seen[1])[0])
    refused = await fake.wait_for(lambda: next((s for s in fake.sent if not s.ok), None), what="the 429")
    assert refused.receiver == 2
    await fake.wait_for(
        lambda: any(s.ok and s.receiver == 2 and s.at >= refused.at + 1.0 for s in fake.sent), what="retried"
    )
    await harness.deps.outbox.idle()
    (shown,) = fake.shown_to(2, GROUP)
    assert shown.seen == (shown.text, shown.reply_markup) and fake.too_early == []
