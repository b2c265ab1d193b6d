"""futocp reproduce: the framework, the CLI, resumability, and every registered
reproduction run with --quick (so reproductions added later are covered too)."""

from __future__ import annotations

import json
import math
import os

import pandas as pd
import pytest

from futocp.cli import main
from futocp.errors import UsageError
from futocp.reproduce import (
    REPRODUCTIONS,
    VERDICTS,
    Row,
    bootstrap_ci,
    combine_verdicts,
    compare_range,
    compare_sample,
    compare_value,
    get_reproduction,
    load_config,
    paper_table,
    quartiles,
    using_papers,
)
from futocp.reproduce.core import rank_agreement, sanity_row
from futocp.reproduce.markdown import markdown_section, markdown_table
from futocp.reproduce.seed000 import compare_table1, compare_table2, plan_tasks
from futocp.reproduce.seed000_measure import first_completion, measure_instance, seed000_board
from futocp.reproduce.seed004 import compare_parallel

ROW_KEYS = ["key", "paper", "ours", "verdict", "note", "kind"]
#: Reproductions whose --quick run takes longer than the fast suite allows on a
#: loaded 2-core machine (their quick case is marked slow).
SLOW_QUICK: set[str] = set()


# ------------------------------------------------------------------ core
def test_quartiles_treat_inf_as_censored() -> None:
    assert quartiles([1, 2, 3, 4, 5]) == {"median": 3, "q1": 2, "q3": 4, "n": 5}
    q = quartiles([1, 2, math.inf, math.inf])
    assert q["q1"] == 1.75 and math.isinf(q["q3"]) and math.isinf(q["median"])
    assert quartiles([None, float("nan")])["n"] == 0


def test_verdict_helpers() -> None:
    assert VERDICTS == ("agrees", "differs", "not comparable", "paper anomaly")
    assert compare_value(100, 95, 0.05) == "agrees"
    assert compare_value(100, 94, 0.05) == "differs"
    assert compare_value(100, math.inf, 0.05) == "not comparable"
    assert compare_value("NRN", 3, 0.05) == "not comparable"
    assert compare_range(10, 8, 9, 0.25) == "agrees"
    assert compare_range(12, 8, 9, 0.25) == "differs"
    assert compare_range(12, math.inf, math.inf) == "not comparable"
    # a row agrees only when every primary measure agrees
    assert combine_verdicts(["agrees", "agrees"]) == "agrees"
    assert combine_verdicts(["agrees", "not comparable"]) == "not comparable"
    assert combine_verdicts(["agrees", "differs"]) == "differs"
    assert combine_verdicts(["differs", "paper anomaly"]) == "paper anomaly"
    assert combine_verdicts([]) == "not comparable"
    with pytest.raises(UsageError):
        Row({}, {}, {}, "maybe")
    with pytest.raises(UsageError):  # a sanity check is never agreement
        Row({"n": 1}, {}, {}, "agrees", kind="sanity check")
    assert list(Row({"n": 1}, {}, {"x": float("inf")}, "agrees").to_json()) == ROW_KEYS
    assert Row({"n": 1}, {}, {"x": float("inf")}, "agrees").to_json()["ours"]["x"] is None
    row = sanity_row({"n": 1}, {"FC <= BT": (1, 5)})
    assert row.kind == "sanity check" and row.ours["check"] == "fails"


def test_compare_sample_rules() -> None:
    xs = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    lo, hi = bootstrap_ci(xs)
    assert lo < quartiles(xs)["median"] < hi and bootstrap_ci(xs) == (lo, hi)  # seeded
    assert compare_sample(14, xs)[0] == "agrees"
    assert compare_sample(3 * 14, xs)[0] == "differs"
    assert compare_sample(1, xs)[0] == "differs"
    assert compare_sample(14, xs[:2])[0] == "not comparable"  # too few
    assert compare_sample(None, xs)[0] == "not comparable"
    # the paper's own interval: agrees when the two intervals meet
    assert compare_sample(30, xs, paper_interval=(15, 45))[0] == "agrees"
    # runs at a limit: a paper value below the interval differs, an open interval never agrees
    capped = [10, 11, 12, math.inf, math.inf, math.inf, math.inf]
    assert compare_sample(2, capped)[0] == "differs"
    assert compare_sample(50, capped)[0] == "not comparable"
    assert compare_sample(11, capped)[0] == "not comparable"
    verdict, detail = compare_sample(11, [10, 11, 12, 12, 13, math.inf])
    assert detail["censored"] == 1 and verdict in ("agrees", "not comparable")


def test_rank_agreement() -> None:
    paper = [1.0, 1.5, 2.0, 4.0, 7.0, 9.0, 12.0]
    assert rank_agreement(paper, [x * 1.3 for x in paper])[0] == "agrees"
    assert rank_agreement(paper, [1.2] * 7)[0] == "differs"  # a constant has no pattern
    assert rank_agreement(paper, paper[::-1])[0] == "differs"
    assert rank_agreement(paper[:3], paper[:3])[0] == "not comparable"


def test_unknown_name_suggests() -> None:
    with pytest.raises(UsageError, match="did you mean 'seed-000-table1'"):
        get_reproduction("seed-000-tabel1")


def test_paper_tables_transcribed() -> None:
    t1, t2 = paper_table("seed-000-table1.csv"), paper_table("seed-000-table2.csv")
    assert list(t1["row"]) == list(range(1, 55)) == list(t2["row"])
    row30 = t2[t2["row"] == 30].iloc[0]  # the corrupt row, as printed
    assert (row30.fc_en, row30.fc_rn, row30.bt_en) == (674261, 7472, 240)
    assert t1[t1["row"] == 37].iloc[0].cf_ms_mean == 11.0
    speed = paper_table("seed-004-table1-3.csv")
    assert list(speed["n"]) == list(range(9, 19))
    assert speed[speed["n"] == 12].iloc[0].speedup == 0.34


def test_quick_overrides_and_paths() -> None:
    full, quick = load_config("seed-000", False), load_config("seed-000", True)
    assert "quick" not in full and "quick" not in quick
    assert len(quick["rows"]) < len(full["rows"])
    assert quick["node_limit"] < full["node_limit"] and full["repetitions"] >= 10
    assert os.path.isabs(full["output"]) and full["output"] != quick["output"]
    tasks = plan_tasks(quick)
    assert len(tasks) == 5 * 3 * 2 and len({t["run_id"] for t in tasks}) == len(tasks)
    # one instance index draws the same square, pairs and cells for every generator
    seeds: dict[tuple[int, int, int, int], set[int]] = {}
    for t in tasks:
        seeds.setdefault((t["n"], t["K"], t["G"], t["index"]), set()).add(t["seed"])
    assert all(len(v) == 1 for v in seeds.values())


# ------------------------------------------------------------------ seed 000
def test_generators_share_the_draws() -> None:
    from futocp.verify import is_solution

    boards = {g: seed000_board(7, 12, 10, g, seed=5) for g in ("uniform", "btfirst",
                                                                "lexfirst", "cyclic")}
    cells = {g: sorted(c for c, _ in b.clues) for g, (b, _) in boards.items()}
    assert len({tuple(v) for v in cells.values()}) == 1  # the same given cells
    for g, (board, hidden) in boards.items():
        assert is_solution(board, hidden) and len(board.relations) == 12, g
    uniform, btfirst = boards["uniform"], boards["btfirst"]
    assert uniform[0].clues == btfirst[0].clues  # btfirst completes the uniform givens
    assert btfirst[1] == first_completion(7, dict(btfirst[0].clues))
    assert boards["cyclic"][1][:7] == [1, 2, 3, 4, 5, 6, 7]
    assert boards["lexfirst"][1] == first_completion(7, {})


def test_measure_instance_counts_and_node_limit() -> None:
    task = {"n": 9, "K": 9, "G": 70, "generator": "btfirst", "seed": 3, "node_limit": 10 ** 6,
            "repetitions": 3}
    rec = measure_instance(task)
    assert rec["status"] == "ok" and rec["bt_finished"] and rec["cf_finished"]
    assert rec["bt_en"] >= 9 * 9 * 10 / 2 and 81 <= rec["cf_en"] <= rec["bt_en"]
    assert len(rec["cf_cpu_ms"]) == len(rec["bt_cpu_ms"]) == 3 and rec["same_solution"]
    assert rec["hidden_first"] and rec["cf_verified"] and rec["bt_verified"]
    hard = measure_instance({"n": 8, "K": 50, "G": 8, "generator": "uniform", "seed": 1,
                             "node_limit": 3000, "repetitions": 3})
    stopped = [tag for tag in ("cf", "bt") if not hard[f"{tag}_finished"]]
    assert stopped, "a uniform (8, 50, 8) instance explodes under the static order"
    for tag in stopped:  # a stopped search: at least the limit, timed once
        assert 3000 <= hard[f"{tag}_en"] < 3000 + 512 and len(hard[f"{tag}_cpu_ms"]) == 1


def _records(n: int, k: int, g: int, cf_en: list[float], bt_en: list[float], rn: int,
             gen: str = "uniform", cf_ms: float = 1.0, bt_ms: float = 1.0,
             limit: int = 10 ** 6) -> list[dict[str, object]]:
    """Synthetic seed-000 records (what measure_instance answers); inf = stopped."""
    out = []
    for i, (c, b) in enumerate(zip(cf_en, bt_en, strict=True)):
        out.append({"n": n, "K": k, "G": g, "generator": gen, "index": i, "status": "ok",
                    "node_limit": limit, "cf_en": min(c, limit), "bt_en": min(b, limit),
                    "cf_finished": math.isfinite(c), "bt_finished": math.isfinite(b),
                    "cf_rn": rn + i % 3, "cf_cpu_ms": [cf_ms * (1 + 0.01 * j) for j in range(10)],
                    "bt_cpu_ms": [bt_ms * (1 + 0.01 * j) for j in range(10)],
                    "cf_verified": True, "bt_verified": True, "same_solution": True,
                    "hidden_first": True})
    return out


def test_table2_rows_agree_differ_and_anomalies() -> None:
    df = pd.DataFrame(_records(9, 9, 70, [81, 81, 83, 81, 82], [405] * 5, 646)
                      + _records(15, 150, 15, [math.inf] * 3, [math.inf] * 3, 660)
                      + _records(6, 6, 20, [40, 41, 42], [126, 126, 130], 100)
                      + _records(50, 400, 1600, [16000] * 3, [300000] * 3, 120900))
    rows = {r.key["row"]: r for r in compare_table2(df, quick=True) if "row" in r.key}
    assert set(rows) == {2, 20, 30, 52}
    assert rows[20].verdict == "agrees", rows[20].note
    assert rows[2].verdict == "differs" and "FC-RN differs" in rows[2].note
    assert rows[30].verdict == "paper anomaly" and "corrupt" in rows[30].note  # spec 1.8.1
    assert rows[52].verdict == "paper anomaly" and "row 52 is the copy" in rows[52].note
    assert rows[30].ours["CF stopped"] == 3 and math.isinf(rows[30].ours["fc_en"]["median"])
    sanity = [r for r in compare_table2(df, quick=True) if r.kind == "sanity check"]
    assert {r.ours["check"] for r in sanity if "generator" in r.key} == {"holds"}
    paper = next(r for r in sanity if r.key["sanity check"] == "the paper's Table 2")
    assert paper.verdict == "paper anomaly" and "row(s) 12, 30" in paper.note


def test_table2_row_agrees_only_when_every_measure_does() -> None:
    # FC-EN and FC-RN match the paper's row 20, BT-EN stopped at the limit on most: the
    # row is not comparable, not "agrees" on two measures of three
    df = pd.DataFrame(_records(9, 9, 70, [81, 81, 82, 81, 82], [405, math.inf, math.inf,
                                                               math.inf, math.inf], 646))
    row = next(r for r in compare_table2(df, quick=True) if r.key.get("row") == 20)
    assert "FC-EN agrees" in row.note and "BT-EN not comparable" in row.note
    assert row.verdict == "not comparable"


def test_table1_ratio_claims_and_stopped_runs() -> None:
    df = pd.DataFrame(_records(9, 9, 70, [81] * 5, [405] * 5, 647, cf_ms=0.46, bt_ms=0.84)
                      + _records(8, 50, 8, [math.inf] * 4, [math.inf] * 4, 170))
    rows = compare_table1(df, quick=True)
    by_row = {r.key["row"]: r for r in rows if "row" in r.key}
    assert by_row[20].ours["bt_cf"]["median"] == pytest.approx(0.84 / 0.46, abs=1e-3)
    assert by_row[20].verdict == "agrees"  # the paper's 0.84 / 0.46
    assert by_row[20].ours["bt_cf nodes"]["median"] == 5.0
    assert by_row[18].verdict == "not comparable" and by_row[18].ours["CF stopped"] == 4
    claim = next(r for r in rows if r.key.get("claim") == "CF outperforms BT in all instances")
    assert claim.verdict == "agrees" and claim.ours["instances where BT is faster"] == "0/5"
    slow_cf = pd.DataFrame(_records(9, 9, 70, [81] * 5, [405] * 5, 647, cf_ms=2.0, bt_ms=1.0))
    claim = next(r for r in compare_table1(slow_cf, quick=True)
                 if r.key.get("claim") == "CF outperforms BT in all instances")
    assert claim.verdict == "differs" and claim.ours["instances where BT is faster"] == "5/5"


def test_a_constant_fake_ratio_no_longer_agrees() -> None:
    """The issue's check: BT/CF = 1.2 on every instance of every row with n <= 9. Per row
    it agrees only where the paper's own 95 % interval holds 1.2 (no rule can reject
    the paper's own value there); the pattern across rows exposes it."""
    table = paper_table("seed-000-table1.csv")
    recs = []
    for p in table.itertuples():
        if p.n <= 9:
            recs += _records(int(p.n), int(p.K), int(p.G), [100] * 10, [200] * 10, 10,
                             cf_ms=1.0, bt_ms=1.2)
    rows = compare_table1(pd.DataFrame(recs), quick=True)
    per_row = [r for r in rows if "row" in r.key]
    agree = [r.key["row"] for r in per_row if r.verdict == "agrees"]
    holds = [r.key["row"] for r in per_row if r.paper["bt_cf"]["ci"][0] <= 1.2
             <= r.paper["bt_cf"]["ci"][1] and r.verdict != "paper anomaly"]
    assert agree == holds and len(agree) <= len(per_row) // 2  # was 19 of 20 before
    pattern = next(r for r in rows if "pattern" in r.key)
    assert pattern.verdict == "differs"


#: Per paper table, the columns its reproductions compare (the numerator of seed 000's
#: Table 1: the BT/CF ratio is what is compared).
MEASURES = {"seed-000-table1.csv": ["bt_ms_mean", "bt_ms_std"],
            "seed-000-table2.csv": ["fc_en", "fc_rn", "bt_en"],
            "seed-001-ac3.csv": ["revisions"],
            "seed-001-annealing.csv": ["success_rate_pct", "mean_moves"],
            "seed-002-tables.csv": ["gen_mean", "gen_std"],
            "seed-004-table1-3.csv": ["speedup"]}


def times_three(folder: str) -> str:
    """The paper tables with their compared measures multiplied by 3, in ``folder``."""
    import shutil

    from futocp.reproduce import papers_dir

    os.makedirs(folder, exist_ok=True)
    for path in papers_dir().glob("*.csv"):
        if path.name in MEASURES:
            table = pd.read_csv(path)
            for col in MEASURES[path.name]:
                table[col] = table[col] * 3
            table.to_csv(os.path.join(folder, path.name), index=False)
        else:
            shutil.copy(path, folder)
    return folder


def test_papers_folder_is_read(tmp_path: object) -> None:
    from futocp.errors import InputError

    folder = times_three(str(tmp_path))
    with using_papers(folder):
        assert paper_table("seed-000-table2.csv")["fc_en"].iloc[0] == 3 * 528
    assert paper_table("seed-000-table2.csv")["fc_en"].iloc[0] == 528
    with pytest.raises(InputError, match="no such folder"), \
            using_papers(os.path.join(str(tmp_path), "none")):
        pass


def _seed004(n: int, pairs: list[tuple[float, float]], mode: str = "ordered",
             workers: int = 2) -> list[dict[str, object]]:
    return [{"n": n, "index": i, "mode": mode, "workers": workers, "givens": 10, "target": 100,
             "seq_nodes": 100, "status": "ok", "seq_ms": [seq, seq], "par_ms": [par, par],
             "par_nodes": [100, 100], "verified": True} for i, (seq, par) in enumerate(pairs)]


def test_parallel_speedup_per_instance() -> None:
    recs = _seed004(15, [(100, 50), (80, 40), (60, 20), (90, 45)]) \
        + _seed004(10, [(100, 90), (100, 88), (100, 89), (100, 91)])
    out = {r.key["n"]: r for r in compare_parallel(pd.DataFrame(recs, dtype=object), True)
           if "n" in r.key}
    assert out[15].ours["speedup"]["median"] == 2.0
    # the paper's 5.34x needs more processes than our two: not comparable
    assert out[15].paper["speedup"] == 5.34 and out[15].verdict == "not comparable"
    assert out[10].paper["speedup"] == 1.13 and out[10].verdict == "agrees"
    wide = compare_parallel(pd.DataFrame(_seed004(15, [(100, 50)] * 4, workers=8),
                                         dtype=object), True)
    assert wide[0].verdict == "differs"  # 2x with 8 processes is not the paper's 5.34x


def test_no_crossover_from_a_single_size() -> None:
    from futocp.reproduce.seed004 import _crossover

    recs = _seed004(10, [(100, 50)] * 4) + _seed004(11, [(100, 150)] * 4) \
        + _seed004(12, [(100, 40)] * 4)
    rows = [r for r in compare_parallel(pd.DataFrame(recs, dtype=object), True) if "n" in r.key]
    assert _crossover(rows).startswith("no crossover")
    recs += _seed004(13, [(100, 40)] * 4)
    rows = [r for r in compare_parallel(pd.DataFrame(recs, dtype=object), True) if "n" in r.key]
    assert _crossover(rows).startswith("a crossover") and "from 12" in _crossover(rows)


def test_markdown_puts_paper_beside_ours() -> None:
    rows = [Row({"n": 9}, {"x": 1.0}, {"x": {"median": 1.1, "q1": 1, "q3": 1.2, "n": 3},
                                       "extra": 4}, "agrees", "a | b")]
    table = markdown_table(rows)
    assert "| n | paper x | ours x | ours extra | verdict | note |" in table
    assert "1.1 [1, 1.2] n=3" in table and "a \\| b" in table
    text = markdown_section(REPRODUCTIONS["seed-004-parallel"], rows, "futocp reproduce x")
    assert "`futocp reproduce x`" in text and "Machine:" in text and "**Verdict.**" in text


# ------------------------------------------------------------------ CLI
def test_cli_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name in REPRODUCTIONS:
        assert name in out
    assert len(out.strip().splitlines()) == len(REPRODUCTIONS) == 7
    assert "seed-003-procedures" in out


def test_cli_bad_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "seed-004-paralel"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "did you mean 'seed-004-parallel'" in err


@pytest.mark.parametrize("args, message", [
    (["seed-001-search", "--opt", "x=1"], "takes no --opt"),
    (["seed-000-table1", "--opt", "foo=1"], "seed 000 takes generators"),
    (["seed-000-table1", "--papers", "no-such-folder"], "no such folder of paper tables"),
    (["seed-004-parallel", "--opt", "ordered=maybe"], "expected true or false"),
])
def test_cli_refuses_bad_options(args: list[str], message: str, tmp_path: object,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", *args, "--quick", "--output", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def _quick_json(name: str, output: str, capsys: pytest.CaptureFixture[str],
                *extra: str) -> dict:
    assert main(["reproduce", name, "--quick", "--json", "--output", output, *extra]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # exactly one JSON object
    assert list(doc) == ["name", "rows"] and doc["name"] == name
    return doc


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_QUICK
                                  else n for n in REPRODUCTIONS])
def test_every_reproduction_quick(name: str, tmp_path: object,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = os.path.join(str(tmp_path), "runs")
    doc = _quick_json(name, out, capsys)
    assert doc["rows"], "a quick run compares at least one row"
    for row in doc["rows"]:
        assert list(row) == ROW_KEYS
        assert row["verdict"] in VERDICTS
        assert isinstance(row["key"], dict) and row["key"]
        assert row["ours"] or row["verdict"] == "not comparable"
    # the same runs against the papers' measures multiplied by 3 (--papers, nothing is
    # run again): agreement almost vanishes
    # (rows on a qualitative claim of the text, with no number of the paper, left aside)
    papers = times_three(os.path.join(str(tmp_path), "papers"))
    tripled = _quick_json(name, out, capsys, "--papers", papers)
    before = sum(r["verdict"] == "agrees" and _numeric(r["paper"]) for r in doc["rows"])
    after = sum(r["verdict"] == "agrees" and _numeric(r["paper"]) for r in tripled["rows"])
    assert after <= max(1, before // 5), (before, after)
    if name.startswith("seed-000"):  # rows that agree in the quick run, none when tripled
        assert before >= 2 or name == "seed-000-table1"  # (table 1: timings, may not agree)
        assert not [r for r in tripled["rows"] if r["verdict"] == "agrees" and "row" in r["key"]]


def _numeric(value: object) -> bool:
    """Whether a row's paper values hold a number (not only a quoted claim)."""
    if isinstance(value, dict):
        return any(_numeric(v) for v in value.values())
    if isinstance(value, list):
        return any(_numeric(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tiny_config(quick: bool) -> dict[str, object]:
    return {"name": "tiny", "filtering": "none", "time_limit": 5,
            "instances": [{"generate": {"family": "futoshiki", "size": 5, "inequalities": 5,
                                        "givens": 8, "count": 4, "seed": 1}}],
            "backends": [{"name": "colorfutoshiki", "label": "CF"}, {"name": "bt", "label": "BT"}]}


def _tiny_compare(df: pd.DataFrame, quick: bool) -> list[Row]:
    rn = quartiles(df[df["label"] == "CF"]["removed_values"])
    return [Row({"n": 5}, {}, {"fc_rn": rn, "runs": len(df)}, "not comparable")]


def test_resumes_after_a_crash(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import futocp.reproduce as rp

    tiny = rp.Reproduction("tiny-test", "a test", "none", _tiny_config, _tiny_compare)
    monkeypatch.setitem(rp.REPRODUCTIONS, "tiny-test", tiny)
    out = str(tmp_path)
    first = rp.run_reproduction("tiny-test", output=out, progress=False)
    results = os.path.join(out, "results.jsonl")
    with open(results, encoding="utf-8") as fh:
        lines = fh.readlines()
    assert len(lines) == 8 and first[0].ours["runs"] == 8
    # a crash: the last runs lost, the last line torn
    with open(results, "w", encoding="utf-8") as fh:
        fh.writelines(lines[:5])
        fh.write(lines[5][:40])
    with pytest.warns(UserWarning, match="unreadable"):
        again = rp.run_reproduction("tiny-test", output=out, progress=False)
    with open(results, encoding="utf-8") as fh:
        kept = [json.loads(x)["run_id"] for x in fh if x.strip().endswith("}")]
    assert len(kept) == len(set(kept)) == 8  # the lost runs done again, none twice
    assert kept[:5] == [json.loads(x)["run_id"] for x in lines[:5]]  # the rest kept
    assert again[0].ours == first[0].ours  # removed values do not depend on time
    with pytest.warns(UserWarning, match="unreadable"):  # the torn line stays, skipped
        assert rp.collect("tiny-test", output=out)[0].ours == first[0].ours  # compare only
