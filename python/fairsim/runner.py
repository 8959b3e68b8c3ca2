"""Running simulations: in chunks, on worker threads, with one progress bar and Ctrl-C.

The engine releases the GIL while it steps, so runs of several pairs or seeds use every core.
A run advances in chunks of events; between chunks its thread records how far it got and
checks whether the user asked to stop. The main thread only waits, draws progress and catches
Ctrl-C, after which every run stops at its next chunk and reports what it has.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

from fairsim._core import FairsimError
from fairsim.progress import progress_bar

#: Events per chunk: a few milliseconds of work, so Ctrl-C and progress stay responsive.
CHUNK = 200_000


def execute(
    core_scenario,
    runs: list[tuple[str, int]],
    *,
    progress: bool | None,
    jobs: int | None,
):
    """Runs `(pair, seed)` pairs; returns their reports (dicts), what their chosen ports saw (a
    dict by (port, "pcap" or "events") of a pcap file's bytes or an event trace's text, empty
    unless `[run] pcap` or `[run] events` names ports) and whether Ctrl-C stopped them. One
    progress bar counts all the runs. (Sweeps and reproductions run on worker processes instead:
    `fairsim.sweep`.)
    """
    sims = [core_scenario.simulation(pair, seed) for pair, seed in runs]
    done_fraction = [0.0] * len(sims)
    stop = threading.Event()

    def work(i: int) -> tuple[dict, dict[tuple[str, str], bytes | str]]:
        sim = sims[i]
        while not stop.is_set():
            finished = sim.step(CHUNK)
            done_fraction[i] = sim.now_s / sim.end_s
            if finished:
                break
        if sim.error:
            pair, seed = runs[i]
            raise FairsimError(f"{core_scenario.file}: pair {pair}, seed {seed}: {sim.error}")
        seen = {(port, "pcap"): data for port, data in sim.pcaps()}
        seen |= {(port, "events"): text for port, text in sim.event_traces()}
        return json.loads(sim.report_json()), seen

    label = core_scenario.name
    workers = max(1, min(jobs or os.cpu_count() or 1, len(sims)))
    interrupted = False
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(work, i) for i in range(len(sims))]
        bar = progress_bar(label, len(sims), progress)
        try:
            while True:
                _, pending = wait(futures, timeout=0.1)
                bar.update(sum(done_fraction))
                if not pending:
                    break
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
            wait(futures)
        finally:
            bar.close(sum(done_fraction), stopped=interrupted)
        done = [f.result() for f in futures]
    return [r for r, _ in done], [c for _, c in done], interrupted
