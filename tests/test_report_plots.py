"""cuzk.report's per-rule memory plot: labelled jobs, declared mem_gb drawn, PoSt jobs not
flattened under PoRep ones."""

import matplotlib.pyplot as plt
import pandas as pd

from cuzk.report import GIB, LOG_SCALE_RATIO, job_label, rule_figure


def _rows(peaks_gib: dict, declared: dict) -> pd.DataFrame:
    return pd.DataFrame([{"rule": "prove", "job": job, "rss_peak_gib": p, "rss_predicted_gib": p * 1.1,
                          "mem_gb_declared": declared[job],
                          "timeline": [[0.0, 0], [1.0, int(p * GIB)], [2.0, int(p * GIB / 2)]]}
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
