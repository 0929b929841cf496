"""The level ladder: computer players in a round robin on fixed deals, seats swapped, rated by Elo.

    .venv/bin/python bench/ladder.py random easy greedy heuristic normal hard --deals 100 --jobs 2
    .venv/bin/python bench/ladder.py random easy greedy heuristic normal hard pimc --span 1 \
        --pairs normal:pimc normal:greedy --deals 100 --save /tmp/ladder.jsonl --jobs 2
    .venv/bin/python bench/ladder.py random easy greedy heuristic normal hard pimc --load /tmp/ladder.jsonl

Heads-up 36-card throw-in by default. Every pair of names (with ``--span K``, only pairs at most K apart in
the list: the neighbours that decide the ladder; ``--pairs a:b`` adds pairs, played first) plays ``--deals``
deals twice, seats swapped. ``--save`` appends every game as it ends to a file, and ``--load`` rates the
games of such files instead of playing (so a long ladder can be played in parts; ``--first N`` starts at deal N, so one long pair can too). Ratings are
the maximum-likelihood Elo of all games (Bradley–Terry; a draw scores ½; one virtual draw per pair played
keeps a player that won every game finite: its distance to the loser is then a bound, not a measure), the
first name (or ``--anchor``) at 0, with 95% intervals from a bootstrap over the deals: the two games of a deal
are resampled together, since they are not independent (a deal that favours one seat tends to give each
player one win). Games saved without their deal (before this was recorded) each count as a deal of their
own: as a deal tends to favour one seat, that usually widens the intervals. Each neighbour gap is printed with its own interval, and decision
times (CPU) per player.
Budgets are CPU time (bench/players.py), so a busy machine slows the ladder without changing it.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import Job, percentile, play, rule_flags, rules
from engine import Options, Variant

Game = tuple[int, int, float]  # (player, opponent, player's score)
Deal = str  # which deal a game was played on: the two games with seats swapped share it


def elo(players: int, games: list[Game], anchor: int = 0, rounds: int = 500) -> list[float]:
    """Maximum-likelihood Elo by Hunter's MM iteration for Bradley–Terry, ``anchor`` at 0."""
    score = [0.0] * players
    meetings: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, s in games:
        score[a] += s
        score[b] += 1 - s
        meetings[min(a, b), max(a, b)] += 1
    for a, b in list(meetings):  # the virtual draw
        meetings[a, b] += 1
        score[a] += 0.5
        score[b] += 0.5
    strength = [1.0] * players
    for _ in range(rounds):
        denominator = [0.0] * players
        for (a, b), n in meetings.items():
            share = n / (strength[a] + strength[b])
            denominator[a] += share
            denominator[b] += share
        strength = [score[i] / denominator[i] if denominator[i] else 1.0 for i in range(players)]
        norm = strength[anchor]
        strength = [s / norm for s in strength]
    return [400 * math.log10(s) for s in strength]


def bootstrap(
    players: int,
    games: list[Game],
    deals: list[Deal],
    samples: int,
    rng: random.Random,
    anchor: int = 0,
) -> list[list[float]]:
    """Ratings of ``samples`` resamplings: within each pair of players, its deals drawn with replacement,
    each with all of its games (``deals[i]`` is the deal of ``games[i]``)."""
    by_pair: dict[tuple[int, int], dict[Deal, list[Game]]] = defaultdict(lambda: defaultdict(list))
    for g, deal in zip(games, deals, strict=True):
        by_pair[min(g[0], g[1]), max(g[0], g[1])][deal].append(g)
    clusters = [list(pair.values()) for pair in by_pair.values()]
    runs = []
    for _ in range(samples):
        drawn = [g for pair in clusters for cluster in rng.choices(pair, k=len(pair)) for g in cluster]
        runs.append(elo(players, drawn, anchor, rounds=200))
    return runs


def interval(values: list[float]) -> tuple[float, float]:
    return percentile(values, 0.025), percentile(values, 0.975)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+", help="players from weakest to strongest, see bench/players.py")
    parser.add_argument("--deals", type=int, default=50, help="deals per pair (each played twice)")
    parser.add_argument(
        "--first", type=int, default=0, help="the first deal's number (to play a long pair in parts)"
    )
    parser.add_argument("--span", type=int, default=0, help="only pairs at most this far apart (0: all)")
    parser.add_argument("--pairs", nargs="*", default=[], help="more pairs, e.g. normal:pimc (played first)")
    parser.add_argument("--save", type=Path, help="append each game to this file as it ends")
    parser.add_argument("--load", type=Path, nargs="*", help="rate the games of these files, play none")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="throw_in")
    parser.add_argument("--budget", type=float, default=None, help="CPU seconds a move for 'search'")
    rule_flags(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=400)
    parser.add_argument("--anchor", help="the player rated 0 (default: the first name)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    args = parser.parse_args()
    names = args.names
    span = args.span or len(names)
    index = {name: i for i, name in enumerate(names)}
    near = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names)) if b - a <= span]
    extra = [tuple(sorted(index[n] for n in pair.split(":"))) for pair in args.pairs]
    pairs = list(dict.fromkeys([*extra, *near]))
    start = time.perf_counter()
    games: list[Game] = []
    deals: list[Deal] = []
    times: dict[str, list[float]] = defaultdict(list)
    if args.load:
        for path in args.load:
            for number, line in enumerate(path.read_text().splitlines()):
                first, second, score, spent, *deal = json.loads(line)
                games.append((index[first], index[second], score))
                deals.append(deal[0] if deal else f"{path}:{number}")  # unrecorded: a deal of its own
                for name, t in spent.items():
                    times[name].extend(t)
    else:
        options = Options(variant=Variant(args.variant), **rules(args))
        table = args.variant + ("/no-draw" if args.no_draw else "") + ("/six" if args.six else "")
        jobs = [
            Job(d, r, (names[a], names[b]), options, args.budget, args.seed)
            for a, b in pairs
            for d in range(args.first, args.first + args.deals)
            for r in (0, 1)
        ]
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for job, (seats, lost, decisive, spent, _) in zip(jobs, pool.imap(play, jobs), strict=True):
                first = seats.index(job.names[0])
                score = 0.5 if not decisive else float(not lost[first])
                games.append((index[job.names[0]], index[job.names[1]], score))
                deals.append(f"{table}/{args.seed}/{job.deal}")
                for name, t in spent.items():
                    times[name].extend(t)
                if args.save:
                    with args.save.open("a") as out:
                        out.write(json.dumps([*job.names, score, spent, deals[-1]]) + "\n")
    anchor = index[args.anchor] if args.anchor else 0
    ratings = elo(len(names), games, anchor)
    runs = bootstrap(len(names), games, deals, args.bootstrap, random.Random(args.seed), anchor)
    print(
        f"{len(games)} games, {len({(a, b) for a, b, _ in games})} pairs, heads-up, 36 cards, "
        f"{args.variant}{', no draw' if args.no_draw else ''}{', first bout six' if args.six else ''}, "
        f"{time.perf_counter() - start:.0f}s"
    )
    print(f"{'player':<11}{'Elo':>7}{'95% CI':>17}{'p50 ms':>9}{'p99 ms':>9}")
    for i, name in enumerate(names):
        low, high = interval([r[i] for r in runs])
        print(
            f"{name:<11}{ratings[i]:>7.0f}{f'{low:.0f} … {high:.0f}':>17}"
            f"{percentile(times[name], 0.5) * 1e3:>9.0f}{percentile(times[name], 0.99) * 1e3:>9.0f}"
        )
    print("neighbour gaps (Elo, 95% CI) and head-to-head scores:")
    for i in range(1, len(names)):
        low, high = interval([r[i] - r[i - 1] for r in runs])
        met = [s if a == i else 1 - s for a, b, s in games if {a, b} == {i - 1, i}]
        head = f"{sum(met) / len(met):.1%} of {len(met)}" if met else "not played"
        print(
            f"  {names[i]} − {names[i - 1]}: {ratings[i] - ratings[i - 1]:+.0f} ({low:+.0f} … {high:+.0f}),"
            f" {names[i]} scored {head}"
        )


if __name__ == "__main__":
    main()
