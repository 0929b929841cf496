"""bench/tournament.py: what a game reports about its players."""

from __future__ import annotations

import time

import pytest

from bench import tournament
from bench.tournament import Job, play
from engine import Options
from engine.ai import GreedyPlayer, Player
from engine.moves import Move
from engine.views import View


class Dozing(Player):
    """Waits a while before each of its first decisions without using the CPU: as a player does while
    other processes have the cores."""

    def __init__(self) -> None:
        self.greedy = GreedyPlayer()
        self.naps = 3

    def choose(self, view: View) -> Move:
        if self.naps and len(view.moves) > 1:
            self.naps -= 1
            time.sleep(0.05)
        return self.greedy.choose(view)


def test_decision_times_are_cpu_time_not_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournament, "make", lambda name, seed, budget: Dozing())
    _seats, lost, decisive, times, _places = play(Job(0, 0, ("a", "b"), Options(), None, 1))
    assert decisive and sum(lost) == 1
    thought = times["a"] + times["b"]
    assert len(thought) > 6  # both players' naps are among them
    assert max(thought) < 0.04  # a nap is 0.05 s of waiting and next to no CPU
