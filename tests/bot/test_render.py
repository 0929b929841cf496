"""Rendering as pure functions, in all three languages: what the group and each player see."""

from __future__ import annotations

import html
import random
import re

import pytest

from bot.callbacks import ConcedePress, DiscardPress, MovePress, PickPress, ReclaimPress, UnpickPress, decode
from bot.i18n import LANGUAGES, texts
from bot.render.faces import by_suit, face
from bot.render.group import MAX_TEXT, event_line, shown_length, table_text
from bot.render.hand import hand_text
from bot.render.keyboard import hand_choices, hand_keyboard
from bot.render.replay import replay_lines
from bot.render.result import result_text, summary_text
from engine import Game, Options, Variant
from engine.cards import card_str, cards_of
from engine.moves import Kind, kind, move_str
from engine.views import view
from storage.records import PlayerStats
from tests.engine.helpers import card, do, position

NAMES = ["Ann", "Bob <b>&</b>", "Cid"]
STATS = PlayerStats(
    user_id=1,
    game_type="throw_in",
    games=21,
    wins=10,
    durak=5,
    draws=1,
    pogony=2,
    average_place=1.5,
    rating=12.3,
    rank=2,
)


def presses(markup: object) -> list[object]:
    from telegram import InlineKeyboardMarkup

    assert isinstance(markup, InlineKeyboardMarkup)
    # The buttons a player can press: not the discard list (no move), not a card disabled for now.
    found = [decode(str(b.callback_data)) for row in markup.inline_keyboard for b in row if not disabled(b)]
    return [p for p in found if not isinstance(p, DiscardPress)]


def disabled(button: object) -> bool:
    return bool(getattr(button, "api_kwargs", {}).get("disabled"))


def test_the_table_message_shows_trump_counts_table_and_who_is_to_move() -> None:
    g = position(["7s 9d Kh", "8s 8c 6h", "Ts Js Qh"], talon="Kc Ah")
    do(g, 0, "l7s")
    text = table_text(view(g), NAMES, texts("en"), seconds_left=25)
    assert "Trump: A♥" in text and "Deck: 2 left" in text
    assert "7♠" in text and "Bob &lt;b&gt;&amp;&lt;/b&gt; — 3 cards, defending" in text
    assert "Waiting for Bob" in text and "25 s left" in text
    assert "<b>&</b>" not in text  # names are escaped


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_group_never_sees_a_hidden_card(language: str) -> None:
    rng = random.Random(language)
    t = texts(language)
    for variant in (Variant.THROW_IN, Variant.TRANSFER):
        g = Game.deal(Options(variant=variant), 3, rng=rng)
        while not g.over:
            public = view(g)
            text = table_text(public, NAMES, t, recent=["…"])
            hidden = set()
            for s in range(g.players):
                hidden |= set(cards_of(g.hands[s] & ~g.known[s]))
            hidden -= {g.trump_card}
            # "10♥" contains "0♥", never another card: no card text is a substring of another's.
            assert not [c for c in hidden if card_str(c) in text], text
            assert len(text) <= MAX_TEXT
            seat = rng.choice(g.actors())
            g.apply(seat, rng.choice(g.legal_moves(seat)))


def test_the_hand_keyboard_offers_exactly_the_legal_moves() -> None:
    g = position(["7s 7c 9d", "8s 9c 6h Ts", "Js Qs"], talon="Kc Ah")
    t = texts("ru")
    concede = ConcedePress(5, "ask")  # the last button of every hand in play, on a row of its own
    lead = presses(hand_keyboard(view(g, 0), 5, t))
    legal = set(g.legal_moves(0))
    assert {p.move for p in lead if isinstance(p, MovePress)} <= legal
    # Singles for every card, plus leading both sevens at once.
    assert len(lead) == 5 and lead[-1] == concede
    do(g, 0, "l7s")
    defence = presses(hand_keyboard(view(g, 1), 5, t))
    offered = {p.move for p in defence if isinstance(p, MovePress)}
    assert offered == set(g.legal_moves(1)) and defence[-1] == concede
    moves = defence[:-1]
    assert all(isinstance(p, MovePress) and p.table_id == 5 and p.version == g.version for p in moves)
    assert presses(hand_keyboard(view(g, 2), 5, t)) == [concede]  # nothing to do for seat 2 but concede


@pytest.mark.parametrize("variant", [Variant.THROW_IN, Variant.TRANSFER])
def test_the_hand_keyboard_keeps_its_shape_and_colours_what_each_button_does(variant: Variant) -> None:
    """At every state of random games, for every seat: every card of the hand is a button, in the hand's
    order and rows of at most six, whatever the move; exactly those with no move now are disabled. Take and
    Concede are red, Done and Pass green, a transfer or a trump shown blue."""
    rng = random.Random(variant.value)
    t = texts("en")
    colours = {t("button.take"): "danger", t("button.concede"): "danger"}
    colours |= {t("button.done"): "success", t("button.pass"): "success"}
    for _ in range(5):
        shown = variant is Variant.TRANSFER
        g = Game.deal(Options(variant=variant, show_trump_transfer=shown), 3, rng=rng)
        while not g.over:
            for seat in range(3):
                v = view(g, seat)
                if v.seats[seat].place is not None:
                    continue
                rows = hand_keyboard(v, 5, t).inline_keyboard
                held = by_suit(v.hand, v.trump)
                cards_rows = rows[: (len(held) + 5) // 6]
                assert [len(row) for row in cards_rows] == [
                    min(6, len(held) - 6 * i) for i in range(len(cards_rows))
                ]
                buttons = [b for row in cards_rows for b in row]
                assert [b.text for b in buttons] == [face(c) for c in held]  # every card, in the hand's order
                playable = dict(hand_choices(v, t).cards)  # a card played on its own (a transfer: ⇄ below)
                assert [disabled(b) for b in buttons] == [c not in playable for c in held]
                for b in (b for row in rows[len(cards_rows) :] for b in row):
                    assert b.style == colours.get(
                        b.text, "primary" if b.text.startswith(("⇄", "Show")) else None
                    )
            seat = rng.choice(g.actors())
            g.apply(seat, rng.choice(g.legal_moves(seat)))


def test_a_card_that_could_cover_several_asks_which_in_a_second_step() -> None:
    g = position(["7s 7c 9d", "8s 9c 6h Ts", "Js Qs"], talon="Kc Ah")
    do(g, 0, "l7s7c")
    t = texts("uk")
    first = presses(hand_keyboard(view(g, 1), 5, t))
    picks = [p for p in first if isinstance(p, PickPress)]
    assert [p.card for p in picks] == [card("6h")]  # the trump 6♥ beats both sevens
    second = presses(hand_keyboard(view(g, 1), 5, t, selected=card("6h")))
    covers = [p.move for p in second if isinstance(p, MovePress)]
    assert len(covers) == 2 and all(kind(m) == Kind.COVER for m in covers)
    assert isinstance(second[-1], UnpickPress)
    assert "6♥" in hand_text(view(g, 1), NAMES, t, "Chat", selected=card("6h"))


def test_a_seat_played_by_a_bot_gets_only_im_back() -> None:
    g = position(["7s 7c 9d", "8s 9c 6h Ts"], talon="Kc Ah")
    g.take_over(1)
    t = texts("en")
    assert presses(hand_keyboard(view(g, 1), 3, t)) == [ReclaimPress(3)]
    assert "I'm back" in hand_text(view(g, 1), NAMES, t, "Chat")


@pytest.mark.parametrize("language", LANGUAGES)
def test_hand_messages_render_in_every_state(language: str) -> None:
    rng = random.Random(7)
    t = texts(language)
    g = Game.deal(Options(variant=Variant.TRANSFER, show_trump_transfer=True), 3, rng=rng)
    while not g.over:
        for s in range(3):
            v = view(g, s)
            text = hand_text(v, NAMES, t, "Group <1>")
            assert "Group &lt;1&gt;" in text and len(text) <= MAX_TEXT
            for press in presses(hand_keyboard(v, 1, t)):
                assert press is not None
        seat = rng.choice(g.actors())
        applied = g.apply(seat, rng.choice(g.legal_moves(seat)))
        for event in applied.events:
            line = event_line(event, NAMES, t)
            assert line is None or "{" not in line


@pytest.mark.parametrize(
    ("language", "durak", "draw", "pogony"),
    [
        ("ru", "Bob &lt;b&gt;&amp;&lt;/b&gt; остаётся в дураках.", "Ничья", "погонами"),
        ("uk", "лишається в дурнях", "Нічия", "погонами"),
        ("en", "is the durak", "A draw", "pogony"),
    ],
)
def test_result_messages(language: str, durak: str, draw: str, pogony: str) -> None:
    t = texts(language)
    g = position(["6s 6c", "Ks Qc Kc"], trump="h")
    do(g, 0, "l6s6c")
    do(g, 1, "c6sKs", "c6cQc")
    assert g.result is not None
    text = result_text(g.result, NAMES, t, rated=True, ratings={0: (0.0, 1.5), 1: (0.0, -1.5)}, minutes=4)
    assert durak in text and pogony in text and "1500 → 1530 (+30)" in text
    assert "1500 → 1470 (−30)" in text  # ratings on the familiar scale, a true minus sign
    g = position(["7s", "8s"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    assert g.result is not None
    assert draw in result_text(g.result, NAMES, t, rated=False)


@pytest.mark.parametrize("language", LANGUAGES)
def test_leaderboards_and_stats_render_in_every_language(language: str) -> None:
    from bot.render.standings import board_keyboard, board_text, stats_text
    from storage.records import Leader

    t = texts(language)
    leaders = [
        Leader(rank=i + 1, user_id=i, name=f"<Player {i}>", rating=30.0 - i, games=5) for i in range(10)
    ]
    text = board_text(leaders, t, game_type="transfer", scope="c", page=0)
    assert "&lt;Player 0&gt;" in text and "<Player" not in text and len(text) <= MAX_TEXT
    keyboard = board_keyboard(t, game_type="transfer", scope="c", page=1, more=True)
    pages = [decode(str(b.callback_data)) for row in keyboard.inline_keyboard for b in row]
    assert len(pages) == 4  # two game types, back, more
    stats = STATS
    text = stats_text("Ann & co", [stats], [stats], t).replace("\xa0", " ")
    assert "Ann &amp; co" in text and "1746" in text  # 1500 + 20 × 12.3
    assert {"en": "21 games", "ru": "21 игра", "uk": "21 гра"}[language] in text
    assert {"en": "1.50", "ru": "1,50", "uk": "1,50"}[language] in text  # numbers as the language writes them
    assert {"en": "5 games", "ru": "5 игр", "uk": "5 ігор"}[language] in board_text(
        leaders, t, game_type="transfer", scope="c", page=0
    )
    new = stats.model_copy(update={"games": 2})
    provisional = stats_text("Ann", [new], [new], t)
    shown = t("stats.provisional", rating="1746", games=t.plural("stats.games", 3))
    assert shown in provisional and "1746?" not in provisional  # a bare "?" after a rating read as a glitch
    assert t("stats.rating", rating="1746", rank=2) not in provisional


@pytest.mark.parametrize("language", LANGUAGES)
def test_replay_lines_tell_every_move_and_draw(language: str) -> None:
    from bot.render.group import chunks
    from bot.render.replay import replay_lines

    t = texts(language)
    g = position(["7s 9d", "8s Qc"], talon="Kd Ah")
    lines = replay_lines(g, [(0, "l7s"), (1, "c7s8s")], NAMES, t)
    assert len(lines) == 6  # bout 1, lead, cover, beaten, seat 0 draws the whole talon, bout 2
    assert "7♠" in lines[1] and "8♠" in lines[2]
    assert g.attack == []  # the deal given is not changed
    packed = chunks(["x" * 3000, "y" * 3000, "z" * 10])
    assert [len(c) for c in packed] == [3000, 3011]


@pytest.mark.parametrize("language", LANGUAGES)
def test_six_long_escaped_names_keep_whose_move_and_the_seal_within_telegrams_limit(language: str) -> None:
    t = texts(language)
    game = Game.deal(Options(), 6, rng=random.Random(1))
    names = ['"' * 64 + " " + '"' * 64, *("<&>" * 43 for _ in range(5))]
    recent = [f"{'&' * 2000} {i}" for i in range(4)]  # lines far too long: the first to go
    text = table_text(view(game), names, t, seconds_left=9, recent=recent, commitment="ab" * 32)
    assert shown_length(text) <= MAX_TEXT
    assert t("table.commitment", hash="ab" * 6) in text
    assert any(line.startswith(t("table.to_move", names="")[:3]) for line in text.splitlines())
    assert "&amp;" * 2000 not in text  # the recent lines went, from the last, to make room
    for name in names:  # every name is cut to 24 characters, escaped
        assert html.escape(name) not in text and html.escape(name[:23]) + "…" in text


def test_take_and_pass_have_a_row_of_their_own_below_the_cards() -> None:
    t = texts("en")
    for seed in range(200):
        g = Game.deal(Options(variant=Variant.TRANSFER), 3, rng=random.Random(seed))
        rng = random.Random(seed)
        for _ in range(rng.randint(0, 30)):
            if g.over:
                break
            seat = rng.choice(g.to_act())
            g.push(seat, rng.choice(g.legal_moves(seat)))
        for seat in [] if g.over else g.to_act():
            rows = hand_keyboard(view(g, seat), 1, t).inline_keyboard
            assert isinstance(decode(str(rows[-1][0].callback_data)), ConcedePress) and len(rows[-1]) == 1
            rows = rows[:-1]  # "🏳 Concede", below everything: not a move
            if rows and isinstance(decode(str(rows[-1][0].callback_data)), DiscardPress):
                rows = rows[:-1]  # the discard list, below the moves: not a move
            words = {t("button.take"), t("button.pass"), t("button.done")}
            final = [row for row in rows if any(b.text in words for b in row)]
            assert len(final) <= 1 and (not final or final[0] is rows[-1])
            assert all(b.text in words for row in final for b in row)


def _team_game_lost_by_the_first_out() -> tuple[Game, list[tuple[int, str]], Game]:
    """A whole random team game (its deal, its moves, its end) in which a player who went out first is on
    the losing team."""
    for seed in range(500):
        rng = random.Random(seed)
        deal = Game.deal(Options(teams=True), 4, rng=rng)
        g, moves = deal.copy(), []
        while g.result is None:
            seat = rng.choice(g.to_act())
            move = rng.choice(g.legal_moves(seat))
            moves.append((seat, move_str(move)))
            g.push(seat, move)
        if g.result.losing_team is not None and g.team(g.finishers[0]) == g.result.losing_team:
            return deal, moves, g
    raise AssertionError("no such game in 500 deals")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_team_games_result_is_told_by_team(language: str) -> None:
    deal, moves, g = _team_game_lost_by_the_first_out()
    result = g.result
    assert result is not None
    t = texts(language)
    names = ["Ann", "Bob", "Cid", "Dan"]
    text = result_text(result, names, t, rated=False)
    assert not re.search(r"^\d\. ", text, re.MULTILINE)  # no places: the first out may have lost
    won, lost = text.split("\n")[2:4]
    assert won.startswith("🏆") and lost.startswith("🃏")
    assert names[g.finishers[0]] in lost
    holders = lost[lost.rindex(":") :]
    assert {n for n in names if n in holders} == {names[s] for s in result.losers}
    assert replay_lines(deal, moves, names, t)[-2:] == [won, lost]  # /replay ends on the same words


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_summary_left_in_a_tidy_chat_says_who_played_and_who_lost(language: str) -> None:
    t = texts(language)
    g = position(["6s 6c", "Ks Qc Kc"], trump="h")
    do(g, 0, "l6s6c")
    do(g, 1, "c6sKs", "c6cQc")
    text = summary_text(view(g), NAMES, t, minutes=4, game_id=7)
    lines = text.split("\n")
    assert lines[0].endswith("· #7</b>") and "Ann" in lines[1] and "Bob &lt;b&gt;&amp;" in lines[1]  # escaped
    assert lines[2] == t("result.durak", name="Bob &lt;b&gt;&amp;&lt;/b&gt;") and "4" in lines[3]
    g = position(["7s", "8s"], trump="h")
    do(g, 0, "l7s")
    do(g, 1, "c7s8s")
    assert t("result.draw") in summary_text(view(g), NAMES, t, minutes=1, game_id=None)
    _, _, team = _team_game_lost_by_the_first_out()
    names = ["Ann", "Bob", "Cid", "Dan"]
    summary = summary_text(view(team), names, t, minutes=9, game_id=None).split("\n")
    assert summary[2].startswith("🃏") and len(summary) == 4  # the losing team in one line
