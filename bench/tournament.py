"""Tournament: computer players against each other on fixed deals, seats rotated so every deal is played
from every seat (heads-up: each deal twice, seats swapped).

    .venv/bin/python bench/tournament.py search greedy --deals 100 --budget 1.0 --jobs 2
    .venv/bin/python bench/tournament.py search heuristic --players 4 --variant transfer --deals 50

Players: see bench/players.py (random, greedy, heuristic, easy, normal, hard, search, pimc); budgets are
CPU time.
With fewer names than seats, the names repeat around the table (A B A B ...). Prints per player the durak
rate, the share of decisive games it escaped with a 95% Wilson interval, and decision times p50/p99 (CPU) of
the moves it had to think about (forced moves are instant and left out).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.players import make
from engine import Game, Options, Variant
from engine.moves import Move
from engine.views import View, view


@dataclass
class Tally:
    games: int = 0
    durak: int = 0  # games it lost (team play: its team lost)
    decisive: int = 0  # games with a loser
    escaped: int = 0  # decisive games it did not lose
    times: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Job:
    deal: int
    rotation: int
    names: tuple[str, ...]
    options: Options
    budget: float | None
    seed: int


MAX_MOVES = 5000  # a game of two deterministic players may repeat one cycle of bouts for ever
# Bouts in a row, talon empty, with no card beaten and nobody out: the players are passing the same cards
# back and forth (takes both ways). Heuristic players can do it for ever, and at half a second a search
# decision the move cap alone once held a worker for 40 minutes on one such game. Undecided, like a draw.
STALL_BOUTS = 40


Watch = Callable[[Game, int, View, Move], None]  # (game, seat, its view, its move): before the move is made


class Played(NamedTuple):
    seats: tuple[str, ...]  # who sat where
    lost: tuple[bool, ...]  # per seat (team play: its team lost)
    decisive: bool  # somebody lost
    times: dict[str, list[float]]  # each name's thinking times (CPU seconds)
    places: tuple[int, ...]  # per seat, 1 best (shared: a tie); all 0 for a game stopped undecided


def play(job: Job, watch: Watch | None = None) -> Played:
    """One game. ``watch`` sees every decision before it is applied (bench/reading.py)."""
    n = len(job.names)
    seats = tuple(job.names[(s + job.rotation) % n] for s in range(n))
    rng = random.Random(job.seed * 1_000_003 + job.deal)
    game = Game.deal(job.options, n, rng=rng)  # the same deal for every rotation
    players = [make(name, job.seed + 7919 * job.deal + s, job.budget) for s, name in enumerate(seats)]
    times: dict[str, list[float]] = defaultdict(list)
    pick = random.Random(job.deal + 31 * job.rotation)
    progress, since = (-1, -1), 0  # (cards beaten, seats out) and the bout it last changed
    for _ in range(MAX_MOVES):
        if game.result is not None:
            break
        now = (game.discard.bit_count(), len(game.finishers))
        if now != progress or game.talon:
            progress, since = now, game.bout
        elif game.bout - since >= STALL_BOUTS:
            break
        on_clock = game.to_act()
        seat = on_clock[0] if len(on_clock) == 1 else pick.choice(on_clock)
        seen = view(game, seat)
        # CPU time of this thread, which does the thinking: what the budgets count, whatever else runs.
        start = time.thread_time()
        move = players[seat].choose(seen)
        if len(seen.moves) > 1:
            times[seats[seat]].append(time.thread_time() - start)
        if watch is not None:
            watch(game, seat, seen, move)
        game.apply(seat, move)  # validated: an illegal choice would raise here
    result = game.result
    if result is None:  # deterministic players repeating one cycle of bouts: no decision, like a draw
        return Played(seats, (False,) * n, False, dict(times), (0,) * n)
    lost = tuple(s in result.losers or result.losing_team == game.team(s) for s in range(n))
    return Played(seats, lost, not result.draw, dict(times), tuple(result.places))


def rule_flags(parser: argparse.ArgumentParser) -> None:
    """The options an outside engine may play differently (the anchor's published rules: --no-draw --six)."""
    parser.add_argument("--no-draw", action="store_true", help="the last two going out together: no draw")
    parser.add_argument("--six", action="store_true", help="the first bout takes six cards, not five")


def rules(args: argparse.Namespace) -> dict[str, bool | None]:
    return {"draw": not args.no_draw, "first_bout_five": False if args.six else None}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+", help="players, e.g. search greedy")
    parser.add_argument("--players", type=int, default=0, help="seats at the table (default: the names)")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument(
        "--budget", type=float, default=None, help="CPU seconds a move for 'search' (pimc: a tenth)"
    )
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="throw_in")
    parser.add_argument("--deck", type=int, choices=(24, 36, 52), default=36)
    parser.add_argument("--teams", action="store_true")
    rule_flags(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    args = parser.parse_args()
    n = args.players or len(args.names)
    names = tuple(args.names[s % len(args.names)] for s in range(n))
    options = Options(variant=Variant(args.variant), deck=args.deck, teams=args.teams, **rules(args))
    options.check_players(n)
    # Every distinct seating once (A B A B has two: A first or B first).
    seatings = {tuple(names[(s + r) % n] for s in range(n)): r for r in range(n)}
    rotations = len(seatings)
    jobs = [
        Job(d, r, names, options, args.budget, args.seed)
        for d in range(args.deals)
        for r in seatings.values()
    ]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        games = []
        # One line per game as it ends (stderr): a long run stopped early still shows what it played.
        for game in pool.imap(play, jobs) if args.jobs > 1 else map(play, jobs):
            games.append(game)
            seats, lost = game[0], game[1]
            durak = " ".join(name for name, out in zip(seats, lost, strict=True) if out) or "nobody"
            print(f"game {len(games)}/{len(jobs)}: {' '.join(seats)}; durak: {durak}", file=sys.stderr)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for seats, lost, decisive, times, _ in games:
        for s, name in enumerate(seats):
            t = tallies[name]
            t.games += 1
            t.durak += lost[s]
            t.decisive += decisive
            t.escaped += decisive and not lost[s]
        for name, spent in times.items():
            tallies[name].times.extend(spent)
    print(
        f"{len(games)} games ({args.deals} deals × {rotations} seatings), {n} players, {args.deck} cards, "
        f"{args.variant}{', teams' if args.teams else ''}{', no draw' if args.no_draw else ''}"
        f"{', first bout six' if args.six else ''}, search budget {args.budget or 1.0}s, "
        f"{args.jobs} jobs, {time.perf_counter() - start:.0f}s"
    )
    print(
        f"{'player':<11}{'seat-games':>11}{'durak':>8}{'escaped':>9}{'95% CI':>17}{'p50 ms':>9}{'p99 ms':>9}"
    )
    for name in dict.fromkeys(names):
        t = tallies[name]
        low, high = wilson(t.escaped, t.decisive)
        rate = t.escaped / t.decisive if t.decisive else 0.0
        print(
            f"{name:<11}{t.games:>11}{t.durak / t.games:>8.1%}{rate:>9.1%}"
            f"{f'{low:.1%}–{high:.1%}':>17}{percentile(t.times, 0.5) * 1e3:>9.0f}"
            f"{percentile(t.times, 0.99) * 1e3:>9.0f}"
        )


if __name__ == "__main__":
    main()
