"""Presses that arrive together, through the real PTB stack (which handles updates concurrently): every
change to a table is read, decided and written under the table's lock, so none is lost or misapplied."""

from __future__ import annotations

from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, table_id


async def _answers(h: Harness, presses: list[tuple[int, str]], message_id: int) -> list[dict[str, object]]:
    """Press every button before any is handled, then wait for all the answers."""
    fake = h.fake
    ids = [fake.press(user, GROUP, message_id, data) for user, data in presses]
    await fake.wait_for(lambda: all(fake.answers[i] for i in ids), what="every press answered")
    return [fake.answers[i][0] for i in ids]


async def test_two_players_leaving_at_once_leave_and_nobody_else_does(harness: Harness) -> None:
    lobby = await open_table(harness, ["Ann", "Bob", "Cid", "Dan"])
    table = table_id(lobby)
    answers = await _answers(harness, [(2, f"L:{table}:leave"), (3, f"L:{table}:leave")], lobby.message_id)
    assert not any(a.get("show_alert") for a in answers), answers
    stored = await harness.deps.storage.tables.get(table)
    assert stored is not None
    assert [s.user_id for s in stored.seats] == [1, 4]
    assert [s.seat for s in stored.seats] == [0, 1]


async def test_three_leaving_at_once_leave_exactly_those_three(harness: Harness) -> None:
    lobby = await open_table(harness, ["Ann", "Bob", "Cid", "Dan", "Eve"])
    table = table_id(lobby)
    leaving = [(user, f"L:{table}:leave") for user in (2, 3, 5)]
    await _answers(harness, leaving, lobby.message_id)
    stored = await harness.deps.storage.tables.get(table)
    assert stored is not None and [s.user_id for s in stored.seats] == [1, 4]


async def test_two_option_presses_at_once_both_count(harness: Harness) -> None:
    lobby = await open_table(harness, ["Ann"])
    table = table_id(lobby)
    presses = [(1, f"L:{table}:set:move_timer"), (1, f"L:{table}:set:deck")]
    answers = await _answers(harness, presses, lobby.message_id)
    assert [a.get("text") for a in answers] == ["Timer: 60 s", "Deck: 52 cards"]
    stored = await harness.deps.storage.tables.get(table)
    assert stored is not None
    assert (stored.options.move_timer, stored.options.deck) == (60, 52)


async def test_a_lobby_never_comes_back_over_the_game_it_started(harness: Harness) -> None:
    """Joins in quick succession and then Start, with Telegram's limits on: the group sees the lobby as the
    last press left it, then the game, and never again a lobby with Join and Start (a screen does not go
    back in time)."""
    from tests.bot.fake_telegram import RateLimits

    fake = harness.fake
    fake.limits = RateLimits(scale=0.1)  # a send a tenth of a second into a chat, 20 in six seconds a group
    lobby = await open_table(harness, ["Ann"])
    table = table_id(lobby)
    for user, name in ((2, "Bob"), (3, "Cid"), (4, "Dan")):
        fake.add_user(user, name)
    await _answers(harness, [(user, f"L:{table}:join") for user in (2, 3, 4)], lobby.message_id)
    await _answers(harness, [(1, f"L:{table}:start")], lobby.message_id)
    started = len(fake.sent)
    await harness.deps.outbox.idle()

    def lobby_buttons(markup: dict[str, list[list[dict[str, str]]]] | None) -> bool:
        rows = (markup or {}).get("inline_keyboard", [])
        return any(b.get("callback_data", "").startswith("L:") for row in rows for b in row)

    table_edits = [
        s
        for s in fake.sent[started:]
        if s.ok and s.chat_id == GROUP and s.method == "editMessageText" and "Trump" in s.text
    ]
    assert table_edits, "the game's table was drawn after Start"
    lobbies = [s for s in fake.sent[started:] if s.ok and s.chat_id == GROUP and lobby_buttons(s.markup)]
    assert lobbies == []
