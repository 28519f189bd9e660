"""cuzk.report's per-rule memory plot: labelled jobs, declared mem_gb drawn, PoSt jobs not
flattened under PoRep ones; the whole run's plot: the budget in GiB, a GPU panel only with a GPU."""

import matplotlib.pyplot as plt
import pandas as pd

from cuzk.report import GIB, LOG_SCALE_RATIO, TIME_PANEL_RATIO, job_label, rule_figure, run_figure, run_timeline


def _rows(peaks_gib: dict, declared: dict, seconds: dict | None = None) -> pd.DataFrame:
    sec = seconds or {}
    return pd.DataFrame([{"rule": "prove", "job": job, "rss_peak_gib": p, "rss_predicted_gib": p * 1.1,
                          "mem_gb_declared": declared[job],
                          "timeline": [[t * sec.get(job, 2.0) / 2, int(v * GIB)] for t, v in ((0.0, 0), (1.0, p), (2.0, p / 2))]}
                         for job, p in peaks_gib.items()])


def test_job_labels_name_sectors_and_partitions():
    assert job_label("1") == "sector 1"
    assert job_label("12-p3") == "sector 12 partition 3"
    assert job_label("porep-2KiB-b0") == "porep-2KiB-b0"
    assert job_label("window-2KiB") == "window-2KiB"


def test_post_beside_porep_gets_a_log_scale_and_declared_lines():
    g = _rows({"porep-2KiB-b0": 10.6, "winning-2KiB": 0.6}, {"porep-2KiB-b0": 14, "winning-2KiB": 2})
    assert 10.6 > LOG_SCALE_RATIO * 0.6
    fig = rule_figure("prove", g)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"porep-2KiB-b0", "winning-2KiB", "declared mem_gb=14", "declared mem_gb=2"} <= set(labels)
    # the declared lines sit at 14 and 2 GiB; the jobs' curves peak at their own values
    y = {line.get_label(): max(line.get_ydata()) for line in ax.get_lines()}
    assert y["declared mem_gb=14"] == 14 and y["declared mem_gb=2"] == 2
    assert abs(y["winning-2KiB"] - 0.6) < 1e-6
    plt.close(fig)


def test_similar_jobs_keep_a_linear_scale_with_sector_labels():
    fig = rule_figure("verify", _rows({"1": 0.06, "2": 0.07}, {"1": 1, "2": 1}))
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "sector 1" in labels and "sector 2" in labels and labels.count("declared mem_gb=1") == 1
    plt.close(fig)


def test_a_short_post_job_gets_its_own_time_axis():
    """Measured lengths (the 2 KiB workflow: a PoRep batch's prove about 300 s, WinningPoSt's
    about 8 s): each gets a panel whose time axis it fills, with its own declared mem_gb and
    predicted peak; jobs of similar length (two PoRep batches) share one."""
    g = _rows({"porep-2KiB-b0": 10.6, "porep-2KiB-b1": 10.2, "winning-2KiB": 0.6},
              {"porep-2KiB-b0": 14, "porep-2KiB-b1": 14, "winning-2KiB": 2},
              {"porep-2KiB-b0": 300.0, "porep-2KiB-b1": 280.0, "winning-2KiB": 8.0})
    assert 280 > TIME_PANEL_RATIO * 8
    fig = rule_figure("prove", g)
    assert len(fig.axes) == 2
    for ax, jobs, gb in ((fig.axes[0], {"winning-2KiB"}, 2), (fig.axes[1], {"porep-2KiB-b0", "porep-2KiB-b1"}, 14)):
        curves = [line for line in ax.get_lines() if not line.get_label().startswith(("declared", "predicted"))]
        assert {line.get_label() for line in curves} == jobs
        lo, hi = ax.get_xlim()
        for line in curves:   # each curve spans most of its panel's width, not a sliver of it
            x = line.get_xdata()
            assert (max(x) - min(x)) / (hi - lo) > 0.8, (line.get_label(), lo, hi)
        y = {line.get_label(): max(line.get_ydata()) for line in ax.get_lines()}
        assert y[f"declared mem_gb={gb}"] == gb and set(y) & {"declared mem_gb=2", "declared mem_gb=14"} == {
            f"declared mem_gb={gb}"}
        assert abs(y["predicted peak"] - max(y[j] for j in jobs) * 1.1) < 1e-6
    plt.close(fig)


def test_run_plot_draws_the_budget_in_gib_and_a_gpu_panel_only_with_a_gpu():
    """mem_gb counts GiB (``declared_gb``), so ``--resources mem_gb=16`` is drawn at 16 GiB,
    above a job that declared 14 and peaked at 10.6 GiB (it was drawn at 14.9: 16e9 bytes)."""
    g = _rows({"porep-2KiB-b0": 10.6}, {"porep-2KiB-b0": 14}).assign(started_at=0.0, seconds=2.0)
    tl = run_timeline(g)
    assert abs(tl["rss_gib"].max() - 10.6) < 1e-6 and (tl["gpu_gib"] == 0).all()
    fig = run_figure(tl, 16)
    assert len(fig.axes) == 1   # a CPU run: no empty GPU panel
    y = {line.get_label(): max(line.get_ydata()) for line in fig.axes[0].get_lines()}
    assert y["--resources mem_gb=16"] == 16
    plt.close(fig)
    g["timeline"] = [[[t, b, int(2 * GIB)] for t, b in g["timeline"][0]]]
    fig = run_figure(run_timeline(g), 16)
    assert len(fig.axes) == 2 and max(fig.axes[1].get_lines()[0].get_ydata()) == 2
    plt.close(fig)
