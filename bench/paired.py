"""Two players against one opponent on the same deals: how each scored, and the difference paired by deal.

    .venv/bin/python bench/paired.py hard hard-noread --against ismcts-1.5s \\
        --load /tmp/hard.jsonl /tmp/noread.jsonl

Reads games saved by ``bench/ladder.py --save`` (one file or several, in any mix). Each player's score is
over the deals both played in full (both seatings, so a deal that favours one seat favours nobody), with a
95% Wilson interval; the difference is the mean over those deals of (A's two games − B's two games) / 2,
with a 95% bootstrap interval over the deals. Pairing removes what the deal itself decides, which is most
of the noise: two runs of 100 games of the same player can differ by nine points, and only a difference
measured on the same deals tells whether a change helped. Deals with more or fewer than two games of a
player (an interrupted run saved half a deal) are left out and counted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import percentile, wilson

Scores = dict[str, list[float]]  # deal -> the player's score in each of its games there


def scores(paths: list[Path], player: str, opponent: str) -> Scores:
    """The games ``player`` played against ``opponent`` in these files, by deal, as ``player``'s scores."""
    out: Scores = defaultdict(list)
    for path in paths:
        for line in path.read_text().splitlines():
            first, second, score, _, *deal = json.loads(line)
            if deal and {first, second} == {player, opponent}:
                out[deal[0]].append(score if first == player else 1 - score)
    return out


def compare(a: Scores, b: Scores, samples: int, rng: random.Random) -> tuple[list[str], float, float, float]:
    """The deals both played in full, and the mean paired difference with its 95% bootstrap interval."""
    deals = sorted(d for d in a.keys() & b.keys() if len(a[d]) == 2 and len(b[d]) == 2)
    if not deals:
        raise SystemExit("no deal was played in full by both players")
    diffs = [(sum(a[d]) - sum(b[d])) / 2 for d in deals]
    means = [sum(rng.choices(diffs, k=len(diffs))) / len(diffs) for _ in range(samples)]
    return deals, sum(diffs) / len(diffs), percentile(means, 0.025), percentile(means, 0.975)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("a", help="one player, as named in the saved games")
    parser.add_argument("b", help="the player it is compared with")
    parser.add_argument("--against", required=True, help="the opponent both played")
    parser.add_argument("--load", type=Path, nargs="+", required=True, help="files saved by ladder.py")
    parser.add_argument("--bootstrap", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    a = scores(args.load, args.a, args.against)
    b = scores(args.load, args.b, args.against)
    deals, diff, low, high = compare(a, b, args.bootstrap, random.Random(args.seed))
    games = 2 * len(deals)
    width = max(len(args.a), len(args.b)) + 2
    print(f"{len(deals)} deals played in full by both against {args.against} ({games} games each)")
    for name, s in ((args.a, a), (args.b, b)):
        won = sum(sum(s[d]) for d in deals)
        lo, hi = wilson(round(won), games)
        half = sum(1 for d in s if len(s[d]) != 2)
        left = f"; {half} deals with other than two games left out" if half else ""
        print(f"  {name:<{width}}{won / games:6.1%}  ({lo:.1%} … {hi:.1%}, Wilson){left}")
    points = f"{100 * diff:+.1f} points ({100 * low:+.1f} … {100 * high:+.1f}, paired bootstrap over deals)"
    print(f"  {args.a} − {args.b}: {points}")


if __name__ == "__main__":
    main()
