"""bench/paired.py: two players' games against one opponent, compared deal by deal."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bench.paired import compare, scores


def _save(path: Path, games: list[tuple[str, str, float, str]]) -> None:
    path.write_text("".join(json.dumps([a, b, s, {}, deal]) + "\n" for a, b, s, deal in games))


def test_only_deals_both_played_in_full_are_compared_and_the_difference_is_paired(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _save(
        first,
        [
            ("new", "anchor", 1.0, "d1"),
            ("new", "anchor", 1.0, "d1"),
            ("new", "anchor", 0.0, "d2"),
            ("new", "anchor", 1.0, "d2"),
            ("new", "anchor", 1.0, "d3"),  # half a deal: left out
            ("anchor", "new", 1.0, "d4"),  # the anchor named first: the new player lost
            ("anchor", "new", 0.0, "d4"),
        ],
    )
    _save(
        second,
        [
            ("old", "anchor", 0.0, "d1"),
            ("old", "anchor", 1.0, "d1"),
            ("old", "anchor", 0.0, "d2"),
            ("old", "anchor", 1.0, "d2"),
            ("old", "anchor", 1.0, "d3"),
            ("old", "anchor", 1.0, "d3"),
            ("old", "anchor", 0.0, "d4"),
            ("old", "anchor", 0.0, "d4"),
            ("old", "someone", 1.0, "d5"),  # another opponent: not read
            ("old", "someone", 1.0, "d5"),
        ],
    )
    new = scores([first, second], "new", "anchor")
    old = scores([first, second], "old", "anchor")
    assert new["d4"] == [0.0, 1.0] and "d5" not in old
    deals, diff, low, high = compare(new, old, 2000, random.Random(1))
    assert deals == ["d1", "d2", "d4"]
    # per deal (new − old) / 2: d1 +0.5, d2 0, d4 +0.5
    assert diff == pytest.approx(1 / 3)
    assert 0 <= low <= diff <= high <= 0.5


def test_no_common_deal_is_said_plainly(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    _save(path, [("new", "anchor", 1.0, "d1"), ("new", "anchor", 0.0, "d1")])
    with pytest.raises(SystemExit, match="no deal"):
        compare(scores([path], "new", "anchor"), scores([path], "old", "anchor"), 10, random.Random(1))
