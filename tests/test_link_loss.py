"""Random loss on links as the API reports it: the queues table's `losses` column,
the flows' drops with reason `loss`, and a run without loss left as it was."""

import math
import subprocess
import sys

import fairsim
from fairsim.results import QUEUE_TOTALS

from conftest import ROOT

BERNOULLI = 'links.out.loss={ model = "bernoulli", rate = 0.05 }'


def test_a_lossy_link_reports_close_to_its_rate_of_departures_as_losses(small_path):
    res = fairsim.run(small_path, pair="G/FCFS", set=[BERNOULLI, "run.duration=1200s"], progress=False)
    queues = res.queues.set_index("port")
    out = queues.loc["gw->b"]
    fraction = out["losses"] / out["departures"]
    sd = math.sqrt(0.05 * 0.95 / out["departures"])
    print(f"gw->b: {out['losses']} losses of {out['departures']} = {fraction:.4f} (4 sd {4 * sd:.4f})")
    assert abs(fraction - 0.05) < 4 * sd, (out["losses"], out["departures"])
    # the link's model loses ACKs on the way back too; the access link loses nothing
    assert queues.loc["b->gw", "losses"] > 0
    assert queues.loc[["a->gw", "gw->a"], "losses"].sum() == 0
    # every loss is a drop of some flow's packet, with its own reason
    flows = res.flows
    network = queues["drops"].sum() + queues["losses"].sum()
    assert flows["dropped"].sum() + flows["acks_dropped"].sum() == network
    run = res.runs[0]
    lost = [d for f in run["flows"] for d in f["drops"] if d["reason"] == "loss"]
    assert lost and all(d["queue"] == "gw->b" for d in lost), lost


def test_the_queues_table_has_a_losses_column_as_the_docs_say(small_path):
    res = fairsim.run(small_path, pair="G/RD", progress=False)
    assert set(QUEUE_TOTALS) <= set(res.queues.columns)
    assert (res.queues["losses"] == 0).all(), "no `loss`, no losses"
    docs = (ROOT / "docs" / "results.md").read_text()
    listed = docs.split("res.queues", 1)[1].split("res.queue_intervals", 1)[0]
    assert all(name in listed for name in QUEUE_TOTALS), listed
    assert "`losses`" in docs.split("Per port (one direction of a link)", 1)[1].split("\n\n", 1)[0]


def test_a_link_that_loses_nothing_changes_no_result(small_path):
    # Random Drop draws from the port's stream and the loss model from its own: a model that
    # never loses leaves every number as it was without one
    plain = fairsim.run(small_path, pair="G/RD", seed=[1, 2], progress=False)
    never = 'links.out.loss={ model = "gilbert_elliott", p = 0.1, r = 0.5, loss_bad = 0.0 }'
    zero = fairsim.run(small_path, pair="G/RD", seed=[1, 2], set=[never], progress=False)
    assert (plain.queues["drops"] > 0).any(), "the discipline draws"
    assert plain.flows.equals(zero.flows)
    assert plain.queues.equals(zero.queues)
    assert plain.intervals.equals(zero.intervals)


def printed(*args: str, sets: tuple[str, ...] = ()) -> str:
    """What `fairsim ARGS --set=S ...` prints, the command having succeeded."""
    command = [sys.executable, "-m", "fairsim.cli", *args, *(f"--set={s}" for s in sets)]
    r = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_printed_table_shows_losses_only_where_a_link_loses(small_path):
    run = ("run", small_path, "--pair", "G/FCFS")
    assert "losses" not in printed(*run)
    lossy = printed(*run, sets=(BERNOULLI,))
    header = next(line for line in lossy.splitlines() if line.startswith("queue "))
    assert header.split()[-1] == "losses"


def test_validate_shows_each_ports_loss_model_only_when_a_link_has_one(small_path):
    assert "loss" not in printed("validate", small_path)
    shown = printed("validate", small_path, sets=(BERNOULLI,))
    assert "model=bernoulli, rate=0.05" in shown and " none" in shown
