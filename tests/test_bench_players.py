"""bench/players.py: a variant's name sets exactly what it says, and the plain names are the bot's levels."""

from __future__ import annotations

import pytest

from bench.players import make
from engine.ai import SearchPlayer
from engine.ai.levels import HARD_ENDGAME, NORMAL_ENDGAME, PLAYOUT_RANDOM
from engine.options import BotLevel


def _search(name: str) -> SearchPlayer:
    player = make(name, seed=1)
    assert isinstance(player, SearchPlayer)
    return player


def test_variants_change_only_the_parts_they_name() -> None:
    hard, noread, wide = _search("hard"), _search("hard-noread"), _search("hard-c0.4")
    assert hard.reading is not None and noread.reading is None and wide.reading is not None
    assert (hard.budget, hard.endgame, hard.exploration) == (1.5, HARD_ENDGAME, 0.7)
    assert (noread.budget, noread.endgame, noread.exploration) == (1.5, HARD_ENDGAME, 0.7)
    assert (wide.budget, wide.endgame, wide.exploration) == (1.5, HARD_ENDGAME, 0.4)
    quick = _search("hard-0.5s")
    assert quick.budget == 0.5 and quick.endgame == pytest.approx(HARD_ENDGAME / 3)
    tree = _search("normal-tree-0.1s")
    assert (tree.budget, tree.opponents, tree.reading) == (0.1, True, None)
    assert tree.endgame == pytest.approx(NORMAL_ENDGAME / 5)  # scaled with the budget
    assert _search("normal-0.05s-g1").endgame == 1.0 and _search("normal-frozen").endgame == 0.25
    assert _search("normal-policy").opponents is False
    shares = (_search("normal-e0.08").playout_random, _search("normal").playout_random, hard.playout_random)
    assert shares == (0.08, PLAYOUT_RANDOM[BotLevel.NORMAL], PLAYOUT_RANDOM[BotLevel.HARD])
    sceptic = _search("hard-o1.4")
    assert (sceptic.exploration, sceptic.opponent_exploration, hard.opponent_exploration) == (0.7, 1.4, 0.7)
    assert (_search("hard-d2").opponent_depth, hard.opponent_depth, sceptic.opponent_depth) == (2, None, None)
    learner = _search("hard-m0.1")
    assert (learner.averages, hard.averages, learner.playout_random) == (0.1, None, hard.playout_random)
    assert (_search("hard-w1").talon_worlds, hard.talon_worlds) == (1, 0)
    judged = (hard.endgame_value, _search("hard-value").endgame_value, _search("hard-novalue").endgame_value)
    assert judged == (True, True, False)
    reader = _search("reader-0.1s")  # the name of earlier runs: normal reading its opponents
    assert reader.budget == 0.1 and reader.reading is not None and reader.reading.tells
    assert hard.reading is not None and hard.reading.tells
    before = _search("hard-notells")  # hard as it read until its leads and covers were measured
    assert before.reading is not None and not before.reading.tells and before.budget == 1.5


def test_a_part_that_means_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="hard takes"):
        make("hard-fast", seed=1)
    with pytest.raises(ValueError, match="ismcts takes"):
        make("ismcts-e0.2", seed=1)  # the anchor's rollouts are its own
    with pytest.raises(ValueError, match="ismcts takes"):
        make("ismcts-m0.1", seed=1)
