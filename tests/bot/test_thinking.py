"""The thinker: a failing or lying computer player never costs a move."""

from __future__ import annotations

import asyncio
import random
import time
from multiprocessing.connection import wait

import pytest

from bot import thinking
from bot.thinking import Thinker
from engine import Game, Options
from engine.ai import HeuristicPlayer
from engine.moves import Move
from engine.options import BotLevel
from engine.views import View, view


def a_choice() -> View:
    g = Game.deal(Options(), 2, rng=random.Random(6))
    seen = view(g, g.lead)
    assert len(seen.moves) > 1
    return seen


async def test_a_failing_search_falls_back_to_the_heuristic_player(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(seen: View, level: BotLevel, scale: float = 1.0, who: object = None) -> Move:
        raise RuntimeError("the worker died")

    monkeypatch.setattr(thinking, "decide", broken)
    thinker = Thinker(workers=0)
    seen = a_choice()
    assert await thinker.choose(seen, BotLevel.NORMAL) == HeuristicPlayer().choose(seen)
    assert not thinker._pools  # replaced on the next decision


async def test_an_illegal_answer_is_never_played(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(thinking, "decide", lambda seen, level, scale=1.0, who=None: 3 << 20)
    seen = a_choice()
    move = await Thinker(workers=0).choose(seen, BotLevel.HARD)
    assert move in seen.moves


async def test_a_search_runs_in_a_thread_with_workers_zero() -> None:
    thinker = Thinker(workers=0, budget_scale=0.02)
    seen = a_choice()
    assert await thinker.choose(seen, BotLevel.NORMAL) in seen.moves
    assert thinker.budget(BotLevel.HARD) == pytest.approx(0.03) and thinker.budget(BotLevel.EASY) == 0
    thinker.close()


def test_worker_processes_do_not_start_a_second_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spawned worker imports the parent's main module as ``__mp_main__``: that must not run the bot."""
    import runpy

    import bot.run

    def started() -> int:
        raise AssertionError("the bot started inside a worker")

    monkeypatch.setattr(bot.run, "main", started)
    runpy.run_module("bot", run_name="__mp_main__")
    with pytest.raises(AssertionError):
        runpy.run_module("bot", run_name="__main__")


async def test_a_seat_keeps_its_player_for_the_whole_game() -> None:
    """The endgame solver's table and the player's random stream live on between a seat's moves."""
    from engine.ai import levels

    thinker = Thinker(workers=0, budget_scale=0.02)
    seen = a_choice()
    await thinker.choose(seen, BotLevel.NORMAL, 5, (5, 1, 0))
    kept = levels._kept[((5, 1, 0), BotLevel.NORMAL, 0.02)]
    await thinker.choose(seen, BotLevel.NORMAL, 5, (5, 1, 0))
    assert levels._kept[((5, 1, 0), BotLevel.NORMAL, 0.02)] is kept
    await thinker.choose(seen, BotLevel.NORMAL, 5, (5, 2, 0))  # the next game: a new player
    assert levels._kept[((5, 2, 0), BotLevel.NORMAL, 0.02)] is not kept
    thinker.close()


async def test_a_decision_past_its_patience_is_answered_by_the_heuristic_player(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stuck(seen: View, level: BotLevel, scale: float = 1.0, who: object = None) -> Move:
        time.sleep(1.0)
        return seen.moves[-1]

    monkeypatch.setattr(thinking, "decide", stuck)
    thinker = Thinker(workers=0, patience=0.05)
    seen = a_choice()
    started = time.perf_counter()
    assert await thinker.choose(seen, BotLevel.NORMAL) == HeuristicPlayer().choose(seen)
    assert time.perf_counter() - started < 0.9
    assert not thinker._pools  # a fresh thread for the next decision
    assert Thinker(budget_scale=3).patience == 3 * thinking.PATIENCE


async def test_a_worker_stuck_in_a_decision_is_stopped() -> None:
    """A worker process thinking far past its patience (here: a normal decision of 50 s) is ended, and the
    table still gets its move at once."""
    thinker = Thinker(workers=1, budget_scale=100, patience=1.0)
    seen = a_choice()
    choosing = asyncio.ensure_future(thinker.choose(seen, BotLevel.NORMAL))
    await asyncio.sleep(0.2)
    workers = list(thinker._pools[0]._processes.values())  # type: ignore[attr-defined]
    assert workers and all(p.is_alive() for p in workers)
    assert await choosing == HeuristicPlayer().choose(seen)
    # Ended: each process's sentinel is ready once it has exited. (Not ``join`` and ``is_alive``: the pool's
    # own thread reaps the process it lost at the same moment, and a second waiter can read "no such child"
    # before that thread records the exit, so ``is_alive`` may say True of a process that is gone.)
    assert all(wait([p.sentinel], 10) for p in workers)
    assert not thinker._pools
    thinker.close()
