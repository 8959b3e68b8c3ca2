"""Sweeps on a real dask.distributed cluster: a LocalCluster of two worker processes, no mock."""

import os
import signal
import threading
import time

import pandas as pd
import pytest

from fairsim.sweeps import sweep

from conftest import SMALL

# every test here takes seconds (runs, reports, processes): left out of `test.sh --quick`
pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed")

SHORT = {"run.duration": "100s", "run.warmup": "20s", "run.interval": "20s"}
AXES = {"links.out.buffer": [4, 8], "flows.noise.rate": ["8kbps", "24kbps"]}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def test_a_sweep_on_the_cluster_gives_exactly_the_local_results(client, small_file, tmp_path):
    on_cluster = sweep(
        small_file, axes=AXES, seeds=2, set=SHORT, client=client, out=tmp_path / "c", progress=False
    )
    local = sweep(small_file, axes=AXES, seeds=2, set=SHORT, out=tmp_path / "l", progress=False)
    assert on_cluster.complete and len(on_cluster.runs) == 16
    key = ["run_id", "flow"]
    a = on_cluster.flows.sort_values(key).reset_index(drop=True)
    b = local.flows.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert set(client.has_what()) and on_cluster.runs["events"].sum() == local.runs["events"].sum()


def test_a_worker_lost_mid_sweep_loses_no_result_and_the_sweep_completes(client, small_file, tmp_path):
    slow = {**SHORT, "run.duration": "20000s"}  # runs of half a second or so
    killed = threading.Event()

    def kill_a_busy_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = {w for w, tasks in client.processing().items() if tasks}
            nannies = [n for n in client.cluster.workers.values() if n.worker_address in busy]
            if nannies:
                time.sleep(0.2)  # into the middle of a run
                os.kill(nannies[0].process.pid, signal.SIGKILL)  # its nanny starts a new worker
                killed.set()
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
    killer.start()
    res = sweep(small_file, axes=AXES, seeds=2, set=slow, client=client, out=tmp_path / "k", progress=False)
    killer.join(timeout=60)
    assert killed.is_set(), "the test killed a worker"
    assert res.complete and len(res.runs) == 16, res.failures
    again = sweep(small_file, axes=AXES, seeds=2, set=slow, client=client, out=tmp_path / "k", progress=False)
    assert again.summary.ran == 0 and again.summary.cached == 16
