"""A Python discipline's own figures (`stats`, `gauge`) become columns and series of the results:
a name that cannot be one, or a value that is not a finite number, stops the run, and the message
names the run, the hook and the figure."""

from __future__ import annotations

import pytest

from conftest import SMALL


@pytest.mark.parametrize(
    "odd, message",
    [
        ("nan", "`stats` at t = .* gave held = NaN: a figure is a finite number"),
        ("name", '`stats` at t = .* named a figure "held now"'),
        ("inf-gauge", "`gauge` at t = .* gave held = inf"),
    ],
)
def test_figures_a_result_cannot_hold_stop_the_run_naming_the_run(tmp_path, odd, message):
    import re

    import fairsim

    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    qdisc = f'pairs.G/FCFS.qdisc={{kind="python", class="python_disciplines:OddFigures", odd="{odd}"}}'
    with pytest.raises(fairsim.FairsimError) as e:
        fairsim.run(path, pair="G/FCFS", set=[qdisc, "run.trace_queues=['gw->b']"], progress=False)
    assert str(e.value).startswith(
        f"{path}: pair G/FCFS, seed 3: discipline python_disciplines:OddFigures"
    ), e.value
    assert re.search(message, str(e.value)), e.value
