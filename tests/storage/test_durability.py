"""Kill a writing process with SIGKILL at random moments: the database stays intact and keeps every move
that was reported committed."""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from storage import Storage

ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(path: Path, seed: int, after: float) -> dict[int, int]:
    """Run the writer for ``after`` seconds of writing, SIGKILL it; returns the last committed seq per game."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.writer", str(path), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    # Wait until it writes, so start-up time does not eat the window; never wait forever.
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    if not ready:
        proc.kill()
        raise AssertionError("the writer printed nothing in 60 s")
    first = proc.stdout.readline()
    assert first, "the writer printed nothing"
    time.sleep(after)
    os.kill(proc.pid, signal.SIGKILL)
    out = first + proc.stdout.read()
    proc.wait()
    committed: dict[int, int] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:  # the last line may be cut mid-write: it does not count
            game, seq = int(parts[0]), int(parts[1])
            committed[game] = max(seq, committed.get(game, 0))
    return committed


async def test_sigkill_at_random_moments_loses_no_committed_move(tmp_path: Path) -> None:
    path = tmp_path / "durable.sqlite3"
    rng = random.Random(7)
    reported: dict[int, int] = {}
    for round_ in range(5):
        for game, seq in run_and_kill(path, round_, rng.uniform(0.05, 0.6)).items():
            reported[game] = max(seq, reported.get(game, 0))
        store = await Storage.open(path)
        try:
            assert await store.db.integrity_check() == "ok"
            for game_id, seq in reported.items():
                row = await store.games.get(game_id)
                assert row is not None and row.seq >= seq, f"game {game_id} lost committed moves"
                # The stored snapshot is exactly what its log replays to.
                assert await store.games.replay(row) == store.games.load(row)
        finally:
            await store.close()
    assert sum(reported.values()) > 50, "the writer barely wrote anything; the test proves little"
