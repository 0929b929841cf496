"""Engine speed: complete random-playout games per second, microseconds per legal-moves + push step, and
the search's iterations per second.

    .venv/bin/python bench/engine_speed.py [--games 2000] [--repeats 5] [--decisions 8]
    .venv/bin/python bench/engine_speed.py --compare 6   # pure Python vs the compiled build, side by side

Says whether the engine is compiled (what `pip install -e .` builds where a C compiler is present) or pure
Python. ``--compare`` needs the compiled build: it runs the pure engine (``DURAK_ENGINE=pure``) and the compiled
one in turn, in fresh processes, and prints each round's speed-ups and their medians, so that the machine's
drift falls on both alike.

Each figure is the best of ``--repeats`` runs (the machines are shared and noisy); one core, 36 cards.
"Deal + playout" counts shuffling and dealing too; "playout" starts from dealt games, as AI search does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Options, Variant
from engine.playout import random_playout


def measure(options: Options, players: int, games: int, repeats: int) -> tuple[list[float], list[float]]:
    """Games per second in each of ``repeats`` runs: with the deal, and from already dealt games."""
    full: list[float] = []
    play: list[float] = []
    for rep in range(repeats):
        rng = random.Random(rep)
        start = time.perf_counter()
        for _ in range(games):
            random_playout(Game.deal(options, players, rng=rng), rng)
        full.append(games / (time.perf_counter() - start))
        deals = [Game.deal(options, players, rng=rng) for _ in range(games)]
        start = time.perf_counter()
        for g in deals:
            random_playout(g, rng)
        play.append(games / (time.perf_counter() - start))
    return full, play


def step_cost(options: Options, players: int, games: int) -> tuple[float, float]:
    """Microseconds per (legal_moves for the seat to act + push), and moves per game, counted exactly."""
    rng = random.Random(99)
    deals = [Game.deal(options, players, rng=rng) for _ in range(games)]
    moves = 0
    start = time.perf_counter()
    for g in deals:
        while g.result is None:
            seats = g.to_act()
            seat = seats[int(rng.random() * len(seats))]
            legal = g.legal_moves(seat)
            g.push(seat, legal[int(rng.random() * len(legal))])
            moves += 1
    elapsed = time.perf_counter() - start
    return elapsed / moves * 1e6, moves / games


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--decisions", type=int, default=8, help="search decisions timed")
    parser.add_argument("--compare", type=int, metavar="ROUNDS", help="pure vs compiled, alternately")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one round of --compare
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, args.games, args.decisions)
        return
    if args.json:
        _, play = measure(Options(), 2, args.games, 1)
        iterations, seconds = search_speed(args.decisions)
        per_decision = iterations / seconds * 0.5
        record = {
            "build": _build(),
            "playouts": play[0],
            "iterations": per_decision,
            "instant": instant_speed(),
        }
        print(json.dumps(record))
        return
    build = _build()
    print(
        f"Python {sys.version.split()[0]}, engine {build}, {args.games} games per run, best of {args.repeats}"
    )
    print(
        f"{'variant':<10}{'players':>8}{'deal+playout/s':>16}{'playout/s':>11}{'moves/game':>12}{'µs/move':>9}"
    )
    spread = ""
    for variant in (Variant.THROW_IN, Variant.TRANSFER):
        for players in (2, 4, 6):
            options = Options(variant=variant)
            full, play = measure(options, players, args.games, args.repeats)
            micro, per_game = step_cost(options, players, max(200, args.games // 4))
            print(
                f"{variant.value:<10}{players:>8}{max(full):>16,.0f}{max(play):>11,.0f}"
                f"{per_game:>12.1f}{micro:>9.2f}"
            )
            if not spread:
                spread = ", ".join(f"{r:,.0f}" for r in sorted(play))
    print(f"2-player throw-in playout/s in each run (the spread is the machine's noise): {spread}")
    for name, anchor in (("the search player", False), ("the outside anchor (bench/ismcts.py)", True)):
        iterations, seconds = search_speed(args.decisions, anchor)
        print(
            f"ISMCTS, {name}: {iterations / seconds:,.0f} iterations/s over {args.decisions} heads-up "
            "decisions of 0.5 s"
        )


def _build() -> str:
    import engine

    return "compiled" if engine.BUILD.compiled else "pure"


def compare(rounds: int, games: int, decisions: int) -> None:
    """Heads-up throw-in playouts/s, ISMCTS iterations per 0.5 s decision and the instant player's decisions/s,
    pure Python (DURAK_ENGINE=pure) and compiled, in alternate fresh processes; each round's ratios and their
    medians."""
    import engine

    if not engine.BUILD.compiled:
        sys.exit(f"no compiled build to compare with: {engine.BUILD}")

    def run(pure: bool) -> dict[str, float]:
        command = [sys.executable, __file__, "--json", "--games", str(games), "--decisions", str(decisions)]
        env = {**os.environ, "DURAK_ENGINE": "pure" if pure else ""}
        out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
        data = json.loads(out.splitlines()[-1])
        assert data.pop("build") == ("pure" if pure else "compiled"), data
        return {key: float(value) for key, value in data.items()}

    print(f"{games} heads-up throw-in playouts and {decisions} decisions of 0.5 s per run, per build")
    figures = {"playouts": "playouts/s", "iterations": "ISMCTS it/decision", "instant": "easy decisions/s"}
    print(
        f"{'round':<7}"
        + "".join(f"{f'pure {name}':>26}{'compiled':>10}{'×':>6}" for name in figures.values())
    )
    ratios: dict[str, list[float]] = {key: [] for key in figures}
    for r in range(rounds):
        pure, fast = (run(True), run(False)) if r % 2 == 0 else reversed((run(False), run(True)))
        line = f"{r + 1:<7}"
        for key in figures:
            ratios[key].append(fast[key] / pure[key])
            line += f"{pure[key]:>26,.0f}{fast[key]:>10,.0f}{ratios[key][-1]:>6.2f}"
        print(line)
    print(
        "median speed-up: "
        + ", ".join(f"{figures[key]} {statistics.median(values):.2f}×" for key, values in ratios.items())
    )


def instant_speed(seconds: float = 2.0) -> float:
    """Decisions per second of the instant rule-of-thumb player (*easy*, and every worker's fallback), over
    the decisions of random heads-up games."""
    from engine.ai.levels import player_for
    from engine.options import BotLevel
    from engine.views import view

    rng = random.Random(11)
    decided, spent = 0, 0.0
    while spent < seconds:
        game = Game.deal(Options(), 2, rng=rng)
        players = [player_for(BotLevel.EASY, seed=seat) for seat in range(2)]
        while game.result is None and spent < seconds:
            seat = game.to_act()[0]
            seat_view = view(game, seat)
            start = time.process_time()
            move = players[seat].choose(seat_view)
            spent += time.process_time() - start
            decided += 1
            game.push(seat, move)
    return decided / spent


def search_speed(decisions: int, anchor: bool = False) -> tuple[int, float]:
    """Iterations and CPU seconds the search player (or the outside anchor, bench/ismcts.py) spent on fresh
    heads-up deals (0.5 s each, like ``normal``)."""
    from bench.ismcts import IsmctsPlayer
    from engine.ai.search import SearchPlayer
    from engine.views import view

    rng = random.Random(7)
    iterations, seconds = 0, 0.0
    for i in range(decisions):
        game = Game.deal(Options(), 2, rng=rng)
        seen = view(game, game.to_act()[0])
        if anchor:
            outside = IsmctsPlayer(budget=0.5, seed=i)
            start = time.thread_time()
            outside.choose(seen)
            iterations, seconds = iterations + outside.done, seconds + time.thread_time() - start
        else:
            player = SearchPlayer(budget=0.5, seed=i)
            player.choose(seen)
            if player.last is not None and player.last.how == "search":
                iterations += player.last.iterations
                seconds += player.last.seconds
    return iterations, seconds or 1.0


if __name__ == "__main__":
    main()
