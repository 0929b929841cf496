"""Reliability: how each player's recent games in a group ended for them (played to the end, left, ran out of
time), in /stats, and a mark in the lobby for whoever walked away from most of them."""

from __future__ import annotations

import random

from tests.bot.conftest import Harness
from tests.bot.fake_telegram import Message
from tests.bot.players import GROUP, open_table, play_until_over, press_and_wait, start, table_id


async def stats(h: Harness, user: int) -> str:
    return str((await h.fake.ask(user, GROUP, "/stats")).text)


async def next_lobby(h: Harness) -> Message:
    """Ann opens a new table and Bob joins it."""
    fake = h.fake
    before = {m.message_id for m in fake.bot_messages(GROUP)}
    fake.send(1, GROUP, "/newgame")
    lobby: Message = await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(GROUP) if m.message_id not in before and "New game" in m.text), None
        ),
        what="a new lobby",
    )
    await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    await fake.wait_for(lambda: "Bob" in fake.messages[GROUP][lobby.message_id].text, what="Bob seated")
    return lobby


async def test_a_left_game_and_a_timed_out_game_count_in_stats_and_mark_the_lobby(harness: Harness) -> None:
    fake = harness.fake
    service = harness.deps.service
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    fake.send(2, GROUP, "/leave")  # a bot plays Bob's seat to the end
    live = service.tables[table_id(lobby)]
    await fake.wait_for(lambda: live.game is not None and live.game.is_auto(1), what="a bot in Bob's seat")
    await play_until_over(fake, GROUP, [1], random.Random(1))
    assert "Played to the end: 0 of 1 game (walked out: 1)" in await stats(harness, 2)

    lobby = await next_lobby(harness)
    await start(harness, lobby)
    live = service.tables[table_id(lobby)]
    game = live.game
    assert game is not None
    # Bob's timer runs out on his moves (the job PTB's queue runs at the deadline) until a bot takes the seat;
    # Ann moves whenever it is her turn.
    rng = random.Random(2)
    while not game.is_auto(1):
        if 1 in game.to_act():
            await service.timeout(live.id, game.version)
        else:
            await play_until_over(fake, GROUP, [1], rng, limit=1, allow_unfinished=True)
        game = live.game
        assert game is not None
    await play_until_over(fake, GROUP, [1], rng)
    bob = await stats(harness, 2)
    assert "Played to the end: 0 of the last 2 games (walked out: 1 · timed out: 1)" in bob
    assert "Played to the end: 2 of the last 2 games\n" in await stats(harness, 1)

    lobby = await next_lobby(harness)
    shown = fake.messages[GROUP][lobby.message_id].text
    assert "Bob 🚪" in shown and "Ann 🚪" not in shown
    assert "🚪 left or ran out of time in most of their recent games here" in shown
