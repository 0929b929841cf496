"""Conceding through the real bot (docs/rules.md §9): "🏳 Concede" asks first; heads-up the game ends at once
with the player who conceded as the durak; with more players they take the last place, a bot plays their cards
and the others' game goes on; rated like any loss."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness
from tests.bot.fake_telegram import FakeTelegram, Message
from tests.bot.players import GROUP, button, hand_message, open_table, play_until_over, press_and_wait, start


async def concede(fake: FakeTelegram, user: int) -> None:
    """The player presses "🏳 Concede", sees the question, answers No, then concedes for good."""
    hand: Message = await fake.wait_for(lambda: hand_message(fake, user), what="a hand")
    await press_and_wait(fake, user, user, hand.message_id, button(hand, "q:"))
    asked = await fake.wait_for(
        lambda: (m := hand_message(fake, user)) and "Concede? " in m.text and m, what="the question"
    )
    assert [label for label, _ in asked.buttons()] == ["Yes, I concede", "No, play on"]
    await press_and_wait(
        fake, user, user, asked.message_id, next(d for _, d in asked.buttons() if d.endswith(":no"))
    )
    back = await fake.wait_for(
        lambda: (m := hand_message(fake, user)) and "Concede? " not in m.text and m,
        what="the hand again",
    )
    await press_and_wait(fake, user, user, back.message_id, button(back, "q:"))
    asked = await fake.wait_for(
        lambda: (m := hand_message(fake, user)) and "Concede? " in m.text and m, what="the question"
    )
    answer = await press_and_wait(
        fake, user, user, asked.message_id, next(d for _, d in asked.buttons() if d.endswith(":yes"))
    )
    assert "show_alert" not in answer, answer


async def test_heads_up_a_concession_ends_the_game_at_once_and_is_rated(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await concede(fake, 2)
    result = await fake.wait_for(
        lambda: next((m.text for m in fake.bot_messages(GROUP) if "Game over" in m.text), None),
        what="the result",
    )
    assert "Bob is the durak." in result and "Bob concedes" not in result
    assert "1500 →" in result  # rated: both ratings moved
    stored = await harness.deps.storage.results.players(int(result.split("#")[1].split("<")[0].split()[0]))
    assert {p.user_id: (p.place, p.durak, p.ended) for p in stored} == {
        1: (1, False, "played"),
        2: (2, True, "played"),
    }


async def test_with_four_players_the_conceder_is_last_and_the_others_play_on(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid", "Dan"])
    await start(harness, lobby)
    old = await fake.wait_for(lambda: hand_message(fake, 3), what="Cid's hand")
    await concede(fake, 3)
    await fake.wait_for(
        lambda: (m := hand_message(fake, 3)) and "You conceded" in m.text and not m.buttons() and m,
        what="Cid's hand without buttons",
    )
    await fake.wait_for(
        lambda: "Cid concedes" in fake.messages[GROUP][lobby.message_id].text, what="the table"
    )
    moves = [d for _, d in old.buttons() if d.startswith("m:")]
    if old.message_id in fake.messages[3] and moves:  # a button of a hand from before is refused
        answer = await press_and_wait(fake, 3, 3, old.message_id, moves[0])
        assert "You conceded" in str(answer.get("text"))
    result = await play_until_over(fake, GROUP, [1, 2, 4], random.Random(8))
    assert "Cid is the durak." in result
    game_id = int(result.split("#")[1].split("<")[0].split()[0])
    places = {p.user_id: p.place for p in await harness.deps.storage.results.players(game_id)}
    assert places[3] == 4 and sorted(places[u] for u in (1, 2, 4))[0] == 1


async def test_a_player_who_is_out_is_not_asked_to_concede(harness: Harness) -> None:
    """A player with no cards left who presses an old "🏳 Concede" is told they are out, not asked whether to
    take the last place (the engine's rule: docs/rules.md §9)."""
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob", "Cid"])
    await start(harness, lobby)
    (live,) = harness.deps.service.tables.values()
    rng = random.Random(5)
    while live.game is not None and not live.game.over and all(bout < 0 for bout in live.game.out):
        await play_until_over(fake, GROUP, [1, 2, 3], rng, limit=1, allow_unfinished=True)
    assert live.game is not None and not live.game.over, "nobody went out before the end: another seed"
    seat = next(s for s, bout in enumerate(live.game.out) if bout >= 0)
    user = live.row.seats[seat].user_id
    assert user is not None
    hand: Message = await fake.wait_for(lambda: hand_message(fake, user), what="their hand")
    version = live.game.version
    answer = await press_and_wait(fake, user, user, hand.message_id, f"q:{live.id}:ask")
    assert answer.get("show_alert") and answer.get("text") == "You've already gone out of this game.", answer
    await harness.deps.outbox.idle()
    assert all("Concede? " not in m.text for m in fake.bot_messages(user))
    assert live.game.version == version
