"""Figures of results keep what they show when saved: axis labels and tick labels lie inside
the figure (plot_traces' x-axis label once fell below the edge of its figure and was cut off)."""

import io

import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from fairsim.plots import plot_sweep, plot_traces  # noqa: E402


def traces() -> pd.DataFrame:
    rows = [
        {"pair": "G/FCFS", "seed": 1, "name": name, "series": "cwnd", "t_s": t, "value": v}
        for name in ("ftp1", "ftp2")
        for t, v in ((0.0, 1.0), (1.5, 2.0), (3.0, 4.0), (60.0, 8.0))
    ]
    return pd.DataFrame(rows)


def sweep_aggregate() -> pd.DataFrame:
    return pd.DataFrame(
        {"pair": ["G/FCFS"] * 3, "buffer": [5, 10, 20], "mean": [0.5, 0.7, 0.9], "ci95": [0.1, 0.1, None]}
    )


def assert_inside_when_saved(ax) -> None:
    fig = ax.figure
    fig.savefig(io.BytesIO(), format="png")  # lays the figure out as saved
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    for text in (ax.xaxis.label, ax.yaxis.label):
        box = text.get_window_extent(renderer)
        assert edge.x0 <= box.x0 and box.x1 <= edge.x1, f"{text.get_text()!r} at {box} outside {edge}"
        assert edge.y0 <= box.y0 and box.y1 <= edge.y1, f"{text.get_text()!r} at {box} outside {edge}"
    drawn = ax.get_tightbbox(renderer)  # the tick labels and the legend too
    assert edge.x0 <= drawn.x0 and drawn.x1 <= edge.x1 and edge.y0 <= drawn.y0 and drawn.y1 <= edge.y1


def test_plot_traces_keeps_its_axis_labels_when_saved():
    ax = plot_traces(traces(), "cwnd")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("time (s)", "cwnd")
    assert_inside_when_saved(ax)


def test_plot_sweep_keeps_its_axis_labels_when_saved():
    ax = plot_sweep(sweep_aggregate(), "jain", "buffer", [])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("buffer", "jain")
    assert_inside_when_saved(ax)


def test_a_sweeps_plot_says_what_each_point_averages(tmp_path):
    import fairsim

    short = {"run.duration": "40s", "run.warmup": "10s", "run.interval": "10s", "run.start_jitter": "1s"}
    axes = {"links.bottleneck.buffer": [10, 20]}
    res = fairsim.sweep(
        "examples/dumbbell", axes=axes, seeds=2, set=short, out=tmp_path / "s", progress=False
    )
    assert res.plot("goodput_bps", per_run="sum").get_ylabel() == (
        "goodput_bps, sum over all flows of a run\nmean over 2 seeds, band: 95% CI"
    )
    label = res.plot("rtt_s", flows=["ftp1", "ftp2"]).get_ylabel()
    assert label.startswith("rtt_s, mean over flows ftp1, ftp2 of a run")
    assert res.plot("jain", table="runs").get_ylabel() == "jain\nmean over 2 seeds, band: 95% CI"


def test_log_axes_label_plain_numbers():
    from matplotlib.figure import Figure

    from fairsim.plots import log_axis

    fig = Figure()
    ax = fig.subplots()
    ax.plot([2, 8], [0.3, 4])
    log_axis(ax, "xy")
    fig.canvas.draw()
    labels = [t.get_text() for axis in (ax.xaxis, ax.yaxis) for t in axis.get_ticklabels(minor=True)]
    labels += [t.get_text() for axis in (ax.xaxis, ax.yaxis) for t in axis.get_ticklabels()]
    shown = [x for x in labels if x]
    assert "3" in shown and "0.3" in shown and not any("10^" in x or "×" in x for x in shown), shown
