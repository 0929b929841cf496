"""Live play as a player feels it: every turn that comes to a person sounds, a warning comes before a missed
move, prompts agree with the buttons, teams are shown, and each player's hand ends on their own result."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from bot.callbacks import ConcedePress, DiscardPress, MovePress, PickPress, ReclaimPress, decode
from bot.i18n import LANGUAGES, texts
from bot.render.faces import face
from bot.render.group import name_of
from bot.render.hand import choice_key, choices, discard_text, hand_text
from bot.render.keyboard import hand_keyboard, lead_groups
from engine import Game, Options, Variant
from engine.moves import Kind, cards, kind
from engine.views import View, view
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.fake_telegram import FakeTelegram, Sent
from tests.bot.players import (
    GROUP,
    hand_message,
    open_table,
    play_until_over,
    press_and_wait,
    start,
    table_id,
)
from tests.engine.helpers import card, position

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"]
SETUPS = {
    "3-player throw-in": (Options(), 3),
    "2-player transfer": (Options(variant=Variant.TRANSFER), 2),
    "2x2 teams": (Options(teams=True), 4),
    "6-player transfer, trumps shown": (Options(variant=Variant.TRANSFER, show_trump_transfer=True), 6),
}


def button_kinds(v: View, language: str) -> set[Kind]:
    kinds = set()
    for row in hand_keyboard(v, 1, texts(language)).inline_keyboard:
        for b in row:
            if (b.api_kwargs or {}).get("disabled"):
                continue  # a card with no move now: shown, and does nothing
            press = decode(str(b.callback_data))
            if isinstance(press, MovePress):
                kinds.add(Kind(kind(press.move)))
            elif isinstance(press, PickPress):
                kinds.add(Kind.COVER)
            else:  # "I'm back", the discard list or "🏳 Concede" (not moves)
                assert isinstance(press, ReclaimPress | DiscardPress | ConcedePress)
    return kinds


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("setup", SETUPS)
def test_the_prompt_names_exactly_the_choices_the_buttons_offer_in_every_hand_state(
    setup: str, language: str
) -> None:
    options, players = SETUPS[setup]
    t = texts(language)
    rng = random.Random(f"{setup}{language}")
    states = 0
    for _ in range(12 if language == "en" else 3):
        g = Game.deal(options, players, rng=rng)
        while not g.over:
            for seat in range(players):
                v = view(g, seat)
                found = choices(v)
                assert button_kinds(v, language) == set(found)
                text = hand_text(v, NAMES, t, "Friends")
                target = next(  # the name a transfer choice mentions
                    (
                        m
                        for m in re.findall(r"(?:to|дальше отбивается|далі відбивається) (\w+)", text)
                        if m in NAMES
                    ),
                    "",
                )
                for k in found:
                    assert t(choice_key(k, v), name=target) in text, (k, text)
                if not found:
                    waited = [name_of(NAMES, s) for s in v.to_act]
                    assert all(name in text for name in waited), text
                states += 1
            seat = rng.choice(g.actors())
            g.apply(seat, rng.choice(g.legal_moves(seat)))
    assert states > 200


def test_leads_of_several_cards_keep_the_trump_unless_asked_and_follow_the_hand() -> None:
    # Hearts are trumps (the talon's last card): three sevens, one of them a trump, and a pair of nines.
    g = position(["7s 7c 7h 9d 9s", "8s 9c 6h Ts Jd Qd"], talon="Kc Ah")
    groups = [sorted(cards(m)) for m in lead_groups(view(g, 0))]
    sevens_plain = sorted(card(c) for c in ("7s", "7c"))
    sevens_all = sorted(card(c) for c in ("7s", "7c", "7h"))
    nines = sorted(card(c) for c in ("9s", "9d"))
    # 7♠ is the hand's first card; the trump 7♥ only when asked for.
    assert groups == [sevens_plain, sevens_all, nines]
    labels = [b.text for row in hand_keyboard(view(g, 0), 1, texts("en")).inline_keyboard for b in row]
    assert labels[:5] == [face(card(c)) for c in ("7s", "9s", "9d", "7c", "7h")]  # by suit, trumps last


def test_the_defender_hears_what_was_led_on_them_and_transfer_is_explained() -> None:
    from engine.events import Event, EventKind

    g = position(["7s 9d", "7c 8s Kd Ts", "Js Qs 8d"], talon="Kc Ah", variant="transfer")
    g.apply(0, next(m for m in g.legal_moves(0) if kind(m) == Kind.LEAD and len(cards(m)) == 1))
    t = texts("en")
    text = hand_text(view(g, 1), NAMES, t, "Friends", last=Event(EventKind.LED, 0, (card("7s"),)))
    assert "Ann leads 7♠️ on you" in text
    assert "transfer to Cid with a card of the same rank (⇄)" in text and "press Take to pick up" in text


# ---------------------------------------------------------------------- through the real bot


def hand_draws(fake: FakeTelegram, user: int) -> list[Sent]:
    return [s for s in fake.sent if s.ok and s.chat_id == user and "Your hand" in s.text]


@pytest.mark.parametrize(
    ("names", "options"),
    [(["Ann", "Bob", "Cid"], []), (["Ann", "Bob"], ["variant"]), (["Ann", "Bob", "Cid", "Dan"], ["teams"])],
    ids=["3-player throw-in", "2-player transfer", "2x2 teams"],
)
async def test_every_turn_that_comes_to_a_person_sounds_and_every_hand_ends_on_its_result(
    harness: Harness, names: list[str], options: list[str]
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, names, options)
    if "teams" in options:  # the lobby shows who will be with whom
        await harness.deps.outbox.idle()
        shown = fake.messages[GROUP][lobby.message_id].text
        assert (
            "1. 🔷 Ann" in shown
            and "2. 🔶 Bob" in shown
            and "3. 🔷 Cid" in shown
            and "are the teams" in shown
        )
    await start(harness, lobby)
    users = list(range(1, len(names) + 1))
    result = await play_until_over(fake, GROUP, users, random.Random(len(names)))
    await harness.deps.outbox.idle()
    turns = 0
    for user in users:
        draws = hand_draws(fake, user)
        on_clock = False
        for sent in draws:
            now = "⏳" in sent.text
            if now and not on_clock:  # the table started waiting for this player: it made their phone sound
                assert sent.method == "sendMessage" and sent.sound, sent.text
                turns += 1
            on_clock = now
        # The hand sent anew replaced the old one: one hand message is left, and it tells this player's result.
        left = [m for m in fake.bot_messages(user) if "Your hand" in m.text]
        assert len(left) == 1 and not left[0].buttons()
        final = left[0].text
        assert any(mark in final for mark in ("place", "durak", "draw", "Your team")), final
        assert "The result is in Friends" in final
    assert turns >= len(users)
    if "teams" in options:
        table = fake.messages[GROUP][lobby.message_id].text
        assert "🔷" in table and "🔶" in table
        assert "The winning team" in result or "A draw" in result
        assert any("On your team: Cid" in s.text for s in hand_draws(fake, 1))


async def test_a_player_about_to_miss_a_move_is_warned_with_sound(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"], ["move_timer", "move_timer"])  # 30 → 60 → 10 s
    await start(harness, lobby)
    live = harness.deps.service.tables[lobby.table_id or 0]
    assert live.game is not None and live.row.options.move_timer == 10
    lead = live.game.lead + 1  # the user who must lead
    first = await fake.wait_for(lambda: hand_message(fake, lead), what="the first hand")
    assert "⏳" in first.text and "⏰" not in first.text
    warned = await fake.wait_for(
        lambda: next((s for s in hand_draws(fake, lead) if "⏰" in s.text), None),
        timeout=9,
        what="the warning",
    )
    assert warned.method == "sendMessage" and warned.sound
    assert "miss 1 of 2 in a row" in warned.text  # heads-up: a bot takes the seat after two
    assert first.message_id not in fake.messages[lead]  # the old hand went: one hand in the chat

    # The group's time left was redrawn at the warning too (no move happened since the deal).
    def time_left() -> int:
        found = re.search(r"(\d+) s left", fake.messages[GROUP][lobby.message_id].text)
        return int(found.group(1)) if found else 99

    await fake.wait_for(lambda: time_left() <= 6, what="the time left redrawn")
    await fake.wait_for(
        lambda: "ran out of time" in fake.messages[GROUP][lobby.message_id].text,
        timeout=9,
        what="the timeout",
    )
    # Pressing the warned hand's buttons works as ever.
    hand = hand_message(fake, lead if live.game.lead + 1 == lead else 3 - lead)
    assert hand is not None
    moves = [d for _, d in hand.buttons() if d.startswith("m:")]
    if moves:
        assert "text" not in await press_and_wait(fake, hand.chat_id, hand.chat_id, hand.message_id, moves[0])


async def test_every_lobby_press_is_answered_at_once_and_the_options_keep_join_and_start(
    harness: Harness,
) -> None:
    fake = harness.fake
    await stop_app(harness.app)  # Telegram's own pace for redraws: 3 s between two in a group
    harness.app = await start_app(fake, harness.db_path, group_redraw_interval=3.0)
    lobby = await open_table(harness, ["Ann"])
    table = lobby.table_id
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:options")
    panel = await fake.wait_for(
        lambda: (m := fake.messages[GROUP][lobby.message_id]) and "set:" in str(m.buttons()) and m,
        what="the options panel",
    )
    actions = {data.split(":")[2] for _, data in panel.buttons()}
    assert {"join", "leave", "start", "done"} <= actions
    # Two quick taps: each is answered with the value it set, and the lobby shows the last one.
    first = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:set:move_timer")
    second = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:set:move_timer")
    assert (first["text"], second["text"]) == ("Timer: 60 s", "Timer: 10 s")
    assert not first.get("show_alert") and not second.get("show_alert")
    await fake.wait_for(
        lambda: "Timer: 10 s" in str(fake.messages[GROUP][lobby.message_id].buttons()),
        timeout=0.5,
        what="the lobby redrawn at once",
    )


def test_bots_have_names_in_the_readers_language() -> None:
    from bot.render.group import seat_names

    seats = ["Ann", "🤖 2", "🤖 3"]
    assert seat_names(seats, [False, True, True], texts("en")) == ["Ann", "🤖 Nick", "🤖 Olga"]
    assert seat_names(seats, [False, True, True], texts("ru")) == ["Ann", "🤖 Коля", "🤖 Оля"]
    assert seat_names(seats, [False, True, True], texts("uk")) == ["Ann", "🤖 Микола", "🤖 Оля"]


def test_the_discard_list_opens_from_the_hand_grouped_by_suit() -> None:
    t = texts("en")
    rng = random.Random(5)
    g = Game.deal(Options(), 3, rng=rng)
    while not g.over:
        for seat in range(3):
            v = view(g, seat)
            rows = hand_keyboard(v, 1, t).inline_keyboard
            shown = [b for row in rows for b in row if isinstance(decode(str(b.callback_data)), DiscardPress)]
            assert len(shown) == (1 if v.discard else 0)
            if (
                v.discard
            ):  # its own last row (above "🏳 Concede"), and the list names every discarded card by suit
                conceding = isinstance(decode(str(rows[-1][0].callback_data)), ConcedePress)
                assert (
                    rows[-2 if conceding else -1] == tuple(shown)
                    and shown[0].text == f"👀 Discard pile ({v.discard})"
                )
                text = discard_text(v, t)
                assert text.startswith(f"Discard pile ({v.discard}):")
                assert sum(len(line.split()) - 1 for line in text.splitlines()[1:]) == v.discard
        seat = rng.choice(g.actors())
        g.apply(seat, rng.choice(g.legal_moves(seat)))
    off = view(Game.deal(Options(discard_list=False), 2, rng=rng), 0)
    assert off.options.discard_list is False


def test_a_whole_deck_discarded_still_fits_an_alert() -> None:
    from dataclasses import replace

    from engine.cards import deck

    v = view(Game.deal(Options(deck=52), 2, rng=random.Random(1)), 0)
    for language in LANGUAGES:
        text = discard_text(replace(v, seen=tuple(deck(52))), texts(language))
        assert len(text) <= 200, text


async def test_pressing_the_discard_button_answers_with_the_list_and_sends_nothing(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    rng = random.Random(3)
    for _ in range(200):
        hands = [m for u in (1, 2) if (m := hand_message(fake, u)) is not None]
        with_list = next((m for m in hands if any(d.startswith("d:") for _, d in m.buttons())), None)
        if with_list is not None:
            break
        moves = [(m, d) for m in hands for _, d in m.buttons() if d.startswith(("m:", "k:"))]
        if moves:
            m, data = rng.choice(moves)
            await press_and_wait(fake, m.chat_id, m.chat_id, m.message_id, data)
        else:
            await asyncio.sleep(0.02)
    assert with_list is not None, "no bout was beaten"
    await harness.deps.outbox.idle()
    with_list = hand_message(fake, with_list.chat_id)
    assert with_list is not None
    sent = len(fake.sent)
    data = next(d for _, d in with_list.buttons() if d.startswith("d:"))
    answer = await press_and_wait(fake, with_list.chat_id, with_list.chat_id, with_list.message_id, data)
    assert answer.get("show_alert") and str(answer.get("text")).startswith("Discard pile (")
    assert len(fake.sent) == sent  # an alert: no message sent or edited
    fake.add_user(9, "Zed")  # somebody not at the table: no list for them
    stranger = await press_and_wait(fake, 9, with_list.chat_id, with_list.message_id, data)
    assert "Discard pile" not in str(stranger.get("text")) and stranger.get("show_alert")


async def test_a_finished_game_forgets_its_hands_screens(harness: Harness) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(4))
    await harness.deps.outbox.idle()
    # What each hand showed and whether it is to sound lives on the table (and goes with it): once the game is
    # over nothing is kept for its hands, so memory stays bounded over a long uptime.
    assert not harness.deps.service.tables[table_id(lobby)].screens


async def test_an_old_client_pressing_a_disabled_card_is_told_and_nothing_changes(harness: Harness) -> None:
    """The hand's cards that have no move now are disabled buttons (Bot API 10.3); a client older than that
    shows them as any other, and its press gets an alert and changes nothing: no move, no redraw."""
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await harness.deps.outbox.idle()
    live = harness.deps.service.tables[table_id(lobby)]
    assert live.game is not None
    waiting = next(s for s in range(2) if s not in live.game.to_act()) + 1  # nothing to do until led on
    hand = hand_message(fake, waiting)
    assert hand is not None
    pressable = hand.buttons()
    everything = hand.buttons(disabled=True)
    cards_shown = [label for label, data in everything if isinstance(decode(data), PickPress)]
    assert len(cards_shown) == 6 and not [d for _, d in pressable if isinstance(decode(d), PickPress)]
    version, sent = live.game.version, len(fake.sent)
    data = next(d for _, d in everything if isinstance(decode(d), PickPress))
    answer = await press_and_wait(fake, waiting, waiting, hand.message_id, data)
    assert answer.get("show_alert") and answer.get("text") == texts("en")("alert.not_now")
    await harness.deps.outbox.idle()
    assert live.game.version == version and len(fake.sent) == sent  # nothing moved, nothing redrawn
