"""The panel of opponents (bench/panel.py, bench/expert.py, bench/partners.py): the rule player plays only
legal moves at every table, the panel's names are what they say, a panel run reports what its games
show, and the partner check finds the moves that cost a side the game, with positions that replay."""

from __future__ import annotations

import random

import pytest

from bench import panel, race_cut
from bench.expert import ExpertPlayer
from bench.ismcts import IsmctsPlayer
from bench.partners import judge
from bench.players import FROZEN, make
from bench.tournament import Job, play
from engine import Game, Options, Variant, snapshot
from engine.ai import SearchPlayer
from engine.ai.solver import Solver
from engine.ai.worlds import Knowledge
from engine.moves import Move, parse_move
from engine.views import View


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, Options()),
        (3, Options(variant=Variant.TRANSFER)),
        (4, Options(teams=True)),
        (6, Options(teams=True, variant=Variant.TRANSFER)),
    ],
)
def test_the_rule_player_plays_whole_games_at_every_table(players: int, options: Options) -> None:
    for deal in range(8):  # play() applies every move through the engine's checks: an illegal one raises
        names = ("expert", *("heuristic",) * (players - 1))
        played = play(Job(deal, deal % players, names, options, None, 3))
        assert len(played.places) == players


def test_the_rule_player_plays_an_endgame_it_can_see_exactly() -> None:
    """Once its view places every card (heads-up, the talon gone), its move is one the solver rates best."""
    seen: list[tuple[float, float]] = []

    def watch(game: Game, seat: int, view: View, move: Move) -> None:
        if seat == 0 and len(view.moves) > 1 and Knowledge.of(view).determined and len(seen) < 3:
            values = Solver(seat).values(game, list(view.moves))
            seen.append((values[move], max(values.values())))

    for deal in range(20):
        if len(seen) < 3:
            play(Job(deal, 0, ("expert", "greedy"), Options(), None, 5), watch)
    assert len(seen) == 3
    assert all(chosen == best for chosen, best in seen)


def test_the_panels_names() -> None:
    assert isinstance(make("expert", 1), ExpertPlayer)
    anchor = make("ismcts-i27500", 1)
    assert isinstance(anchor, IsmctsPlayer) and anchor.iterations == 27_500
    timed = make("ismcts-1.5s", 1)
    assert isinstance(timed, IsmctsPlayer) and (timed.iterations, timed.budget) == (0, 1.5)
    pimc = make("pimc-0.5s", 1)
    assert pimc.budget == 0.5  # type: ignore[attr-defined]
    for name, pinned in FROZEN.items():
        player = make(name, 1)
        assert isinstance(player, SearchPlayer)
        assert (player.budget, player.playout_random) == (pinned.budget, pinned.playout_random)
        assert (player.reading is not None) == pinned.reads
        assert not player.races, "at three seats and more they searched a tree then"
    assert make("normal", 1).races and not make("normal-norace", 1).races  # type: ignore[attr-defined]
    assert set(panel.PANEL) >= {"expert", "normal-frozen", "hard-frozen"}


def test_a_panel_run_reports_each_member_and_size(capsys: pytest.CaptureFixture[str]) -> None:
    todo = panel.jobs("heuristic", ["greedy", "random"], ["2", "3", "2x2"], range(2), 1, "throw_in")
    assert len(todo) == 2 * 2 * (2 + 3 + 4)
    games = [panel.record(work) for work in todo]
    for game in games:
        n, teams = panel.seats_of(game["size"])
        assert len(game["lost"]) == len(game["places"]) == n and 0 <= game["seat"] < n
        assert teams == (game["size"] == "2x2")
    # Every seating of a deal: the level sat in every seat of it.
    seated = {(g["member"], g["size"], g["deal"], g["seat"]) for g in games}
    assert len(seated) == len(games)
    panel.report("heuristic", games)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("greedy", "random"))]
    assert len(rows) == 6
    team = next(line for line in rows if " 2x2 " in line)
    assert "50%" in team and "—" in team  # the fair share of a side; no place in team play
    assert all(line.split()[-2] in ("beats", "even", "loses") for line in rows)


def test_the_partner_check_finds_the_moves_that_cost_a_side_the_game() -> None:
    """A random player as everybody's partner: some of its endgame moves turn a saved game into a lost one.
    Each saved position replays: the move is legal there, and the solver values it a loss where another
    move is worth at least a draw."""
    found = []
    for deal in range(6):
        result = judge(Job(deal, deal % 4, ("random", "expert", "expert", "expert"), Options(teams=True),
                           None, 2), cards=12)  # fmt: skip
        assert result["checked"] >= len(result["harm"])
        found += result["harm"]
    assert found, "a random partner never cost its side a saved endgame in six games"
    harm = random.Random(0).choice(found)
    game = snapshot.loads(harm["position"])
    move = parse_move(harm["move"])
    assert move in game.legal_moves(harm["seat"])
    values = Solver(harm["seat"]).values(game, game.legal_moves(harm["seat"]))
    assert values[move] == 0.0 and max(values.values()) >= 0.5


def test_a_judged_bot_that_plays_its_endgames_exactly_costs_its_side_nothing_it_could_see() -> None:
    """The expert solves every endgame whose cards it can place: no informed harm, whatever the deal."""
    for deal in range(8):
        names = ("expert", "heuristic", "heuristic", "heuristic")
        result = judge(Job(deal, deal % 4, names, Options(teams=True), None, 4), cards=12)
        assert not [h for h in result["harm"] if h["informed"]]


def test_two_levels_on_the_same_deals_are_compared_deal_by_deal(capsys: pytest.CaptureFixture[str]) -> None:
    """A change is judged against the level it would replace on the same deals: the lowest-card player
    against the careful rule player, both facing the random player on four deals heads-up."""
    games = [
        panel.record(work)
        for level in ("greedy", "heuristic")
        for work in panel.jobs(level, ["random"], ["2"], range(4), 1, "throw_in")
    ]
    panel.versus("greedy", "heuristic", games)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.split()[:3] == ["random", "2", "4"]
    greedy = sum(g["lost"][g["seat"]] for g in games if g["level"] == "greedy") / 8
    careful = sum(g["lost"][g["seat"]] for g in games if g["level"] == "heuristic") / 8
    assert f"{greedy - careful:+.1%}" in line


def test_a_level_that_meets_a_copy_of_itself_is_still_found_in_its_seat() -> None:
    """Every seating puts the level's own seat first in turn: the report follows that seat, not the first
    seat that bears its name."""
    todo = panel.jobs("greedy", ["greedy"], ["3"], range(1), 1, "throw_in")
    assert sorted(panel.record(work)["seat"] for work in todo) == [0, 1, 2]


def test_the_race_cut_benchmark_weighs_each_cut_against_a_race_that_drops_nothing() -> None:
    """A cut of zero ends the race at its first look; an endless one runs the whole budget. Each decision's
    regret is what the yardstick says the move made gave away: none exactly when it made the yardstick's best."""
    seen = race_cut.positions(1, seed=4)[0]
    judged = race_cut.judge((0, seen, 0.2, (0.0, float("inf"))))
    assert judged is not None
    moves, per = judged
    assert moves == len(seen.moves) > 1
    for regret, best, _ in per.values():
        assert regret >= 0.0 and best == (regret == 0.0)
    assert per[0.0][2] < per[float("inf")][2]
