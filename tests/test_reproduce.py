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
    combine_verdicts,
    compare_range,
    compare_value,
    get_reproduction,
    load_config,
    paper_table,
    quartiles,
)
from futocp.reproduce.markdown import markdown_section, markdown_table
from futocp.reproduce.seed000 import compare_table1, compare_table2
from futocp.reproduce.seed004 import compare_parallel

ROW_KEYS = ["key", "paper", "ours", "verdict", "note"]
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
    assert compare_value(100, 95, 0.05) == "agrees"
    assert compare_value(100, 94, 0.05) == "differs"
    assert compare_value(100, math.inf, 0.05) == "not comparable"
    assert compare_value("NRN", 3, 0.05) == "not comparable"
    assert compare_range(10, 8, 9, 0.25) == "agrees"
    assert compare_range(12, 8, 9, 0.25) == "differs"
    assert compare_range(12, math.inf, math.inf) == "not comparable"
    assert combine_verdicts(["agrees", "not comparable"]) == "agrees"
    assert combine_verdicts(["agrees", "differs"]) == "differs"
    assert combine_verdicts(["not comparable"]) == "not comparable"
    with pytest.raises(UsageError):
        Row({}, {}, {}, "maybe")
    assert list(Row({"n": 1}, {}, {"x": float("inf")}, "agrees").to_json()) == ROW_KEYS
    assert Row({"n": 1}, {}, {"x": float("inf")}, "agrees").to_json()["ours"]["x"] is None


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
    assert len(quick["instances"]) < len(full["instances"])
    assert quick["time_limit"] < full["time_limit"]
    assert os.path.isabs(full["output"]) and full["output"] != quick["output"]


# ------------------------------------------------------------------ compare logic
def _runs(n: int, k: int, g: int, label: str, nodes: list[float], removed: int,
          solved: bool = True, ms: float = 1.0) -> list[dict[str, object]]:
    return [{"instance_hash": f"{n}-{k}-{g}-{i}", "label": label, "size": n, "inequalities": k,
             "givens": g, "solved": solved, "status": "sat" if solved else "unknown",
             "explored_nodes": en, "removed_values": removed, "solve_s": ms / 1000,
             "time_limit": 2.0} for i, en in enumerate(nodes)]


def test_table2_row_agrees_differs_and_anomaly() -> None:
    df = pd.DataFrame(_runs(9, 9, 70, "CF", [81, 81, 83], 647)
                      + _runs(9, 9, 70, "BT", [405, 405, 405], 0)
                      + _runs(15, 150, 15, "CF", [5e5] * 3, 660, solved=False)
                      + _runs(15, 150, 15, "BT", [6e5] * 3, 0, solved=False)
                      + _runs(6, 6, 20, "CF", [40, 41, 42], 100)
                      + _runs(6, 6, 20, "BT", [126, 126, 130], 0))
    rows = {r.key["row"]: r for r in compare_table2(df, quick=True)}
    assert set(rows) == {2, 20, 30}
    assert rows[20].verdict == "agrees", rows[20].note
    assert rows[2].verdict == "differs" and "FC-RN differs" in rows[2].note
    assert rows[30].verdict == "differs" and "corrupt" in rows[30].note  # spec 1.8.1
    assert rows[30].ours["cf_timeouts"] == 3 and math.isinf(rows[30].ours["fc_en"]["median"])
    assert all(r.ours["checks_failed"] == 0 for r in rows.values())


def test_table1_ratio_and_timeouts() -> None:
    df = pd.DataFrame(_runs(9, 9, 70, "CF", [81] * 4, 647, ms=0.5)
                      + _runs(9, 9, 70, "BT", [405] * 4, 0, ms=0.9)
                      + _runs(8, 50, 8, "CF", [1e6] * 4, 170, solved=False)
                      + _runs(8, 50, 8, "BT", [1e6] * 4, 0, solved=False))
    rows = {r.key["row"]: r for r in compare_table1(df, quick=True)}
    assert rows[20].ours["bt_cf"]["median"] == pytest.approx(1.8)
    assert rows[20].verdict == "agrees"  # the paper's 0.84 / 0.46 = 1.83
    assert rows[18].verdict == "not comparable" and "4/4 instances" in rows[18].note


def test_acceptance_check_counts_a_violation() -> None:
    # FC explores more than BT on an instance: impossible with the same static order
    df = pd.DataFrame(_runs(9, 9, 70, "CF", [500], 647) + _runs(9, 9, 70, "BT", [405], 0))
    assert compare_table2(df, quick=True)[0].ours["checks_failed"] == 1


def test_parallel_speedup_per_instance() -> None:
    rows_ = []
    for i, (seq, par) in enumerate([(100, 50), (80, 40), (60, 20)]):
        for label, ms in (("sequential", seq), ("parallel-2", par)):
            rows_.append({"instance_hash": f"h{i}", "label": label, "size": 15, "solved": True,
                          "solve_s": ms / 1000, "explored_nodes": 1000, "worker_nodes": [5, 5]})
    out = compare_parallel(pd.DataFrame(rows_), quick=True)
    assert [r.key for r in out] == [{"n": 15}]
    assert out[0].ours["speedup"]["median"] == 2.0
    assert out[0].paper["speedup"] == 5.34 and out[0].verdict == "differs"


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


def test_cli_bad_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "seed-004-paralel"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "did you mean 'seed-004-parallel'" in err


def _quick_json(name: str, output: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["reproduce", name, "--quick", "--json", "--output", output]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # exactly one JSON object
    assert list(doc) == ["name", "rows"] and doc["name"] == name
    return doc


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_QUICK
                                  else n for n in REPRODUCTIONS])
def test_every_reproduction_quick(name: str, tmp_path: object,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    doc = _quick_json(name, str(tmp_path), capsys)
    assert doc["rows"], "a quick run compares at least one row"
    for row in doc["rows"]:
        assert list(row) == ROW_KEYS
        assert row["verdict"] in VERDICTS
        assert isinstance(row["key"], dict) and row["key"]
        assert row["ours"] or row["verdict"] == "not comparable"


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
