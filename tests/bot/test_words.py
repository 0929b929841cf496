"""Lines that come out wrong only once the bot fills them in (the golden files show one game each): rendered
here with real values, in every language — two partners, a woman's name, a defender with nothing to cover
with, a team lobby, a durak team that held cards together, a table that is already open."""

from __future__ import annotations

import random

import pytest

from bot.handlers.common import alert
from bot.i18n import texts
from bot.render.hand import hand_text, prompt_line
from bot.render.lobby import lobby_text
from bot.render.result import loser_lines
from bot.service import Refusal, Verdict
from engine import Game, Options
from engine.actions import act
from engine.moves import Kind, kind
from engine.views import View, view

LANGUAGES = ("ru", "uk", "en")


def states(options: Options, players: int, seed: int) -> list[Game]:
    """Every state of a random game (random legal moves, the seat that must move first)."""
    rng = random.Random(seed)
    game = Game.deal(options, players, deck=_shuffled(options, rng))
    found = [game]
    while not game.over:
        seat = rng.choice(list(game.to_act()))
        game = game.copy()
        act(game, seat, rng.choice(list(view(game, seat).moves)))
        found.append(game)
    return found


def _shuffled(options: Options, rng: random.Random) -> list[int]:
    from engine import cards

    order = cards.deck(options.deck)
    rng.shuffle(order)
    return order


def first(options: Options, players: int, wanted: object) -> tuple[Game, int]:
    for seed in range(400):
        for game in states(options, players, seed):
            for seat in range(players):
                if wanted(game, view(game, seat)):  # type: ignore[operator]
                    return game, seat
    raise AssertionError("no such state in 400 games")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_table_already_open_is_said_in_full(language: str) -> None:
    line = alert(texts(language), Verdict.refused(Refusal.LOBBY_EXISTS))
    assert line.endswith((".", "up.")) and "{" not in line and not line.rstrip().endswith(":")


@pytest.mark.parametrize("language", LANGUAGES)
def test_two_partners_and_a_partner_who_is_a_woman(language: str) -> None:
    t = texts(language)
    names = ["Маша", "Sam", "Ira", "Petro", "Olena", "Ann"]
    options = Options(teams=True, deck=52)
    game, seat = first(options, 6, lambda g, v: not g.over and v.seat is not None and v.hand)
    text = hand_text(view(game, seat), names, t, "Friends")
    partners = [n for s, n in enumerate(names) if s != seat and s % 2 == seat % 2]
    assert {"ru": "С вами в команде: ", "uk": "З вами в команді: ", "en": "On your team: "}[
        language
    ] + ", ".join(partners) in text
    # The partner who defends is named without a noun that has a gender.
    options = Options(teams=True)

    def partner_defends(g: Game, v: View) -> bool:
        return (
            not g.over
            and v.seat is not None
            and v.defender != v.seat
            and v.defender % 2 == v.seat % 2
            and not v.moves
            and bool(v.to_act)
        )

    game, seat = first(options, 4, partner_defends)
    seen = view(game, seat)
    names = ["Sam", "Ira", "Petro", "Olena"]
    names[seen.defender] = "Маша"
    line = prompt_line(seen, names, t, None)
    assert "напарник" not in line and "partner" not in line
    assert line.startswith(
        {"ru": "Отбивается Маша", "uk": "Відбивається Маша", "en": "Маша defends"}[language]
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_defender_with_nothing_to_cover_with_is_told_so(language: str) -> None:
    t = texts(language)

    def only_take(g: Game, v: View) -> bool:
        return not g.over and v.seat == v.defender and [kind(m) for m in v.moves] == [Kind.TAKE]

    game, seat = first(Options(), 2, only_take)
    line = prompt_line(view(game, seat), ["Ann", "Bob"], t, None)
    assert line == t("hand.nothing_beats")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_team_lobby_asks_for_four_or_six(language: str) -> None:
    t = texts(language)
    text = lobby_text(Options(teams=True), "Ann", ["Ann", "Bob"], t)
    assert t("lobby.hint_teams") in text and t("lobby.hint") not in text
    assert "4" in t("lobby.hint_teams") and "6" in t("lobby.hint_teams")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_durak_team_is_named_once(language: str) -> None:
    t = texts(language)
    names = ["Ann", "Bob", "Cid", "Dan"]
    seen: set[bool] = set()
    for seed in range(200):
        result = states(Options(teams=True), 4, seed)[-1].result
        assert result is not None
        if result.losing_team is None:
            continue
        (line,) = loser_lines(result, names, t)
        together = set(result.losers) == set(result.losing_team_seats())
        seen.add(together)
        held = {"ru": "карты остались у", "uk": "карти лишилися в", "en": "still holding cards"}[language]
        assert (held in line) != together, line
        if len(seen) == 2:
            return
    assert seen, "no team lost in 200 games"
