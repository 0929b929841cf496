"""The panel: a level judged by opponents it was not tuned on, at every table size groups play.

    .venv/bin/python bench/panel.py normal --sizes 2 3 4 6 2x2 3x3 --deals 20 --jobs 2 --save panel.jsonl
    .venv/bin/python bench/panel.py normal --load panel.jsonl            # the tables again, nothing played
    .venv/bin/python bench/panel.py normal-e0.3 --save a.jsonl        # a change, on the same deals
    .venv/bin/python bench/panel.py normal-e0.3 --load a.jsonl panel.jsonl --versus normal   # paired by deal

The panel (bench/players.py): ``ismcts-i27500``, the outside anchor given the 27,500 iterations a decision a
native build of it reaches in half a second on this machine (ours, compiled, reaches about 9,000 in that
time: equal CPU would handicap it); ``pimc-0.5s``, perfect-information Monte Carlo with the exact endgame at
*normal*'s time; ``expert``, the card-counting rule player with the exact endgame (bench/expert.py); and
``normal-frozen`` / ``hard-frozen``, the levels' settings as they were when the panel was first measured.

At a table of N the level sits in one seat and the panel member in the other N-1, every seating of each deal
played (the level in every seat, so a deal's luck is shared out); ``2x2`` and ``3x3`` are team games where
the level's partners are panel members too: a team of the level and a panel player against panel players,
which is how well the bot lifts its side. Per panel member and size: the level's durak rate (teams: its
team's losses) with a Wilson interval against the fair share, its average place (solo tables), and the
difference from its opponents' rate in the same games, paired by deal with a bootstrap interval: below zero
throughout, the level beats that member at that size. A change to a level is adopted only when it loses to
no member of the panel (the difference's interval stated before the result is read). Rules: the table's
defaults (docs/rules.md), throw-in unless ``--variant transfer``; every budget is CPU time.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import Job, percentile, play, wilson
from engine import Options, Variant

PANEL = ("ismcts-i27500", "pimc-0.5s", "expert", "normal-frozen", "hard-frozen")
SIZES = ("2", "3", "4", "6", "2x2", "3x3")


def seats_of(size: str) -> tuple[int, bool]:
    """Players at the table, and whether they play in teams."""
    if "x" in size:
        one, _, other = size.partition("x")  # 2x2: two against two
        return int(one) + int(other), True
    return int(size), False


Work = tuple[Job, str, str]  # a game, the level's name, the table's size


def jobs(level: str, panel: list[str], sizes: list[str], deals: range, seed: int, variant: str) -> list[Work]:
    out: list[Work] = []
    for member in panel:
        for size in sizes:
            n, teams = seats_of(size)
            options = Options(variant=Variant(variant), teams=teams)
            options.check_players(n)
            names = (level, *(member,) * (n - 1))
            out += [(Job(d, r, names, options, None, seed), level, size) for d in deals for r in range(n)]
    return out


def record(work: Work) -> dict[str, Any]:
    job, level, size = work
    played = play(job)
    me = seat_of_level(job)
    return {
        "level": level,
        "member": job.names[1],
        "size": size,
        "deal": job.deal,
        "seed": job.seed,
        "rotation": job.rotation,
        "seat": me,
        "lost": played.lost,
        "decisive": played.decisive,
        "places": played.places,
        "times": played.times.get(level, []),
    }


def seat_of_level(job: Job) -> int:
    """Where the first name sits in this seating (tournament.play: seat s holds name (s + rotation) % n),
    whatever the other names are: the level may meet a copy of itself."""
    return -job.rotation % len(job.names)


def others(size: str, me: int) -> list[int]:
    """The seats the level's rate is compared with: the other team's (team play), else every other seat."""
    n, teams = seats_of(size)
    return [s for s in range(n) if s != me and (not teams or s % 2 != me % 2)]


def bootstrap(per_deal: dict[int, list[float]], rounds: int = 2000) -> tuple[float, float, float]:
    """The mean over games, and a 95% interval by resampling whole deals (a deal's games go together)."""
    deals = list(per_deal.values())
    mean = sum(map(sum, deals)) / max(1, sum(map(len, deals)))
    rng = random.Random(1)
    means = []
    for _ in range(rounds):
        drawn = [deals[rng.randrange(len(deals))] for _ in deals]
        means.append(sum(map(sum, drawn)) / max(1, sum(map(len, drawn))))
    means.sort()
    return mean, means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def report(level: str, games: list[dict[str, Any]]) -> None:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for g in games:
        if g["level"] == level:
            groups[g["member"], g["size"]].append(g)
    print(f"{level} against the panel ({len(games)} games)")
    print(
        f"{'member':<15}{'table':>6}{'games':>7}{'lost':>8}{'95% CI':>15}{'fair':>6}{'place':>7}"
        f"{'fair':>6}{'lost − theirs, paired by deal':>36}{'p50/p99 ms':>13}"
    )
    for (member, size), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], SIZES.index(kv[0][1]))):
        n, teams = seats_of(size)
        lost = sum(r["lost"][r["seat"]] for r in rows)
        low, high = wilson(lost, len(rows))
        diffs: dict[int, list[float]] = defaultdict(list)
        placed: list[int] = []
        for r in rows:
            theirs = [r["lost"][s] for s in others(size, r["seat"])]
            diffs[r["deal"]].append(r["lost"][r["seat"]] - sum(theirs) / len(theirs))
            if r["places"][r["seat"]]:
                placed.append(r["places"][r["seat"]])
        d, d_low, d_high = bootstrap(diffs)
        verdict = "beats" if d_high < 0 else "loses" if d_low > 0 else "even"
        fair = 1 / 2 if teams else 1 / n
        place = f"{sum(placed) / len(placed):.2f}" if placed and not teams else "—"
        times = [t for r in rows for t in r["times"]]
        p50, p99 = percentile(times, 0.5) * 1e3, percentile(times, 0.99) * 1e3
        print(
            f"{member:<15}{size:>6}{len(rows):>7}{lost / len(rows):>8.1%}{f'{low:.0%}–{high:.0%}':>15}"
            f"{fair:>6.0%}{place:>7}{f'{(n + 1) / 2:.1f}' if not teams else '—':>6}"
            f"{f'{d:+.1%} ({d_low:+.1%} … {d_high:+.1%}) {verdict}':>36}{f'{p50:.0f}/{p99:.0f}':>13}"
        )


def versus(level: str, other: str, games: list[dict[str, Any]]) -> None:
    """Two players that met the same panel members on the same deals: the difference in their durak rates,
    paired by deal (a change and the level it would replace, e.g. against ``normal-frozen``)."""
    rates: dict[tuple[str, str, str, int], list[float]] = defaultdict(list)
    for g in games:
        if g["level"] in (level, other):
            rates[g["level"], g["member"], g["size"], g["deal"]].append(g["lost"][g["seat"]])
    print(f"{level} − {other}: durak rate, paired by deal")
    cells = sorted({(m, size) for (_, m, size, _) in rates}, key=lambda c: (c[0], SIZES.index(c[1])))
    for member, size in cells:
        diffs = {
            deal: [sum(mine) / len(mine) - sum(theirs) / len(theirs)]
            for (who, m, z, deal), mine in rates.items()
            if (who, m, z) == (level, member, size)
            and (theirs := rates.get((other, member, size, deal))) is not None
        }
        if diffs:
            d, low, high = bootstrap(diffs)
            verdict = "worse" if low > 0 else "better" if high < 0 else "no difference shown"
            print(
                f"{member:<15}{size:>6}{len(diffs):>5} deals  {d:+.1%} ({low:+.1%} … {high:+.1%}) {verdict}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("level", help="the player judged, e.g. normal, hard, normal-e0.3 (bench/players.py)")
    parser.add_argument("--panel", nargs="+", default=list(PANEL))
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=SIZES)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number (to play in parts)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="throw_in")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    parser.add_argument("--save", type=Path, help="append each game to this file (JSON lines) as it ends")
    parser.add_argument("--load", type=Path, nargs="*", help="report the games of these files, play none")
    parser.add_argument("--versus", help="with --load: the level's durak rate against this one's, by deal")
    args = parser.parse_args()
    if args.load:
        games = [json.loads(line) for path in args.load for line in path.read_text().splitlines() if line]
        report(args.level, games)
        if args.versus:
            versus(args.level, args.versus, games)
        return
    deals = range(args.first, args.first + args.deals)
    todo = jobs(args.level, args.panel, args.sizes, deals, args.seed, args.variant)
    start = time.perf_counter()
    games = []
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for i, game in enumerate(pool.imap_unordered(record, todo)):
            games.append(game)
            if args.save:
                with args.save.open("a") as out:
                    out.write(json.dumps(game) + "\n")
            lost = "lost" if game["lost"][game["seat"]] else "not lost"
            print(f"game {i + 1}/{len(todo)}: {game['member']} {game['size']} deal {game['deal']}: {lost}",
                  file=sys.stderr)  # fmt: skip
    print(f"{len(games)} games, {args.jobs} jobs, {time.perf_counter() - start:.0f} s")
    report(args.level, games)


if __name__ == "__main__":
    main()
