"""Hostile input (issue 13 items 1 and 4, issue 16 items 1 and 4): every file, however
built, ends in an answer or in one line naming the file, exit 2 -- quickly, and
without allocating what the file claims.

Each hostile case runs ``futocp show FILE`` in-process with a ceiling on the
Python memory it may allocate (:mod:`tracemalloc`): a guard must trip before
anything of the claimed size exists. Hypothesis then mutates the bytes of the
shipped instances and builds structured garbage for every reader (the
strategies of ``benchmarks/fuzz.py``, whose longer run is in
``docs/reliability.md``): only a :class:`~futocp.errors.FutocpError` may escape,
and it names the file.
"""

from __future__ import annotations

import io
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import fuzz
from futocp import formats
from futocp.cli import main
from futocp.errors import FutocpError, InputError
from futocp.families import futoshiki, jigsaw, latin_square, sudoku
from futocp.formats.limits import MAX_FILE_BYTES, decode_text, excerpt

MEMORY_CEILING = 200 * 2**20  # Python allocations one hostile case may make
BIG = "9" * 5000

JIGSAW_GIVENS = ".2........1......39.......5.8...9......3.16......7....1...6......72............7."
JIGSAW_REGIONS = "AAABBCCCCAAABBBCCCAADBBBBCCADDEFFFFFGDDEEEFFFGDHHHEEEFGDDHHHEIIGGDHHHEIIGGGGIIIII"
LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n"
    for i in range(9)) + "kind: futoshiki\nsize: *j\n"

# (file name, content, what the message says or None when a library words it, (line, column)
# or None when not applicable)
HOSTILE: list[tuple[str, str | bytes, str | None, tuple[int, int] | None]] = [
    # sizes and counts, checked before anything is allocated
    ("cells.json", '{"kind": "board", "cells": 1000000000, "labels": [1], "asterisms": []}',
     "cells are more than futocp holds", (1, 28)),
    ("cells18.json", '{"kind": "board", "cells": 1000000000000000000, "labels": [1], '
     '"asterisms": [], "clues": [[5, 1]]}', "cells are more than futocp holds", (1, 28)),
    ("size.json", '{"kind": "futoshiki", "size": 1000000000}', "larger than futocp holds", (1, 31)),
    ("size.yaml", "kind: sudoku\nsize: 100000\n", "larger than futocp holds", (2, 7)),
    ("order.tatham", "30000:", "the order 30000 is larger than futocp holds", (1, 1)),
    ("order6.tatham", "1000000:", "the order 1000000 is larger", (1, 1)),
    ("order.pls", "order 100000\n", "the order 100000 is larger", (1, 7)),
    ("n.dzn", "N = 100000;\nstart = [| 0 |];\n", "N 100000 is larger", (1, 5)),
    ("header.txt", "futoshiki 100000\n. .\n", "size 100000 is larger", (1, 11)),
    ("box.txt", "sudoku box=1000x1000\n. .\n", "larger than futocp holds", (1, 1)),
    ("many.tatham", "2:0,0,0,0,\n" * 100_001, "more than 100,000 instances", (100_001, 1)),
    ("many.sudoku", "." * 16 + "\n" + "." * 16 + "\n" * 2 + ("." * 16 + "\n") * 100_000,
     "more than 100,000 instances", (100_002, 1)),
    ("row.pls", "order 3\n" + "0 " * 100_000 + "\n", "row has more than 3 values", (2, 7)),
    ("row.dzn", "start = [|" + " 0," * 5000 + " |];\nN = 2;\n", "row has more than 1000 values",
     (1, 3012)),
    # nesting and integers
    ("laughs.yaml", LAUGHS, "aliases are not allowed here (*a)", (2, 8)),
    ("deep.json", "[" * 100_000 + "]" * 100_000, "nesting deeper than 100 levels", (1, 101)),
    ("deep-key.json", '{"kind": "board", "cells": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "nesting deeper than 100 levels", (1, 127)),
    # PyYAML >= 6.0.4 refuses deep flow nesting in its scanner, before futocp's own walk sees
    # depth 101: whose wording answers is the library's business; the behaviour is checked
    ("deep.yaml", "[" * 50_000 + "]" * 50_000, None, None),
    ("deep150.yaml", "[" * 150 + "]" * 150, "nesting deeper than 100 levels", (1, 101)),
    ("deep-block.yaml", "kind: board\ncells:\n" + "".join(" " * i + "- \n" for i in range(150)),
     "nesting deeper than 100 levels", None),
    ("int.json", '{"kind": "futoshiki", "size": 2, "givens": [[' + BIG + ', 0], [0, 0]]}',
     "an integer of 5000 digits (at most 30)", (1, 46)),
    ("label.json", '{"kind": "board", "cells": 1, "labels": [' + BIG + '], "asterisms": [[0]]}',
     "an integer of 5000 digits", (1, 42)),
    ("int.yaml", f"kind: futoshiki\nsize: {BIG}\n", "an integer of 5000 digits", (2, 7)),
    ("hex.yaml", "kind: futoshiki\nsize: 0x" + "f" * 100 + "\n", "an integer of 101 digits", (2, 7)),
    ("int.txt", f"futoshiki 2\n{BIG} .\n. .\n", "an integer of 5000 digits", (2, 1)),
    ("header-int.txt", f"futoshiki {BIG}\n. .\n", "an integer of 5000 digits", (1, 11)),
    ("int.tatham", f"2:{BIG},0,0,0,", "an integer of 5000 digits", (1, 3)),
    ("order-int.tatham", f"{BIG}:", "an integer of 5000 digits", (1, 1)),
    ("int.pls", f"order 2\n{BIG} -1\n-1 -1\n", "an integer of 5000 digits", (2, 1)),
    ("int.dzn", f"N = 2;\nstart = [| {BIG}, 0 | 0, 0 |];\n", "an integer of 5000 digits", (2, 12)),
    ("box-int.yaml", f"kind: sudoku\nbox: '{BIG}x2'\n", "box: an integer of 5000 digits", (2, 6)),
    # found by benchmarks/fuzz.py on the code before these fixes (tracebacks)
    ("top95.txt", "4" + "9" * 5000 + "." * 80 + "\n" + "." * 81 + "\n",
     "an integer of 5001 digits", (1, 1)),
    ("qwh.dzn", "N = 2;\nstart = [| 0, 0 |\n0, 1" + "0" * 15000 + " |];\n",
     "an integer of 15001 digits", (3, 4)),
    ("family.txt", "sudoku box=2x2\n83\u2460 . . .\n. . . .\n. . . .\n. . . .\n",
     "'83\u2460' is not a label of this board", (2, 1)),
    ("lines.sudoku", "\u2460" + "1" * 15 + "\n", "'\u2460' is not a label of a 4x4 puzzle", (1, 1)),
    # labels are integers or strings
    ("given-list.json", '{"kind": "futoshiki", "size": 2, "givens": [[[1], 0], [0, 0]]}',
     "given [1] at (0,0) is not a label", (1, 46)),
    ("given-dict.yaml", "kind: futoshiki\nsize: 2\ngivens: [[{a: 1}, 0], [0, 0]]\n",
     "given {'a': 1} at (0,0) is not a label", (3, 11)),
    ("sudoku-list.json", '{"kind": "sudoku", "box": "2x2", "givens": [[[1], 0, 0, 0], '
     '[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}', "given [1] at (0,0) is not a label", (1, 46)),
    ("clue-dict.json", '{"kind": "board", "cells": 2, "labels": [1, 2], "asterisms": [[0, 1]], '
     '"clues": [[0, {"a": 1}]]}', "clue label {'a': 1} is not in labels", (1, 86)),
    ("labels-list.json", '{"kind": "board", "cells": 2, "labels": [[1], 2], '
     '"asterisms": [[0, 1]]}', "label [1] must be an integer or a string", (1, 42)),
    # ASCII digits only
    ("circled.txt", "futoshiki 2\n\u2460 .\n. .\n", "unexpected '\u2460'", (2, 1)),
    ("circled-bare.txt", "\u2460 .\n. .\n", "unexpected '\u2460'", (1, 1)),
    ("arabic.txt", "\u0663 . .\n. . .\n. . .\n", "unexpected '\u0663'", (1, 1)),
    ("arabic.pls", "order 2\n\u0660 -1\n-1 -1\n", "'\u0660' is not an integer", (2, 1)),
    ("circled.tatham", "2:\u2460,0,0,0,", "found '\u2460'", (1, 3)),
    ("circled.sudoku", "\u2460" + "." * 15 + "\n", "'\u2460' is not a label", (1, 1)),
    ("kelvin.sudoku", "\u212a" + "." * 15 + "\n", "'\u212a' is not a label", (1, 1)),
    # a line whose puzzle is empty (all of it a comment after ':'), found by fuzzing
    ("empty-token.sudoku", ":000000000000000\n", "the line has 0 characters", (1, 1)),
    ("circled.jigsaw", "\u2460" + "." * 15 + " AABBAABBCCDDCCDD\n", "'\u2460' is not a label", (1, 1)),
    ("box.yaml", "kind: sudoku\nbox: \u2460x\u2460\n", "box: '\u2460' is not a digit 0-9", (2, 6)),
    ("box-circled.txt", "sudoku box=\u2460x2\n. .\n", "box: '\u2460' is not a digit", (1, 8)),
    ("multiset.sudoku", "#! kind=sudoku-ripeto multiset=\u2460\u2460\u2461\u2461\n" + "." * 16
     + "\n", "multiset:", (1, 23)),
    # encodings
    ("latin1.txt", b"futoshiki 2\n. .\n. \xe9\n", "not a UTF-8 text file (byte 0xe9", (3, 3)),
    ("latin1.json", b'{"kind": "futoshiki", "size": 2, "name": "\xe9"}', "not a UTF-8 text file",
     (1, 43)),
    ("nul.txt", b"\x00\x00\x00", "unexpected '\\x00'", (1, 1)),
    ("huge.pls", "order 2\n" + " " * (MAX_FILE_BYTES + 1), "larger than 16 MiB", None),
    # messages quote excerpts
    ("long.yaml", 'kind: futoshiki\nsize: 2\ngivens: [["' + "x" * 100_000 + '", 0], [0, 0]]\n',
     "...' (100000 characters)", (3, 11)),
    ("long-kind.json", '{"kind": "' + "y" * 100_000 + '"}', "(100000 characters)", (1, 10)),
    ("long-family.sudoku", "#! kind=" + "k" * 100_000 + "\n" + "." * 16 + "\n", "unknown family",
     (1, 9)),
    # what YAML and JSON may not hold
    ("tag.yaml", "kind: futoshiki\nsize: 2\nname: !!python/object:os.system {}\n",
     "is not allowed here", (3, 7)),
    ("timestamp.yaml", "kind: futoshiki\nsize: 2\nname: !!timestamp '9999999-01-01'\n",
     "is not allowed here", (3, 7)),
    ("twice.json", '{"kind": "futoshiki", "size": 2, "size": 3}', "the key 'size' appears twice",
     (1, 34)),
    ("twice.yaml", "kind: futoshiki\nsize: 2\nsize: 3\n", "the key 'size' appears twice", (3, 1)),
    # wrong acceptance: regions of the wrong size, cycles of inequalities (an error everywhere)
    ("regions.jigsaw", f"{JIGSAW_GIVENS}\nB{JIGSAW_REGIONS[1:]}\n",
     "region 'B' has 10 cells, expected 9", (2, 25)),
    ("regions.json", '{"kind": "jigsaw", "regions": [["A","A","A","A"],["A","B","B","B"],'
     '["C","C","D","D"],["C","C","D","D"]]}', "region 'A' has 5 cells, expected 4", (1, 31)),
    ("regions.yaml", "kind: jigsaw\nregions: AAAAABBBCCCCDDDD\n", "region 'A' has 5 cells", (2, 10)),
    ("regions.txt", "jigsaw\n. . A A\n. . A A\n", "region 'A' has 4 cells, expected 2", (1, 1)),
    ("regions.sudoku", "#! kind=jigsaw regions=AAABBBCCD/AAABBBCCD/AAABBBCCD/DDDEEEFFF/DDDEEEFFF/"
     "DDDEEEFFF/GGGHHHIII/GGGHHHIII/GGGHHHIII\n" + "." * 81 + "\n",
     "region 'C' has 6 cells, expected 9", (2, 1)),
    ("cycle.txt", "futoshiki 2\n. < .\nv   ^\n. > .\n", "the inequalities form a cycle", (2, 3)),
    ("cycle-bare.txt", ". < .\nv   ^\n. > .\n", "the inequalities form a cycle", (1, 3)),
    ("cycle.tatham", "2:0R,0D,0U,0L,\n", "the inequalities form a cycle", (1, 10)),
    ("cycle.json", '{"kind": "futoshiki", "size": 2, "less": [[[0,0],[0,1]], [[0,1],[1,1]], '
     '[[1,1],[1,0]], [[1,0],[0,0]]]}', "the inequalities form a cycle", (1, 43)),
    ("cycle.yaml", "kind: futoshiki\nsize: 2\nless:\n- [[0, 0], [0, 1]]\n- [[0, 1], [1, 1]]\n"
     "- [[1, 1], [1, 0]]\n- [[1, 0], [0, 0]]\n", "the inequalities form a cycle", (4, 3)),
    # an extension names the format: no silent read in another one
    ("missing.jigsaw", JIGSAW_GIVENS + "\n", "the regions are missing", (1, 82)),
    ("garbled.sudoku", "1\n", "a Sudoku line has n*n", (1, 2)),
    ("text.sudoku", "futoshiki 2\n. .\n. .\n", "'f' is not a label of a 3x3 puzzle", (1, 1)),
    ("json.tatham", '{"kind": "futoshiki", "size": 2}', "bad parameters", (1, 1)),
    ("tatham.json", "2:0,0,0,0,\n", "invalid JSON", (1, 2)),
    ("empty.json", "", "invalid JSON", (1, 1)),
    ("unknown.puz", "no format at all", "cannot tell the format", None),
]


@pytest.fixture
def memory_ceiling() -> Iterator[None]:
    """Fail a test whose Python allocations peak above MEMORY_CEILING."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_CEILING, f"peak {peak / 2**20:.0f} MB"


def _write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def _refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err[:2000]
    return lines[0]


@pytest.mark.parametrize("name, content, message, where", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_file_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            memory_ceiling: None, name: str,
                                            content: str | bytes, message: str | None,
                                            where: tuple[int, int] | None) -> None:
    path = _write(tmp_path, name, content)
    line = _refusal(capsys, ["show", path])
    prefix = f"futocp: error: {path}:" + ("" if where is None else f"{where[0]}:{where[1]}:")
    assert line.startswith(prefix), line[:300]
    assert message is None or message in line, line[:300]
    assert len(line) < 600, line[:300]  # excerpts, never whole values


@pytest.mark.parametrize("command", [["convert", "--to", "json"], ["check"], ["solve"],
                                     ["count"]])
@pytest.mark.parametrize("name", ["order.tatham", "laughs.yaml", "deep.yaml", "int.json",
                                  "given-list.json", "circled.txt", "cycle.txt", "missing.jigsaw"])
def test_every_command_refuses_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     command: list[str], name: str) -> None:
    _, content, message, _ = next(c for c in HOSTILE if c[0] == name)
    path = _write(tmp_path, name, content)
    line = _refusal(capsys, command + [path])
    assert line.startswith(f"futocp: error: {path}:"), line[:300]
    assert message is None or message in line, line[:300]


# ------------------------------------------------------------------ byte-order mark, detection
def _samples() -> list[tuple[str, formats.Board]]:
    n4 = futoshiki(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0]],
                   less=[((0, 1), (0, 2))])
    box = sudoku("2x2", [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])
    jig = jigsaw(4, ["AABB", "AABB", "CCDD", "CCDD"], [[1, 0, 0, 0], [0, 0, 0, 0],
                                                      [0, 0, 0, 0], [0, 0, 0, 0]])
    square = latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 2]])
    return [("json", n4), ("yaml", n4), ("text", n4), ("text", box), ("tatham", n4),
            ("pls", square), ("dzn", square), ("sudoku", box), ("jigsaw", jig)]


@pytest.mark.parametrize("fmt, board", _samples(), ids=[f"{f}-{b.kind}" for f, b in _samples()])
def test_byte_order_mark_is_accepted_by_every_reader(tmp_path: Path, fmt: str,
                                                     board: formats.Board) -> None:
    text = formats.dumps(board, fmt)
    path = tmp_path / ("p" + formats.FORMATS[fmt].extensions[0])
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert formats.read(str(path)) == board
    assert formats.loads("\ufeff" + text, fmt) == board
    assert formats.loads("\ufeff" + text) == board  # and by content


def test_standard_input_is_read_by_content(monkeypatch: pytest.MonkeyPatch) -> None:
    board = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    data = b"\xef\xbb\xbf" + formats.dumps(board, "tatham").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert formats.read("-") == board
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"futoshiki 2\n. \xe9\n")))
    with pytest.raises(InputError, match=r"^<stdin>:2:3: not a UTF-8 text file"):
        formats.read("-")


def test_read_text_is_the_one_reader_of_files_and_standard_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # what the command line reads besides puzzles (a solver's answer, a player's
    # entries) comes through formats.read_text too: the same errors, the same limits
    path = tmp_path / "answer.txt"
    path.write_bytes(b"\xef\xbb\xbfv 1 -2 0\n")
    assert formats.read_text(path) == "v 1 -2 0\n"
    with pytest.raises(InputError, match=r"answer.txt: the file is larger than"):
        formats.read_text(path, max_bytes=4)
    assert formats.read_text(path, max_bytes=None) == "v 1 -2 0\n"
    with pytest.raises(InputError, match=r"missing.txt: no such file"):
        formats.read_text(tmp_path / "missing.txt")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ufeff2:0,0,0,0,\n"))  # text, no bytes below
    assert formats.read_text("-") == "2:0,0,0,0,\n"
    monkeypatch.setattr(sys, "stdin", None)  # e.g. started with stdin closed
    with pytest.raises(InputError, match=r"^<stdin>: there is no standard input"):
        formats.read_text("-")
    assert main(["solve", "-"]) == 2
    assert capsys.readouterr().err == "futocp: error: <stdin>: there is no standard input to read\n"


def test_extension_names_the_format_and_txt_is_sniffed(tmp_path: Path) -> None:
    lines = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"
    txt = tmp_path / "top.txt"
    txt.write_text(lines * 2)
    assert [b.kind for b in formats.read_many(str(txt))] == ["sudoku", "sudoku"]  # content
    assert formats.detect(str(txt), "futoshiki 2\n. .\n. .\n") == "text"
    assert formats.detect(str(txt), "2:0,0,0,0,\n") == "tatham"
    assert formats.detect(str(tmp_path / "x.puz"), '{"kind": "futoshiki", "size": 2}') == "json"
    for name, fmt in [("a.jigsaw", "jigsaw"), ("a.sudoku", "sudoku"), ("a.SDK", "sudoku"),
                      ("a.yml", "yaml"), ("a.fut", "text"), ("a.unequal", "tatham")]:
        assert formats.detect(name, "anything: 1\n{") == fmt  # the content is not looked at
    sdk = tmp_path / "lines.sudoku"
    sdk.write_text("futoshiki 2\n. .\n. .\n")
    with pytest.raises(InputError, match=r"lines\.sudoku:1:1: 'f' is not a label"):
        formats.read(str(sdk))


def test_error_excerpts_stay_short() -> None:
    assert excerpt("x" * 10**6).endswith("...' (1000000 characters)")
    assert len(excerpt([[list(range(10**5))]] * 10)) < 60
    assert excerpt(10**5000) == "an integer of about 5000 digits"


# ------------------------------------------------------------------ refusals name the file
def test_size_refusals_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.json"
    formats.write(latin_square(200), str(path))
    line = _refusal(capsys, ["solve", str(path), "--backend", "listcolor"])
    assert line.startswith(f"futocp: error: {path}: backend 'listcolor' refuses a model"), line


# ------------------------------------------------------------------ Hypothesis
FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


def _only_named_errors(case: fuzz.Case) -> None:
    try:
        fuzz.read_case(case.name, case.data)
    except FutocpError as exc:
        assert str(exc).startswith(case.name + ":") or str(exc).startswith(case.name + " "), \
            f"{case.kind}: {str(exc)[:300]}"


@FAST
@given(case=fuzz.cases(max_bytes=8192))
def test_fuzzed_files_end_in_a_board_or_a_named_error(case: fuzz.Case) -> None:
    _only_named_errors(case)


@FAST
@given(data=st.data(), fmt=st.sampled_from(sorted(formats.FORMATS)))
def test_structured_garbage_for_every_reader(data: st.DataObject, fmt: str) -> None:
    content = data.draw(fuzz.garbage(fmt))
    name = "garbage" + formats.FORMATS[fmt].extensions[0]
    _only_named_errors(fuzz.Case(f"garbage:{fmt}", name, content))
    try:  # the same text forced through every other reader
        other = data.draw(st.sampled_from(sorted(formats.FORMATS)))
        formats.loads_many(decode_text(content, name), other, name)
    except FutocpError as exc:
        assert str(exc).startswith(name), str(exc)[:300]
