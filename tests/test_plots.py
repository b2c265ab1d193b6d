"""Issue 12 item 15: integer ticks, legend outside the data, one series per
(backend, family), a single size drawn as points. (tests/test_plots.py)"""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

report = importlib.import_module("futocp.experiments.report")  # the module, not the function


def _runs(families=("futoshiki", "latin-square"), sizes=(5, 6, 7)) -> pd.DataFrame:
    rows = [dict(family=f, size=s, label=lab, solved=True, wall_s=0.01 * (s + k),
                 instance_hash=f"{f}{s}{k}", filtering="lists")
            for f in families for s in sizes for lab in ("cpsat", "listcolor") for k in range(2)]
    return pd.DataFrame(rows)


@pytest.fixture
def figures(monkeypatch):
    made = []
    original = report._figure

    def spy(*args, **kwargs):
        fig, ax = original(*args, **kwargs)
        made.append((fig, ax))
        return fig, ax

    monkeypatch.setattr(report, "_figure", spy)
    return made


def test_time_vs_size_one_series_per_family_integer_ticks_legend_outside(tmp_path, figures):
    report.plot_time_vs_size(_runs(), str(tmp_path / "t.png"))
    fig, ax = figures[-1]
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == sorted(f"{b} ({f})" for b in ("cpsat", "listcolor")
                                    for f in ("futoshiki", "latin-square"))
    assert all(float(t).is_integer() for t in ax.get_xticks())
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # beside the axes, over no data


def test_time_vs_size_with_one_size_draws_points_not_lines(tmp_path, figures):
    report.plot_time_vs_size(_runs(families=("futoshiki",), sizes=(6,)), str(tmp_path / "t.png"))
    fig, ax = figures[-1]
    for line in ax.get_lines():
        assert line.get_linestyle() == "None" or len(set(line.get_xdata())) <= 1  # no joins
    assert all(float(t).is_integer() for t in ax.get_xticks())  # no 5.98, 6.00, 6.02 axis


def test_cactus_counts_are_integers(tmp_path, figures):
    report.plot_cactus(_runs(families=("futoshiki",), sizes=(5,)), str(tmp_path / "c.png"))
    fig, ax = figures[-1]
    assert all(float(t).is_integer() for t in ax.get_yticks())
