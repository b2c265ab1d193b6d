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


# ------------------------------------------- issue 21: colours, markers, log error bars
def _every_backend(sizes=(5, 6)) -> pd.DataFrame:
    from futocp.backends import REGISTRY

    rows = [dict(family="futoshiki", size=s, label=name, backend=name, solved=True,
                 wall_s=0.001 * (k + 1) * (i + 1), instance_hash=f"{s}-{k}", filtering="lists")
            for i, name in enumerate(REGISTRY) for s in sizes for k in range(3)]
    return pd.DataFrame(rows)


def _line_styles(ax) -> dict[str, tuple[str, str]]:
    import matplotlib.colors as mcolors

    handles, labels = ax.get_legend_handles_labels()
    out = {}
    for handle, label in zip(handles, labels, strict=True):
        line = handle[0] if isinstance(handle, tuple) else handle  # an errorbar's data line
        line = getattr(line, "lines", [line])[0] if not hasattr(line, "get_color") else line
        out[label] = (mcolors.to_hex(line.get_color()), line.get_marker())
    return out


@pytest.mark.parametrize("plot", ["plot_time_vs_size", "plot_cactus"])
def test_every_backend_has_its_own_colour_and_marker(tmp_path, figures, plot):
    from futocp.backends import REGISTRY

    getattr(report, plot)(_every_backend(), str(tmp_path / "p.png"))
    styles = _line_styles(figures[-1][1])
    assert set(styles) == set(REGISTRY)
    colours = [c for c, _ in styles.values()]
    markers = [m for _, m in styles.values()]
    assert len(set(colours)) == len(REGISTRY) and len(set(markers)) == len(REGISTRY)
    assert styles["cpsat"][0] != styles["auto"][0]  # both blue before issue 21
    assert all(m not in ("", "None", None) for m in markers)


def test_a_backend_keeps_its_style_in_every_plot(tmp_path, figures):
    full = _every_backend()
    report.plot_cactus(full, str(tmp_path / "a.png"))
    everyone = _line_styles(figures[-1][1])
    some = full[full["label"].isin(["genetic", "sat"])]
    report.plot_cactus(some, str(tmp_path / "b.png"))
    assert _line_styles(figures[-1][1]) == {k: everyone[k] for k in ("genetic", "sat")}
    import matplotlib.colors as mcolors

    style = report.backend_style("sat")
    assert everyone["sat"] == (mcolors.to_hex(style["color"]), style["marker"])


def test_a_variant_takes_its_backends_style_unless_it_has_a_sibling(tmp_path, figures):
    df = _every_backend()
    df = df[df["label"].isin(["cpsat", "anneal"])].copy()
    df.loc[df["label"] == "anneal", "label"] = "anneal-short"
    report.plot_cactus(df, str(tmp_path / "v.png"))
    styles = _line_styles(figures[-1][1])
    import matplotlib.colors as mcolors

    anneal = report.backend_style("anneal")
    assert styles["anneal-short"] == (mcolors.to_hex(anneal["color"]), anneal["marker"])
    twin = df[df["label"] == "cpsat"].assign(label="cpsat-bool")
    report.plot_cactus(pd.concat([df, twin]), str(tmp_path / "w.png"))
    styles = _line_styles(figures[-1][1])
    assert len(set(styles.values())) == 3  # two cpsat variants: two styles


@pytest.mark.parametrize("sizes", [(5, 6, 7), (6,)])
def test_no_error_bar_runs_below_zero_on_the_log_axis(tmp_path, figures, sizes):
    # skewed times: the standard deviation is larger than the mean
    rows = [dict(family="futoshiki", size=s, label=lab, backend=lab, solved=True, wall_s=t,
                 instance_hash=f"{s}-{k}", filtering="lists")
            for s in sizes for lab in ("cpsat", "listcolor")
            for k, t in enumerate((0.001, 0.001, 0.002, 2.0))]
    df = pd.DataFrame(rows)
    assert (df.groupby(["size", "label"])["wall_s"].agg(lambda x: x.mean() - x.std()) < 0).all()
    report.plot_time_vs_size(df, str(tmp_path / "t.png"))
    ax = figures[-1][1]
    assert ax.get_yscale() == "log"
    bars = [seg for container in ax.containers for coll in container.lines[2]
            for seg in coll.get_segments()]
    assert bars and min(y for seg in bars for _, y in seg) > 0
    lows = [min(y for _, y in seg) for seg in bars]
    assert min(lows) >= 0.001 - 1e-12  # the first quartile, not a clipped guess


def test_log_error_bars_stay_above_zero():
    lower, upper = report.log_error_bars([0.5, 2.0], [0.0, 1.0], [1.0, 1.5])
    assert 0.5 - lower[0] > 0 and 2.0 - lower[1] == 1.0
    assert upper == [0.5, 0.0]
