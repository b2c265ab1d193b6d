"""Tatham's Keen, Towers and Solo: the formats, the generic decomposition of n-ary
relations, and the backends on his ids.

His ids are in ``tests/data/tatham-ids.tsv`` (as his generators print them); the
generators of Debian's ``sgt-puzzles``, when installed, make fresh ones. Every
published puzzle has exactly one solution: each backend must find exactly one
(``limit=2``, exhausted), checked by verify().
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from futocp import formats
from futocp.backends import REGISTRY, get_backend
from futocp.cli import main
from futocp.errors import UnsupportedError
from futocp.families import family
from futocp.model import build_model
from futocp.relations import MAX_TUPLES, RELATIONS, Relation, TableTooLarge, visible_count
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import keen_board, towers_board
from .strategies import backend_params

DATA = Path(__file__).parent / "data" / "tatham-ids.tsv"
IDS = [tuple(line.rstrip("\n").split("\t")) for line in DATA.read_text().splitlines()
       if line and not line.startswith("#")]
GAMES = ("keen", "towers", "solo")


def ids_of(game: str) -> list[str]:
    return [i for g, _, i in IDS if g == game]


# ------------------------------------------------------------------ the formats
@pytest.mark.parametrize("game", GAMES)
def test_every_sample_id_round_trips(game, tmp_path):
    ids = ids_of(game)
    assert len(ids) >= 40
    for game_id in ids:
        assert formats.dumps(formats.loads(game_id, game), game) == game_id + "\n"
    # a collection file, its format from its extension; and the JSON form of each board
    path = tmp_path / f"all.{game}"
    path.write_text("# a comment\n\n" + "\n".join(ids) + "\n")
    boards = formats.read_many(path)
    assert [formats.dumps(b, game).rstrip("\n") for b in boards] == ids
    for board in boards[::5]:
        assert formats.loads(formats.dumps(board, "json"), "json") == board


@pytest.mark.parametrize("game", GAMES)
def test_full_parameters_round_trip(game):
    """The generator's parameters before the colon (``6dh:``, ``3x3kdi:``) read and
    write back exactly, kept as the board's grade / difficulty."""
    for g, spec, game_id in IDS:
        if g != game:
            continue
        full = spec + game_id[game_id.index(":"):]
        board = formats.loads(full, game)
        assert formats.dumps(board, game) == full + "\n"
        key = "difficulty" if game == "solo" else "grade"
        assert board.param_map[key] == spec[spec.index("d") + 1]


def test_solo_modes_map_onto_the_families():
    kinds = {spec: formats.loads(game_id, "solo").kind for g, spec, game_id in IDS if g == "solo"}
    assert kinds["3x3kdi"] == "killer-sudoku" and kinds["3x3xda"] == "sudoku-x"
    assert kinds["9jde"] == "jigsaw" and kinds["2x3de"] == "sudoku"
    box = formats.loads(next(i for g, s, i in IDS if s == "2x3de"), "solo").param_map["box"]
    assert box == (2, 3)  # Tatham's CxR: boxes of C rows and R columns


def test_puzzle_text_finds_its_format(capsys):
    for game in GAMES:
        game_id = ids_of(game)[-1]
        assert formats.detect(None, game_id) == game
        assert main(["solve", "--puzzle", game_id, "--to", "json", "--quiet"]) == 0
        solved = formats.loads(capsys.readouterr().out, "json")
        assert len(solved.clues) == solved.n_cells and verify(solved, [
            solved.clue_map[c] for c in range(solved.n_cells)]) == []
    assert main(["solve", "--puzzle", ids_of("keen")[0], "--format", "keen"]) == 0
    assert main(["solve", "--puzzle", ids_of("towers")[0], "--to", "towers", "-q"]) == 0
    assert "," in capsys.readouterr().out  # the solved board, every cell a given


@pytest.mark.parametrize(("game", "text", "column", "message"), [
    ("keen", "4:__a_a__a_ac__a_a,d2a6s1d2m48m2x2", 33, "expected a clue"),
    ("keen", "4:__a_a__a_ac__a_a,d2a6s1d2m48m2", 33, "too few clues: 6 for 7 cages"),
    ("keen", "4:__a_a__a_ac__a_a,d2a6s1d2m48m2s2a1", 35, "too many clues"),
    ("keen", "4:__a_a__a_ac__a_a,d2s6s1d2m48m2s2", 22, "two cells; this one has 3"),
    ("keen", "4:__a_a__a_ac_,d2", 15, "not enough data in the block structure"),
    ("keen", "4dq:__a_a__a_ac__a_a,d2a6s1d2m48m2s2", 3, "unknown difficulty 'q'"),
    ("keen", "4#12345", 2, "random-seed"),
    ("towers", "4:/3//2/2////2///////5,j1e", 22, "clue 5 out of range 1..4"),
    ("towers", "4:/3//2/2////2///////3/,j1e", 23, "too many clues"),
    ("towers", "4:/3//2/2////2///////3,j1e1", 27, "too many cells"),
    ("towers", "4:/3//2/2////2///////3,j7e", 25, "a number 7 out of range 1..4"),
    ("solo", "3x3q:a", 4, "unexpected 'q'"),
    ("solo", "2x2:b3_1h2_1", 13, "not enough cells: 14 of 16"),
    ("solo", "4j:p," + "_" * 25, 6, "a 4x4 jigsaw has 4 regions of 4 cells"),
    ("solo", "2x2k:p,abbba____________,3_7n", 28, "has 2 sums"),
])
def test_a_garbled_id_is_one_line_naming_the_column(game, text, column, message, capsys):
    assert main(["solve", "--puzzle", text, "--format", game]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"<puzzle>:1:{column}: " in err and message in err, err


def test_writers_refuse_what_the_games_cannot_hold():
    keen = formats.loads(ids_of("keen")[0], "keen")
    with pytest.raises(Exception, match="no givens"):
        formats.dumps(keen.with_clues({0: keen.values[0]}), "keen")
    partial = keen.__class__(keen.n_cells, keen.asterisms, keen.labels, shape=keen.shape,
                             kind="keen", params=keen.params, relations=keen.relations[1:])
    with pytest.raises(Exception, match="is in none"):
        formats.dumps(partial, "keen")
    with pytest.raises(Exception, match="holds keen boards"):
        formats.dumps(formats.loads(ids_of("towers")[0], "towers"), "keen")


# ------------------------------------------------------------------ the decomposition
def test_allowed_tuples_and_diagrams_agree():
    arith = RELATIONS["arith"]
    lists = [range(1, 7)] * 3
    for op, target in (("+", 9), ("*", 24), ("+", 17)):
        params = {"op": op, "target": target}
        brute = [t for t in itertools.product(*lists) if arith.holds(t, params)]
        assert list(arith.allowed_tuples(lists, params)) == brute  # lexicographic order
        assert arith.diagram(lists, params).count() == len(brute)
        apart = [(0, 1)]  # a row: the first two cells differ
        assert arith.allowed_tuples(lists, params, distinct=apart) == tuple(
            t for t in brute if t[0] != t[1])
    visible = RELATIONS["visible"]
    for count in range(1, 6):  # the automaton's diagram, checked against the predicate
        lists5 = [range(1, 6)] * 5
        brute5 = sum(1 for t in itertools.product(*lists5) if visible_count(t) == count)
        assert visible.diagram(lists5, {"count": count}).count() == brute5
        perms = visible.allowed_tuples(lists5, {"count": count},
                                       distinct=list(itertools.combinations(range(5), 2)))
        assert len(perms) == (24, 50, 35, 10, 1)[count - 1]  # Stirling numbers of the first kind


def test_the_size_guard_refuses_naming_the_relation():
    board = family("towers", n=9, relations=[("visible", [(0, c) for c in range(9)],
                                              {"count": 3})])
    model = build_model(board, "none")
    with pytest.raises(TableTooLarge, match=r"relation visible\(\(0,0\).*more than 1,000 allowed"):
        model.allowed_tuples(model.nary[0], limit=1000)
    diagram = model.diagram(model.nary[0])  # the automaton's: small, and exactly the rows
    assert diagram.n_arcs < 3000 and diagram.count() == 118124  # permutations with 3 seen
    assert issubclass(TableTooLarge, UnsupportedError) and MAX_TUPLES == 100_000


def test_the_model_filtering_propagates_the_diagrams():
    board = family("keen", n=3, relations=[
        ("arith", [(0, 0)], {"op": "+", "target": 2}),
        ("arith", [(0, 1), (0, 2)], {"op": "/", "target": 3}),
        ("arith", [(1, 0), (1, 1), (2, 0), (2, 1)], {"op": "*", "target": 18}),
        ("arith", [(1, 2), (2, 2)], {"op": "-", "target": 1})])
    model = build_model(board)
    assert model.domain(0) == [1]  # the cage of one cell fixes it
    assert model.domain(1) == model.domain(2) == [0, 2]  # 3 / 1 either way, (0,0) is 2
    assert model.conflict is None
    wrong = family("keen", n=3, relations=[("arith", [(0, 0), (0, 1)], {"op": "*", "target": 7})])
    assert "no labels of its cells satisfy the relation arith" in build_model(wrong, "none").conflict


def test_a_relation_of_the_wrong_shape_is_refused():
    with pytest.raises(Exception, match="two cells"):
        family("keen", n=3, relations=[("arith", [(0, 0), (0, 1), (0, 2)], {"op": "-", "target": 1})])
    with pytest.raises(Exception, match="op must be one of"):
        family("keen", n=3, relations=[("arith", [(0, 0), (0, 1)], {"op": "%", "target": 1})])
    with pytest.raises(Exception, match="whole row or column"):
        family("towers", n=3, relations=[("visible", [(0, 0), (1, 1), (2, 2)], {"count": 1})])
    with pytest.raises(Exception, match="visible count on a line of 3 cells"):
        family("towers", n=3, relations=[("visible", [(0, 0), (0, 1), (0, 2)], {"count": 4})])
    assert Relation("visible", (2, 1, 0), (("count", 1),)).cells == (2, 1, 0)  # not sorted


# ------------------------------------------------------------------ every backend on his ids
SAMPLE = {  # game:spec -> one id of each mode and a range of sizes
    key: next(i for g, s, i in IDS if f"{g}:{s}" == key)
    for key in ("keen:4dx", "keen:6dh", "keen:9dx", "towers:5du", "towers:6dx", "towers:8du",
                "solo:2x3de", "solo:3x3du", "solo:3x3kdi", "solo:3x3xda", "solo:9jde")}
# the seed searches and python-constraint are for small boards
SMALL = ("keen:4dx", "keen:6dh", "towers:5du", "solo:2x3de", "solo:3x3xda")
MAIN = ("cpsat", "sat", "listcolor", "minizinc", "auto", "pyconstraint")


@pytest.mark.parametrize("name", [p for p in backend_params(complete_only=True)
                                  if p.values[0] in MAIN])
@pytest.mark.parametrize("key", sorted(SAMPLE))
def test_every_backend_finds_the_one_solution(name, key):
    if name == "pyconstraint" and key not in SMALL:
        pytest.skip("pyconstraint is for small boards")
    game = key.split(":")[0]
    board = formats.loads(SAMPLE[key], game)
    result = get_backend(name).solve(build_model(board), limit=2, time_limit=60)
    assert result.status is Status.SAT and result.n_solutions == 1 and result.exhausted
    assert verify(board, result.solutions[0]) == []
    assert formats.format_solution(board, result.solutions[0], game).startswith("S")


def test_time_limit_on_a_large_towers():
    board = family("towers", n=9, relations=[("visible", [(r, c) for c in range(9)], {"count": 3})
                                             for r in range(1, 4)])
    for name in ("cpsat", "sat", "listcolor"):
        if REGISTRY[name].available() is not True:
            continue
        result = get_backend(name).solve(build_model(board), limit=None, time_limit=0.5)
        assert not result.exhausted and result.status in (Status.SAT, Status.UNKNOWN)
        assert all(verify(board, s) == [] for s in result.solutions[:50])


GENERATORS = {"keen": ("sgt-keen", ["5dh", "4de"]), "towers": ("sgt-towers", ["5dh", "4du"]),
              "solo": ("sgt-solo", ["2x2", "2x3k", "6jx", "6jk", "2x3xdb"])}


@pytest.mark.parametrize("game", GAMES)
def test_fresh_ids_from_his_generators(game):
    program, specs = GENERATORS[game]
    path = shutil.which(program) or shutil.which(f"/usr/games/{program}")
    if path is None:
        pytest.skip(f"{program} is not installed (Debian package sgt-puzzles)")
    for spec in specs:
        out = subprocess.run([path, "--generate", "2", spec], capture_output=True, text=True,
                             timeout=120, check=True).stdout.split()
        for game_id in out:
            board = formats.loads(game_id, game)
            assert formats.dumps(board, game) == game_id + "\n"
            result = get_backend("cpsat").solve(build_model(board), limit=2, time_limit=60)
            assert result.n_solutions == 1 and result.exhausted, game_id
            assert verify(board, result.solutions[0]) == []


ENCODINGS = [("cpsat", {"nary": n, "formulation": f}) for n in ("generic", "specialised")
             for f in ("integer", "boolean")]
ENCODINGS += [("sat", {"nary": n}) for n in ("generic", "specialised")]
ENCODINGS += [("minizinc", {"nary": n}) for n in ("generic", "expression")]


@pytest.mark.parametrize(("name", "options"), ENCODINGS,
                         ids=[f"{n}-{'-'.join(o.values())}" for n, o in ENCODINGS])
def test_every_encoding_of_the_new_kinds_counts_like_the_oracle(name, options):
    """Each solution once (CP-SAT enumerated one solution 1,024 times through the
    internal variables of ``add_automaton``), as many as the oracle counts."""
    if REGISTRY[name].available() is not True:
        pytest.skip(f"{name} is not available")
    for board in (keen_board(5, 3), towers_board(5, 6, 10, 2), towers_board(4, 2, 6, 1)):
        result = get_backend(name).solve(build_model(board), limit=None, time_limit=60,
                                          **options)
        assert result.exhausted and len(set(result.solutions)) == result.n_solutions
        assert result.n_solutions == brute_force_count(board)
        assert all(verify(board, s) == [] for s in result.solutions)


@pytest.mark.parametrize(("spec", "symmetry", "difficulty"),
                         [("2x2adt", "a", "t"), ("2x2r4dt", "r4", "t"), ("2x2md2db", "md2", "b"),
                          ("2x2m4", "m4", None), ("2x2md4", "md4", None)])
def test_solo_symmetry_before_the_difficulty(spec, symmetry, difficulty):
    """Tatham writes a symmetry before d<letter>: 2x2adt is none, then trivial."""
    full = spec + ":a2c3d2c4a"
    board = formats.loads(full, "solo")
    assert (board.param_map["symmetry"], board.param_map.get("difficulty")) == (symmetry,
                                                                                 difficulty)
    assert formats.dumps(board, "solo") == full + "\n"
