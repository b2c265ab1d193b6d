"""Issue 21: the quick-start study is small, and its incomplete backends end at their
own budget or solution, never at the time limit (the old one took 80 s of it)."""

from __future__ import annotations

from pathlib import Path

from futocp.backends import REGISTRY, get_backend
from futocp.experiments.config import load_config
from futocp.experiments.runner import plan
from futocp.model import build_model
from futocp.verify import verify

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "experiments" / "quickstart.yaml"


def test_quickstart_is_a_small_study_of_every_kind_of_backend():
    cfg = load_config(QUICKSTART)
    runs = plan(cfg)
    assert 50 <= len(runs) <= 120  # seconds, not minutes (the old one planned 432)
    names = {v.name for v in cfg.backends}
    assert {"cpsat", "sat", "listcolor", "anneal", "genetic"} <= names
    assert any(not REGISTRY[n].complete for n in names) and cfg.limit == 2
    text = QUICKSTART.read_text(encoding="utf-8")
    assert "runs in seconds" in text and "98 runs" in text


def test_quickstart_incomplete_variants_end_before_the_time_limit():
    cfg = load_config(QUICKSTART)
    sixes = [i for i in cfg.instances if i.board.n_cells == 36]
    assert sixes
    for variant in cfg.backends:
        if REGISTRY[variant.name].complete:
            continue
        for k, inst in enumerate(sixes):
            result = get_backend(variant.name).solve(
                build_model(inst.board), limit=cfg.limit, time_limit=cfg.time_limit, seed=k,
                **dict(variant.options))
            assert result.stats["stopped"] in ("found", "move budget", "generation budget",
                                               "no solution"), (variant.label, inst.name)
            assert all(not verify(inst.board, s) for s in result.solutions)
