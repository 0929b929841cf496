"""The strong player: fair information (worlds agree with everything public and nothing hidden), legal
moves only, exact endgames that agree with brute force, determinism under a seed."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Options, Result, Variant, snapshot
from engine.ai import GreedyPlayer, HeuristicPlayer, Player, RandomPlayer, SearchPlayer, player_for
from engine.ai.pimc import PimcPlayer
from engine.ai.policy import SEAT_BITS, Averages, playout, policy_move, rewards
from engine.ai.search import Node
from engine.ai.solver import DRAW, SOLVER_NODES, Endgame, OutOfBudget, Solver, position_key
from engine.ai.worlds import Knowledge, Worlds
from engine.cards import DECK_MASK, cards_of, lowest, mask_of
from engine.moves import PASS, TAKE, lead_of, move_str, parse_move
from engine.options import BotLevel
from engine.views import view
from tests.engine.helpers import cards, position
from tests.engine.test_properties import MAX_STEPS, check_invariants, tables


def hidden(g: Game, seat: int) -> int:
    """The cards ``seat`` cannot place: other hands' unknown cards and the talon above its bottom card."""
    mask = mask_of(g.talon[1:])
    for s in range(g.players):
        if s != seat:
            mask |= g.hands[s] & ~g.known[s]
    return mask


def check_worlds(g: Game, seat: int, rng: random.Random) -> None:
    v = view(g, seat)
    k = Knowledge.of(v)
    assert k.unseen == hidden(g, seat)
    worlds = Worlds(v, rng)
    for _ in range(3):
        w = worlds.deal()
        assert w.hands[seat] == g.hands[seat]
        for s in range(g.players):
            assert w.hands[s].bit_count() == g.hands[s].bit_count()
            assert g.known[s] & ~w.hands[s] == 0, "a publicly known card is missing from its holder"
            assert w.hands[s] & ~k.possible(s) == 0 and g.hands[s] & ~k.possible(s) == 0
        assert len(w.talon) == len(g.talon) and w.talon[:1] == g.talon[:1], "the face-up trump is drawn last"
        assert (w.attack, w.cover, w.discard, w.throwers) == (g.attack, g.cover, g.discard, g.throwers)
        assert hidden(w, seat) == hidden(g, seat), "the unseen cards are dealt into the hidden places"
        # Who else is on the clock may differ: a thrower waits only if it holds a card to add.
        assert (seat in w.to_act()) == (seat in g.to_act()) and w.legal_moves(seat) == g.legal_moves(seat)
        if k.determined:
            assert w.hands == g.hands and w.talon == g.talon
        w = worlds.sample()
        check_invariants(w)
        playout(w, rng.random)
        assert w.result is not None


@given(tables(), st.integers(0, 2**32 - 1))
@settings(max_examples=40)
def test_worlds_agree_with_everything_public(table: tuple[Options, int], seed: int) -> None:
    options, players = table
    rng = random.Random(seed)
    g = Game.deal(options, players, rng=rng)
    while not g.over:
        seats = g.to_act()
        check_worlds(g, seats[0], rng)
        if rng.random() < 0.3:
            check_worlds(g, rng.randrange(g.players), rng)
        seat = rng.choice(seats)
        g.push(seat, rng.choice(g.legal_moves(seat)))


def test_a_seat_decides_the_same_whatever_the_hidden_cards_are() -> None:
    """Two games that differ only in cards seat 0 cannot see give it the same view, the same worlds and the
    same decision: the player cannot read hidden state."""
    for seed in range(100):
        deck = list(cards_of(DECK_MASK[36]))
        random.Random(seed).shuffle(deck)
        other = deck[:]
        # Swap a card of seat 1's hand with one in the middle of the talon (not the face-up trump).
        other[6], other[20] = other[20], other[6]
        games = [Game.deal(Options(), 2, deck=d) for d in (deck, other)]
        if games[0].opening == games[1].opening and games[0].lead == 0:
            break
    assert games[0].hands[1] != games[1].hands[1]
    views = [view(g, 0) for g in games]
    assert views[0] == views[1] and len(views[0].moves) > 1
    samples = [Worlds(v, random.Random(3)).sample().state_key() for v in views]
    assert samples[0] == samples[1]
    choices = [SearchPlayer(iterations=150, seed=11).choose(v) for v in views]
    assert choices[0] == choices[1]


def test_cards_picked_up_are_in_the_takers_hand_in_every_world() -> None:
    g = position(["6s 7s 9d", "8c Jd Qd"], "Kc Kd Ks Kh Ah As 9c")
    g.apply(0, parse_move("l6s"))
    g.apply(1, parse_move("x"))  # seat 0 has no six to add: the bout ends, seat 1 picks up 6♠
    taker_known = mask_of(cards("6s"))
    assert g.known[1] & taker_known == taker_known
    worlds = Worlds(view(g, 0), random.Random(1))
    for _ in range(20):
        assert worlds.sample().hands[1] & taker_known == taker_known


@given(tables(), st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_every_computer_player_makes_only_legal_moves(table: tuple[Options, int], seed: int) -> None:
    options, players = table
    rng = random.Random(seed)
    bots: list[Player] = [
        RandomPlayer(rng),
        GreedyPlayer(),
        HeuristicPlayer(),
        SearchPlayer(iterations=8, seed=seed, solver_nodes=300),
        PimcPlayer(rounds=2, seed=seed, solver_nodes=300),
        SearchPlayer(
            iterations=8, seed=seed, solver_nodes=300, averages=0.1, talon_worlds=1, endgame_value=True
        ),
    ]
    g = Game.deal(options, players, rng=rng)
    for step in range(MAX_STEPS):  # the players may cycle once the talon is empty: see the policy test
        if g.over:
            break
        seat = rng.choice(g.to_act())
        v = view(g, seat)
        asked = bots if step % 4 == 0 else bots[:3]  # the searching players every fourth step: slower
        choices = [bot.choose(v) for bot in asked]
        assert all(move in v.moves for move in choices)
        g.apply(seat, choices[0] if step % 4 == 0 else choices[step % 3])


@given(tables(), st.integers(0, 2**32 - 1))
def test_the_playout_policy_only_makes_legal_moves(table: tuple[Options, int], seed: int) -> None:
    options, players = table
    rng = random.Random(seed)
    g = Game.deal(options, players, rng=rng)
    # The policy alone is deterministic and may take cards back and forth for ever once the talon is empty
    # (about one game in 20,000); playouts break such cycles with their random moves.
    for _ in range(MAX_STEPS):
        if g.over:
            break
        seat = rng.choice(g.to_act())
        moves = g.legal_moves(seat)
        move = policy_move(g, seat, moves)
        assert move in moves
        g.push(seat, move)


def test_the_playouts_random_share_is_what_the_search_asks_for() -> None:
    """A playout's share of random moves 0: it is the policy's game, move for move; 1: every move at random,
    which ends other games. The search's ``playout_random`` is passed on to its playouts."""
    differed = 0
    unused = random.Random(0).random  # heads-up one seat is on the clock: turn() draws no seat
    for seed in range(20):
        g = Game.deal(Options(), 2, rng=random.Random(seed))
        quiet, wild, policy = g.copy(), g.copy(), g.copy()
        playout(quiet, random.Random(seed).random, 0.0)
        playout(wild, random.Random(seed).random, 1.0)
        while policy.result is None:
            seat, moves = policy.turn(unused)
            policy.push(seat, policy_move(policy, seat, moves))
        assert (quiet.hands, quiet.discard, quiet.result) == (policy.hands, policy.discard, policy.result)
        differed += (wild.hands, wild.discard) != (policy.hands, policy.discard)
    assert differed > 10
    seen = view(a_coverable_attack(), 1)
    visits = []
    for share in (0.0, 1.0):
        player = SearchPlayer(iterations=500, seed=3, playout_random=share)
        root, _ = player._search(Worlds(seen, random.Random(3)), list(seen.moves), 0.0, True)
        visits.append(sorted((m, c.visits) for m, c in root.children.items()))
    assert visits[0] != visits[1]


def test_move_averages_learn_which_moves_won_and_draw_the_exploratory_moves_by_them() -> None:
    """``Averages``: each (seat, move) an iteration played scores its seat's reward; exploratory moves are
    then drawn by a Gibbs distribution over those averages: sharply at a low temperature, almost evenly at a
    high one, and a move never played first (it counts as a sure win until it has been tried)."""
    win, loss, fresh = parse_move("l6s"), parse_move("l7s"), parse_move("l8s")
    for temperature, lo, hi in ((0.1, 0.95, 1.0), (100.0, 0.4, 0.6)):
        averages = Averages(temperature)
        for _ in range(30):
            averages.note(0, win)
            averages.credit([1.0, 0.0])
            averages.note(0, loss)
            averages.note(1, loss)  # the same move by seat 1, which won these iterations
            averages.credit([0.0, 1.0])
        assert averages.played == []
        rng = random.Random(5)
        picks = [averages.choose(0, [win, loss], rng.random) for _ in range(2000)]
        assert lo <= picks.count(win) / len(picks) <= hi
        untried = [averages.choose(0, [loss, fresh], rng.random) for _ in range(2000)]
        assert lo <= untried.count(fresh) / len(untried) <= hi
    # Per seat: played 30 times each, seat 0's ``loss`` never won, seat 1's always (rewards in 1/1024 above bit 32).
    assert averages.scores[loss << 3] == 30 and averages.scores[1 | loss << 3] == 30 + (30 * 1024 << 32)
    # An endgame's value is a fraction of a win: it counts as one.
    judged = Averages(0.05)
    for _ in range(30):
        judged.note(0, win)
        judged.credit([0.75, 0.25])
        judged.note(0, loss)
        judged.credit([0.25, 0.75])
    rng = random.Random(5)
    assert [judged.choose(0, [win, loss], rng.random) for _ in range(1000)].count(win) > 990


def test_a_playout_with_move_averages_notes_every_move_it_plays() -> None:
    """The notes of a playout replay it move for move; the search with averages explores otherwise than
    uniformly, and only its exploratory moves change (at a share of 0 it is the policy's game)."""
    for seed in range(10):
        g = Game.deal(Options(), 2, rng=random.Random(seed))
        averages = Averages(0.1)
        played = g.copy()
        playout(played, random.Random(seed).random, 0.5, averages)
        replay = g.copy()
        for key in averages.played:
            replay.push(key & 7, key >> 3)
        assert (replay.hands, replay.discard, replay.result) == (played.hands, played.discard, played.result)
        quiet, policy = g.copy(), g.copy()
        playout(quiet, random.Random(seed).random, 0.0, Averages(0.1))
        playout(policy, random.Random(seed).random, 0.0)
        assert (quiet.hands, quiet.discard, quiet.result) == (policy.hands, policy.discard, policy.result)
    seen = view(a_coverable_attack(), 1)
    visits = []
    for averages_at in (None, 0.1):
        player = SearchPlayer(iterations=500, seed=3, playout_random=0.5, averages=averages_at)
        root, _ = player._search(Worlds(seen, random.Random(3)), list(seen.moves), 0.0, True)
        visits.append(sorted((m, c.visits) for m, c in root.children.items()))
    assert visits[0] != visits[1]


class TooBig(Exception):
    pass


def brute_force(
    g: Game, me: int, budget: list[int], line: frozenset[tuple[object, ...]] = frozenset()
) -> float:
    """Plain minimax: no table, no pruning; a position repeating on the line is a draw. ``budget`` is a
    one-item node counter: past it, the position is too big to check this way."""
    if g.result is not None:
        return rewards(g.result, g.players)[me]
    key = position_key(g)
    if key in line:
        return DRAW
    budget[0] -= 1
    if budget[0] < 0:
        raise TooBig
    seat = g.to_act()[0]
    values = []
    for move in g.legal_moves(seat):
        child = g.copy()
        child.push(seat, move)
        values.append(brute_force(child, me, budget, line | {key}))
    return max(values) if g.team(seat) == g.team(me) else min(values)


def small_endgame(rng: random.Random, options: Options) -> Game:
    deck = list(cards_of(DECK_MASK[options.deck]))
    rng.shuffle(deck)
    a = rng.randint(1, 3)
    b = rng.randint(1, 5 - a)  # brute force over cycles grows fast: five cards in hands at most
    talon = deck[a + b : a + b + rng.choice([0, 0, 1])]
    return Game.setup(
        options,
        [deck[:a], deck[a : a + b]],
        talon,
        trump_suit=None if talon else rng.randrange(4),
        lead=rng.randrange(2),
        bout=rng.randrange(2),
    )


@pytest.mark.parametrize(
    "options",
    [
        Options(),
        Options(variant=Variant.TRANSFER, show_trump_transfer=True),
        Options(draw=False, attack_cap="defender_hand"),
        Options(deck=24),
    ],
    ids=["throw_in", "transfer", "no_draw_until_collapse", "24_cards"],
)
def test_the_endgame_solver_agrees_with_brute_force(options: Options) -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 120:
        g = small_endgame(rng, options)
        h = g.copy()
        for _ in range(rng.randint(0, 3)):  # some positions a few moves in, mid-bout
            if h.over:
                break
            seat = h.to_act()[0]
            h.push(seat, rng.choice(h.legal_moves(seat)))
        if h.over:
            continue
        seat = h.to_act()[0]
        moves = h.legal_moves(seat)
        try:
            exact = {m: brute_force(pushed(h, seat, m), seat, [20_000]) for m in moves}
            other = brute_force(h.copy(), 1 - seat, [20_000])
        except TooBig:
            continue
        assert Solver(seat).values(h, moves) == exact
        assert Solver(1 - seat).value(h.copy()) == other
        checked += 1


def test_with_few_unseen_cards_in_the_talon_every_world_is_dealt_once_and_solved_on_average() -> None:
    """``Worlds.every``: heads-up, with one or two unseen cards above the face-up trump, every way of placing
    the unseen cards, the real one among them, each once, equally likely; ``Endgame.likely`` plays the moves
    whose exact values, averaged over those worlds, are best (checked against brute force)."""
    rng = random.Random(8)
    checked = 0
    while checked < 60:
        deck = list(cards_of(DECK_MASK[36]))
        rng.shuffle(deck)
        a, b, t = rng.randint(1, 3), rng.randint(1, 3), rng.randint(2, 3)
        g = Game.setup(Options(), [deck[:a], deck[a : a + b]], deck[a + b : a + b + t], lead=rng.randrange(2))
        seat = g.to_act()[0]
        seen = view(g, seat)
        moves = list(seen.moves)
        worlds = Worlds(seen, random.Random(1))
        assert worlds.every(t - 2) is None
        dealt = worlds.every(2)
        assert dealt is not None
        unseen = hidden(g, seat).bit_count()
        assert len(dealt) == (unseen if t == 2 else unseen * (unseen - 1))
        places = {(tuple(w.hands), tuple(w.talon)) for w, _ in dealt}
        assert len(places) == len(dealt) and (tuple(g.hands), tuple(g.talon)) in places
        assert all(w.hands[seat] == g.hands[seat] and w.talon[0] == g.talon[0] for w, _ in dealt)
        assert sum(weight for _, weight in dealt) == pytest.approx(1.0)
        assert max(w for _, w in dealt) == pytest.approx(min(w for _, w in dealt))
        try:
            exact = {
                m: sum(weight * brute_force(pushed(w, seat, m), seat, [20_000]) for w, weight in dealt)
                for m in moves
            }
        except TooBig:
            continue
        best = Endgame(SOLVER_NODES, time.thread_time).likely(worlds, moves, None, 2)
        assert best is not None
        assert set(best) == {m for m in moves if exact[m] >= max(exact.values()) - 1e-9}
        checked += 1


def test_a_doubted_card_is_likelier_in_the_talon_and_more_places_are_not_dealt_out() -> None:
    g = position(["6s 7s 9d", "8c Jd Qd"], "Ac Kc Qc", trump="c")  # Qc face up: seat 0 cannot place Ac, Kc
    seen = view(g, 0)
    dealt = Worlds(seen, random.Random(1), {1: {cards("Jd")[0]: 0.5}}).every(2)
    assert dealt is not None
    weights = {(w.talon[1], w.talon[2]): weight for w, weight in dealt}
    jack, queen, ace = cards("Jd Qd Ac")
    assert weights[(jack, ace)] == pytest.approx(
        2 * weights[(queen, ace)]
    )  # Jd in the talon: not in the hand
    three = position(["6s 7s", "8c Jd", "9c Td"], "Ac Kc", trump="c")
    assert Worlds(view(three, 0), random.Random(1)).every(2) is None


def test_the_search_solves_over_every_world_only_when_asked_and_only_for_so_many_talon_cards() -> None:
    one = position(["6s 7s 9d Jh", "8c Jd Qd Th"], "Ac Kc", trump="c")  # Kc face up, Ac unseen by both
    two = position(["6s 7s 9d Jh", "8c Jd Qd Th"], "Qc Ac Kc", trump="c")
    for g, worlds, solved in ((one, 0, False), (one, 1, True), (two, 1, False), (two, 2, True)):
        player = SearchPlayer(iterations=50, seed=1, talon_worlds=worlds)
        player.choose(view(g, 0))
        assert (player.remembered() > 0) is solved  # the solver's table holds the worlds' positions


def pushed(g: Game, seat: int, move: int) -> Game:
    child = g.copy()
    child.push(seat, move)
    return child


def test_the_solver_gives_up_beyond_its_node_budget() -> None:
    g = Game.deal(Options(deck=24), 2, rng=random.Random(1))
    with pytest.raises(OutOfBudget):
        Solver(0, limit=50).value(g)


def test_the_search_player_finds_the_only_winning_lead_exactly() -> None:
    """Leading 6♠ (alone or with 6♣) lets the defender cover both and go out; leading the trump ace makes
    it take (the ace stays with it), and then both sixes go out covered: seat 0 is out, seat 1 the durak."""
    g = position(["6s 6c Ah", "7s 8c"], trump="h")
    player = SearchPlayer(iterations=50, seed=1)
    move = player.choose(view(g, 0))
    assert move == parse_move("lAh")
    assert player.last is not None and player.last.how == "solved"
    g.apply(0, move)
    g.apply(1, parse_move("x"))
    assert g.lead == 0  # after a take, the taker is skipped


def test_search_is_deterministic_under_a_seed() -> None:
    g = Game.deal(Options(), 3, rng=random.Random(9))
    v = view(g, g.to_act()[0])
    first, second = SearchPlayer(iterations=300, seed=4), SearchPlayer(iterations=300, seed=4)
    assert first.choose(v) == second.choose(v)
    assert first.last is not None and second.last is not None
    assert first.last.iterations == second.last.iterations == 300


def play(options: Options, players: list[Player], seed: int) -> Result:
    g = Game.deal(options, len(players), rng=random.Random(seed))
    while g.result is None:
        seat = g.to_act()[0]
        g.apply(seat, players[seat].choose(view(g, seat)))
    return g.result


def test_search_with_a_small_budget_rarely_loses_to_random_play() -> None:
    lost = 0
    for game in range(12):
        me = game % 2
        seats: list[Player] = [RandomPlayer(random.Random(game)), RandomPlayer(random.Random(game))]
        seats[me] = SearchPlayer(iterations=120, seed=game, solver_nodes=3000)
        lost += play(Options(), seats, seed=game // 2).durak == me
    assert lost <= 1


def test_team_rewards_go_to_the_whole_team() -> None:
    result = Result(
        places=(1, 5, 1, 5),
        durak=None,
        losers=(1,),
        draw=False,
        drawn=(),
        pogony=False,
        losing_team=1,
        bouts=9,
    )
    assert rewards(result, 4) == [1.0, 0.0, 1.0, 0.0]


def test_levels() -> None:
    assert isinstance(player_for(BotLevel.EASY), HeuristicPlayer)
    normal, hard = player_for(BotLevel.NORMAL), player_for(BotLevel.HARD)
    assert isinstance(normal, SearchPlayer) and isinstance(hard, SearchPlayer)
    assert normal.budget < hard.budget
    assert normal._endgame.nodes < hard._endgame.nodes, "hard solves the endgames normal gives up on"
    assert normal.reading is None and hard.reading is not None, "hard reads the opponents' play"
    assert hard.reading.tells, "leads and covers too"
    assert normal.endgame_value and hard.endgame_value, "both judge heads-up endgames (engine.ai.value)"


def test_easy_bots_do_not_take_cards_back_and_forth_for_ever() -> None:
    def ends(seats: list[Player]) -> bool:
        g = position(
            ["4s 4c 4d 4h 7s 7h 9c 9h Th Kh", "", "8d Ks As", "2d 3d 5s 5c 5d 5h Qs Qc Qh", "", ""],
            trump="d",
            deck=52,
            variant="transfer",
        )
        for _ in range(MAX_STEPS):
            if g.over:
                return True
            seat = g.to_act()[0]
            g.apply(seat, seats[seat].choose(view(g, seat)))
        return False

    # Three heuristic players repeat one cycle of bouts here for ever; easy bots slip out of it.
    assert not ends([HeuristicPlayer()] * 6)
    assert all(ends([player_for(BotLevel.EASY, seed=seed * 6 + s) for s in range(6)]) for seed in range(10))


def test_the_public_view_cannot_be_searched() -> None:
    g = Game.deal(Options(), 2, rng=random.Random(1))
    with pytest.raises(ValueError):
        Knowledge.of(view(g))


def a_coverable_attack() -> Game:
    """Seat 1 defends against 9♦ and may cover it with J♦ or Q♦, or take; 12 cards are left to draw."""
    g = position(["6s 7s 9d 6h 7h 8h", "8c Jd Qd 7d 9h Th"], "6c 7c 8s 9s Ts Js Qs Ks As Ac Kc Qc", trump="c")
    g.apply(0, parse_move("l9d"))
    return g


def stats(seat: int, visits_and_means: dict[str, tuple[int, float]]) -> Node:
    """A search root with children of the given visits and mean results."""
    root = Node(seat)
    for text, (visits, mean) in visits_and_means.items():
        child = root.children[seat | parse_move(text) << SEAT_BITS] = Node(seat)
        child.visits, child.total = visits, visits * mean
    return root


def test_a_near_tie_is_never_settled_by_taking() -> None:
    """Within a standard error (about 0.03 here) a cover is preferred to the take; a take that is clearly
    better is still made."""
    g = a_coverable_attack()
    seen = view(g, 1)
    player = SearchPlayer(iterations=1, seed=1)
    moves = list(seen.moves)
    assert player._pick(
        stats(1, {"x": (600, 0.52), "c9dJd": (300, 0.50), "c9dQd": (100, 0.40)}), seen, moves
    ) == (parse_move("c9dJd"))
    assert player._pick(
        stats(1, {"x": (900, 0.70), "c9dJd": (80, 0.50), "c9dQd": (20, 0.40)}), seen, moves
    ) == (parse_move("x"))


def test_a_near_tie_goes_to_the_careful_players_move() -> None:
    g = a_coverable_attack()
    seen = view(g, 1)
    careful = HeuristicPlayer().choose(seen)
    other = next(m for m in seen.moves if m not in (careful, parse_move("x")))
    root = Node(1)
    for move, visits, mean in ((other, 500, 0.51), (careful, 450, 0.50)):
        child = root.children[1 | move << SEAT_BITS] = Node(1)
        child.visits, child.total = visits, visits * mean
    assert SearchPlayer(iterations=1)._pick(root, seen, list(seen.moves)) == careful


def test_with_the_policy_for_the_others_the_tree_holds_only_the_seats_own_decisions() -> None:
    """Open loop (tables of three or more, or ``opponents=False``): the other seats move by the policy, so no
    edge of the tree can learn the seat's hand; heads-up, by default, both seats' decisions are in it."""
    g = a_coverable_attack()
    seen = view(g, 1)
    for tree in (False, True):
        player = SearchPlayer(iterations=400, seed=3)
        root, _ = player._search(Worlds(seen, random.Random(3)), list(seen.moves), 0.0, tree)
        nodes, depth, seats = [root], 0, set()
        while nodes:
            seats |= {n.seat for n in nodes}
            nodes = [c for n in nodes for c in n.children.values()]
            depth += 1
        assert depth > 2  # the tree did grow past the first decision
        assert seats == ({0, 1} if tree else {1})


def test_a_walk_takes_the_other_seats_decisions_into_the_tree_only_as_deep_as_asked() -> None:
    """``opponent_depth``: at most that many of the other seat's decisions on any path of the tree (the later
    ones move by the policy), while the seat's own decisions go on growing below them; by default all."""
    seen = view(a_coverable_attack(), 1)

    def deepest(node: Node) -> tuple[int, int]:
        """The most decisions of seat 0, and of seat 1, on one path down from ``node``."""
        below = [deepest(c) for c in node.children.values()] or [(0, 0)]
        theirs, mine = max(b[0] for b in below), max(b[1] for b in below)
        return theirs + (node.seat == 0), mine + (node.seat == 1)

    for limit in (1, 2, None):
        player = SearchPlayer(iterations=3000, seed=3, opponent_depth=limit)
        root, _ = player._search(Worlds(seen, random.Random(3)), list(seen.moves), 0.0, True)
        theirs, mine = deepest(root)
        assert theirs == limit if limit is not None else theirs > 2
        assert mine - 1 > theirs if limit is not None else mine > 2  # the root counts as one of the seat's


def test_the_exploration_constant_spreads_the_visits_over_the_moves() -> None:
    """UCB1's constant decides how much of the budget goes to moves that look worse: with none, the
    iterations pile onto the move that looks best; with a large one, they spread almost evenly."""
    seen = view(a_coverable_attack(), 1)
    moves = list(seen.moves)
    share = {}
    for c in (0.0, 5.0):
        player = SearchPlayer(iterations=3000, seed=3, exploration=c)
        root, _ = player._search(Worlds(seen, random.Random(3)), moves, 0.0, True)
        visits = sorted(root.children[1 | m << SEAT_BITS].visits for m in moves)
        share[c] = visits[-1] / sum(visits)
    assert len(moves) > 2 and share[5.0] < 0.6 < share[0.0]


def test_the_opponents_exploration_constant_is_their_own() -> None:
    """``opponent_exploration`` spreads the other seat's visits (its edges learn this seat's hand less
    sharply) and leaves this seat's constant as it was."""
    seen = view(a_coverable_attack(), 1)
    moves = list(seen.moves)
    share = {}
    for c in (0.0, 5.0):
        player = SearchPlayer(iterations=3000, seed=3, opponent_exploration=c)
        assert player.exploration == 0.7
        root, _ = player._search(Worlds(seen, random.Random(3)), moves, 0.0, True)
        top = max(root.children.values(), key=lambda n: n.visits)
        replies = sorted(n.visits for n in top.children.values() if n.seat == 0)
        assert len(replies) > 2
        share[c] = replies[-1] / sum(replies)
    assert share[5.0] < 0.6 < share[0.0]


def test_the_pimc_player_solves_endgames_too() -> None:
    """The position of the search player's exact test: the only winning lead is the trump ace."""
    g = position(["6s 6c Ah", "7s 8c"], trump="h")
    assert PimcPlayer(rounds=5, seed=1).choose(view(g, 0)) == parse_move("lAh")


def test_the_pimc_player_plays_out_every_move_in_each_world() -> None:
    """With the talon not empty there is no exact answer: covering keeps the defender in the game, taking
    the nine with nothing to gain loses more playouts, so a cover is chosen."""
    g = a_coverable_attack()
    assert PimcPlayer(rounds=200, seed=2).choose(view(g, 1)) != parse_move("x")


def test_kept_players_make_room_when_their_endgames_add_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker keeps each seat's player between moves, but not past its budget of remembered positions:
    the least recently used go first, the one that just moved stays."""
    from engine.ai import levels

    monkeypatch.setattr(levels, "_kept", type(levels._kept)())
    g = position(["6s 6c Ah", "7s 8c"], trump="h")  # an endgame: the solver remembers positions
    seen = view(g, 0)
    levels.decide(seen, BotLevel.NORMAL, 0.01, who=("a", 1, 0))
    levels.decide(seen, BotLevel.NORMAL, 0.01, who=("b", 1, 0))
    assert len(levels._kept) == 2
    monkeypatch.setattr(levels, "KEPT_POSITIONS", 0)
    levels.decide(seen, BotLevel.NORMAL, 0.01, who=("c", 1, 0))
    assert list(levels._kept) == [(("c", 1, 0), BotLevel.NORMAL, 0.01)]


def test_a_walk_gives_way_when_the_other_seats_would_pass_cards_round_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a table of four, leading both sixes takes seat 0 out. If the other three then each take the card
    the one before leads, the game never ends; a 6-player benchmark game once hung on a search whose walk
    waited for seat 0 to act again. Its walks now give way to a playout (with the policy's random moves)."""
    from engine.ai import search

    calls = 0

    def round_for_ever(game: Game, seat: int, moves: list[int]) -> int:
        nonlocal calls
        calls += 1
        if calls > 100_000:
            raise AssertionError("a walk is waiting for ever")
        if TAKE in moves:
            return TAKE
        if PASS in moves:
            return PASS
        return lead_of(1 << lowest(game.hands[seat]))

    monkeypatch.setattr(search, "policy_move", round_for_ever)
    g = position(["6s 6c", "7h 8h 9h", "7d 8d 9d", "7c 8c 9c"], trump="h")
    v = view(g, 0)
    assert len(v.moves) == 3  # 6♠, 6♣, or both
    player = SearchPlayer(iterations=60, seed=1)
    assert player.choose(v) in v.moves
    assert player.last is not None and player.last.iterations == 60


def test_with_the_opponents_in_its_tree_the_search_still_plays_legal_whole_games() -> None:
    """``opponents=True`` (heads-up by default; bench/players.py ``normal-tree`` at every table size): every
    seat's decisions in the tree; the walk then never steps with the policy, and a game is still played
    out legally to its end."""
    for seed in range(3):
        game = Game.deal(Options(draw=False, first_bout_five=False), 2, rng=random.Random(seed))
        players: list[Player] = [SearchPlayer(iterations=120, seed=seed, opponents=True), GreedyPlayer()]
        while game.result is None:
            seat = game.to_act()[0]
            game.apply(seat, players[seat].choose(view(game, seat)))


def test_normal_solves_a_team_endgame_it_can_see_whole_rather_than_losing_its_side_the_game() -> None:
    """A 2x2 endgame of 16 cards every card of which the bot could place (bench/partners.py found it): the
    solver needs 148,156 positions, within normal's 150,000. With a quarter of a second it ran out and the
    search led three aces, which loses the side the game; a nine or a ten wins it (docs/ai.md)."""
    saved = json.loads((Path(__file__).parent / "partner_endgame.json").read_text())
    game = snapshot.loads(saved["position"])
    seen = view(game, saved["seat"])
    assert Knowledge.of(seen).determined and saved["values"][saved["played"]] == 0.0
    for seed in range(1):
        player = player_for(BotLevel.NORMAL, seed=seed)
        move = move_str(player.choose(seen))
        assert saved["values"][move] == 1.0, move
