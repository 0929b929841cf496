"""Pinned trajectories: seeded random games whose every step (each seat's legal moves, the clock, the events,
the snapshot) must stay exactly as recorded. Engine speed work must not change behaviour; this catches any
change, and names the first game that differs so it can be replayed.

After an intended rule change, record anew (and say why in the commit):
    .venv/bin/python -m tests.engine.test_trajectories
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

from engine import Game, Options
from engine.playout import random_playout
from engine.snapshot import dumps

RECORD = Path(__file__).with_name("trajectories.json")


def tables() -> list[tuple[str, Options, int]]:
    """Every player count of every option combination, thinned to a fixed sample of 160."""
    found: list[tuple[str, Options, int]] = []
    combos = itertools.product(
        [24, 36, 52], [False, True], ["throw_in", "transfer"], ["all", "neighbours"], ["six", "defender_hand"]
    )
    for deck, teams, variant, throw_in, cap in combos:
        limit = min(6, deck // 6)
        for players in [p for p in ((4, 6) if teams else range(2, 7)) if p <= limit]:
            for five, first, show, draw in itertools.product([None, True, False], *[[False, True]] * 3):
                if show and variant != "transfer":
                    continue
                options: dict[str, Any] = {
                    "deck": deck,
                    "teams": teams,
                    "variant": variant,
                    "throw_in": throw_in,
                    "attack_cap": cap,
                    "first_bout_five": five,
                    "transfer_first_bout": first,
                    "show_trump_transfer": show,
                    "draw": draw,
                }
                name = f"{players}p " + " ".join(f"{k}={v}" for k, v in options.items())
                found.append((name, Options(**options), players))
    return random.Random(0).sample(found, 160)


def digest(options: Options, players: int, seed: int) -> str:
    """One game played through apply/timeout, then one random playout from the same deal."""
    rng = random.Random(seed)
    h = hashlib.sha256()
    g = Game.deal(options, players, rng=rng)
    start = dumps(g)
    while not g.over:
        legal = [g.legal_moves(s) for s in range(players)]
        h.update(repr((g.to_act(), legal)).encode())
        if rng.random() < 0.05:
            applied = g.timeout()
        else:
            acting = [(s, m) for s, m in enumerate(legal) if m]
            seat, moves = acting[int(rng.random() * len(acting))]
            applied = g.apply(seat, moves[int(rng.random() * len(moves))])
        h.update(repr(applied).encode())
        h.update(dumps(g).encode())
    h.update(repr(random_playout(Game.deal(options, players, rng=rng), rng)).encode())
    h.update(start.encode())
    return h.hexdigest()[:16]


def record() -> dict[str, str]:
    return {name: digest(options, players, seed) for seed, (name, options, players) in enumerate(tables())}


def test_seeded_games_play_exactly_as_recorded() -> None:
    recorded = json.loads(RECORD.read_text())
    for seed, (name, options, players) in enumerate(tables()):
        assert name in recorded, f"no recorded trajectory for {name}: record anew"
        assert digest(options, players, seed) == recorded[name], f"game {seed} ({name}) plays differently"


if __name__ == "__main__":
    RECORD.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"recorded {RECORD}")
