"""Engine speed: complete random-playout games per second, microseconds per legal-moves + push step, and
the search's iterations per second.

    .venv/bin/python bench/engine_speed.py [--games 2000] [--repeats 5] [--decisions 8]
    .venv/bin/python bench/engine_speed.py --compare 6   # pure Python vs the compiled build, side by side

Says whether the engine is compiled (bench/compile_engine.py) or pure Python. ``--compare`` needs the compiled
build in place: it runs a pure copy of the engine's sources (in the system temp dir) and the compiled build in
turn, in fresh processes, and prints each round's speed-up and their median, so that the machine's drift
falls on both alike.

Each figure is the best of ``--repeats`` runs (the machines are shared and noisy); one core, 36 cards.
"Deal + playout" counts shuffling and dealing too; "playout" starts from dealt games, as AI search does.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
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
        print(json.dumps({"build": _build(), "playouts": play[0], "search": iterations / seconds}))
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
    iterations, seconds = search_speed(args.decisions)
    print(
        f"ISMCTS: {iterations / seconds:,.0f} iterations/s over {args.decisions} heads-up decisions of 0.5 s"
    )


def _build() -> str:
    import engine.game

    compiled = not engine.game.__file__ or engine.game.__file__.endswith(".so")
    return "compiled (mypyc)" if compiled else "pure Python"


def compare(rounds: int, games: int, decisions: int) -> None:
    """Heads-up throw-in playouts/s and ISMCTS iterations/s, pure Python and compiled, in alternate fresh
    processes; each round's ratio and the median ratio."""
    root = Path(__file__).resolve().parent.parent
    if not any(root.glob("engine/*.so")):
        sys.exit("no compiled build: run bench/compile_engine.py first")
    with tempfile.TemporaryDirectory() as tmp:
        pure = Path(tmp)
        shutil.copytree(
            root / "engine", pure / "engine", ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
        (pure / "bench").mkdir()
        shutil.copy(__file__, pure / "bench" / "engine_speed.py")

        def run(tree: Path) -> tuple[str, float, float]:
            script = tree / "bench" / "engine_speed.py"
            command = [
                sys.executable,
                str(script),
                "--json",
                "--games",
                str(games),
                "--decisions",
                str(decisions),
            ]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            data = json.loads(out.splitlines()[-1])
            return str(data["build"]), float(data["playouts"]), float(data["search"])

        print(
            f"{games} heads-up throw-in playouts and {decisions} ISMCTS decisions of 0.5 s per run, per build"
        )
        print(
            f"{'round':<7}{'pure playouts/s':>16}{'compiled':>10}{'×':>6}{'pure ISMCTS it/s':>18}{'compiled':>10}{'×':>6}"
        )
        play_ratios, search_ratios = [], []
        for r in range(rounds):
            if r % 2:  # who goes first alternates
                b = run(root)
                a = run(pure)
            else:
                a = run(pure)
                b = run(root)
            assert a[0] == "pure Python" and b[0] == "compiled (mypyc)", (a, b)
            play_ratios.append(b[1] / a[1])
            search_ratios.append(b[2] / a[2])
            print(
                f"{r + 1:<7}{a[1]:>16,.0f}{b[1]:>10,.0f}{play_ratios[-1]:>6.2f}"
                f"{a[2]:>18,.0f}{b[2]:>10,.0f}{search_ratios[-1]:>6.2f}"
            )
        print(
            f"median speed-up: playouts {statistics.median(play_ratios):.2f}×, "
            f"ISMCTS {statistics.median(search_ratios):.2f}×"
        )


def search_speed(decisions: int) -> tuple[int, float]:
    """Iterations and seconds the search player spent on fresh heads-up deals (0.5 s each, like ``normal``)."""
    from engine.ai.search import SearchPlayer
    from engine.views import view

    rng = random.Random(7)
    iterations, seconds = 0, 0.0
    for i in range(decisions):
        game = Game.deal(Options(), 2, rng=rng)
        player = SearchPlayer(budget=0.5, seed=i)
        player.choose(view(game, game.to_act()[0]))
        if player.last is not None and player.last.how == "search":
            iterations += player.last.iterations
            seconds += player.last.seconds
    return iterations, seconds or 1.0


if __name__ == "__main__":
    main()
