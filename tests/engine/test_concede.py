"""Conceding (docs/rules.md §9): the player takes the last place not yet taken, a bot plays their cards to the
end, and the game ends as soon as at most one other player holds cards (heads-up: at once)."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options
from engine.actions import CONCEDE, RECLAIM, act, action_str, parse_action
from engine.events import EventKind, IllegalMove, Reason
from engine.snapshot import dumps, loads


def play_out(game: Game, rng: random.Random, moves: int = 10_000) -> None:
    for _ in range(moves):
        if game.over:
            return
        seat = rng.choice(game.to_act())
        game.push(seat, rng.choice(game.legal_moves(seat)))


def test_heads_up_the_player_who_concedes_loses_at_once() -> None:
    game = Game.deal(Options(), 2, rng=random.Random(1))
    applied = game.concede(1)
    assert [e.kind for e in applied.events] == [EventKind.CONCEDED, EventKind.GAME_OVER]
    assert game.result is not None and game.result.places == (1, 2)
    assert game.result.durak == 1 and game.result.losers == (1,) and not game.result.draw
    assert game.result.won(0) and not game.result.won(1)
    again = loads(dumps(game))
    assert again.conceded == [1] and again.result == game.result
    with pytest.raises(IllegalMove) as refused:
        game.concede(0)
    assert refused.value.reason is Reason.GAME_OVER


def test_with_three_players_the_others_play_on_and_the_conceder_is_last() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        game = Game.deal(Options(), 3, rng=rng)
        play_out(game, rng, rng.randint(0, 30))
        if game.over:
            continue
        seat = rng.choice([s for s in range(3) if game.out[s] < 0])
        game.concede(seat)
        assert game.is_auto(seat)
        with pytest.raises(IllegalMove) as refused:
            game.reclaim(seat)  # "I'm back" does not undo a concession
        assert refused.value.reason is Reason.CONCEDED
        play_out(game, rng)
        result = game.result
        assert result is not None
        assert result.places[seat] == 3 and result.durak == seat and result.losers == (seat,)
        assert sorted(p for s, p in enumerate(result.places) if s != seat) in ([1, 2], [1, 1])


def test_a_second_concession_takes_the_last_place_left() -> None:
    rng = random.Random(7)
    game = Game.deal(Options(), 4, rng=rng)
    game.concede(2)
    game.concede(0)
    play_out(game, rng)
    assert game.result is not None
    assert game.result.places[2] == 4 and game.result.places[0] == 3 and game.result.durak == 2
    assert sorted(game.result.places[s] for s in (1, 3)) in ([1, 2], [1, 1])


def test_the_game_ends_when_one_other_player_is_left_holding_cards() -> None:
    rng = random.Random(3)
    game = Game.deal(Options(), 3, rng=rng)
    game.concede(0)
    game.concede(1)  # only seat 2 is left playing: decided, 1st
    assert game.result is not None and game.result.places == (3, 2, 1)


def test_in_team_play_nobody_concedes_alone() -> None:
    game = Game.deal(Options(teams=True), 4, rng=random.Random(2))
    with pytest.raises(IllegalMove) as refused:
        game.concede(0)
    assert refused.value.reason is Reason.TEAM_CONCEDE and game.conceded == []


def test_a_concession_is_an_action_of_the_log_and_replays() -> None:
    assert action_str(CONCEDE) == "concede" and parse_action("concede") is CONCEDE
    game = Game.deal(Options(), 3, rng=random.Random(4))
    deal = game.copy()
    act(game, 1, "concede")
    replayed = deal.copy()
    act(replayed, 1, CONCEDE)
    assert dumps(replayed) == dumps(game)
    with pytest.raises(IllegalMove):
        act(game, 1, RECLAIM)
