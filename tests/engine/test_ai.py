"""Computer players: legal moves only, decided from a seat's view, and the heuristic beats random play."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options, Variant
from engine.ai import HeuristicPlayer, Player, RandomPlayer
from engine.views import view


def play(options: Options, players: list[Player], rng: random.Random) -> Game:
    g = Game.deal(options, len(players), rng=rng)
    for _ in range(3000):
        if g.over:
            return g
        seat = g.to_act()[0]
        v = view(g, seat)
        move = players[seat].choose(v)
        assert move in v.moves
        g.apply(seat, move)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", [Variant.THROW_IN, Variant.TRANSFER])
@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_ai_players_only_make_legal_moves(variant: Variant, count: int) -> None:
    rng = random.Random(count)
    options = Options(variant=variant, show_trump_transfer=variant is Variant.TRANSFER)
    for _ in range(10):
        seats: list[Player] = [HeuristicPlayer() if s % 2 else RandomPlayer(rng) for s in range(count)]
        play(options, seats, rng)


def test_heuristic_player_loses_far_less_often_than_a_random_one() -> None:
    rng = random.Random(2024)
    durak = {"heuristic": 0, "random": 0}
    for game in range(200):
        # Swap seats every game so neither player keeps the same side.
        heuristic_seat = game % 2
        seats: list[Player] = [RandomPlayer(rng), RandomPlayer(rng)]
        seats[heuristic_seat] = HeuristicPlayer()
        result = play(Options(), seats, rng).result
        assert result is not None
        if result.durak is not None:
            durak["heuristic" if result.durak == heuristic_seat else "random"] += 1
    assert durak["heuristic"] * 3 < durak["random"], durak


def test_the_terminal_game_plays_to_the_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.__main__ import main

    monkeypatch.setattr("builtins.input", lambda _prompt: "1")
    assert main(["--players", "3", "--seed", "4", "--variant", "transfer"]) == 0
    out = capsys.readouterr().out
    assert "Game over." in out and "leads first" in out


def test_the_terminal_game_refuses_impossible_tables(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.__main__ import main

    assert main(["--players", "5", "--deck", "24"]) == 2
    assert "Cannot start" in capsys.readouterr().err
