"""Side by side with ns-3: how much faster fairsim runs the reference dumbbell.

    python3 validation/ns3/speed.py [--short] [--flows 8 64 256] [--rates 10 100]
                                    [--duration 60] [--repeats 3] [--out DIR]

The dumbbell of docs/validation.md, *The settings, side by side* — FIFO, NewReno in each simulator's default
mode (SACK, PRR, limited transmit: compare.py's `default`), N TCP bulk flows and the UDP CBR —
at every flow count and bottleneck rate (10 Mb/s is the reference; 100 Mb/s scales every rate
and buffer by 10: dumbbell.network). Each run is a fresh process of each simulator, as a user
would start it: ns-3's program (ns3_dumbbell.py under ns-3's venv) and `fairsim run FILE --json`
(the console script beside this Python, not pyenv's shim). ns-3 and fairsim alternate: in every
repeat each scenario runs once in both, ns-3 first in odd repeats and fairsim first in even ones.

Three times per run:
- engine: ns-3's Simulator::Run() (timed inside its process) and fairsim's `wall_s` (the event
  loop only), so neither counts building the network or reading results;
- engine CPU: the CPU time of the same, ns-3's `Run()` and fairsim's event loop (timed in a
  fresh Python process of its own around `Simulation.step` until the end): on a machine doing
  other work, wall times inflate, and ns-3's long runs more than fairsim's short ones, so a ratio
  of wall times taken under load overstates the speed-up; the CPU-time ratio barely moves;
- process: a fresh process's wall time from start to exit (imports, building, running, results;
  ns-3's import alone takes 8-13 s).

Prints the medians over the repeats and their ratios (ns-3 / fairsim; per-repeat range in
brackets), then the work each did — events, packet-hops (packets put on a link), application
packets delivered, goodputs — so that the two visibly did the same work. Writes runs.json,
runs.csv, medians.csv and table.md to DIR (default /tmp/fairsim-ns3-speed), and ns-3's stderr to
ns3_stderr.log. `--short`: 8 flows at 10 Mb/s, 10 s, 1 repeat (about 30 s in all).
"""

import argparse
import hashlib
import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fairsim_dumbbell  # noqa: E402 (next to this file, not a package)
from compare import DEFAULT_VENV, NS3_VERSION, ns3_python  # noqa: E402
from dumbbell import PAYLOAD, network  # noqa: E402

import fairsim  # noqa: E402

QDISC, CC, MODE, DRAW = "fifo", "newreno", "default", 1  # ns-3's RngRun 1: the reference's starts
SIMS = ("ns-3", "fairsim")


def fairsim_cli() -> Path:
    """The `fairsim` console script that pip put beside this Python. Not the one PATH finds under
    pyenv: that is a shim, a bash script that runs pyenv to find this one (about 0.1 s more)."""
    cli = Path(sys.executable).parent / "fairsim"
    if not cli.exists():
        sys.exit(f"{cli}: no fairsim console script beside {sys.executable} (pip install fairsim)")
    return cli


def engine_library() -> dict:
    """Which build of fairsim's engine ran: the extension's hash and time of building."""
    path = Path(importlib.util.find_spec("fairsim._core").origin)
    return {
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:12],
        "built": time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime)),
    }


def source() -> str:
    """The commit of the checkout fairsim runs from (an editable install), and whether its Python
    package or engine has uncommitted changes; '' when fairsim is not run from a git checkout."""
    root = Path(fairsim.__file__).resolve().parent.parent.parent
    git = ["git", "-C", str(root)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode:
        return ""
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no", "--", "python/fairsim", "crates"],
        capture_output=True,
        text=True,
    ).stdout
    changed = sorted({line[3:].split("/")[0] + "/" for line in dirty.splitlines()})
    return head.stdout.strip() + (f" (uncommitted changes in {' and '.join(changed)})" if changed else "")


def timed(cmd: list[str], stderr_log) -> tuple[float, float, str]:
    """Run cmd as a fresh process: its wall time from start to exit, its CPU time (user and
    system, all its threads; less sensitive than wall time to other work on the machine), and
    its stdout."""
    cpu0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed, cpu1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    stderr_log.write(done.stderr)
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    cpu = cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime
    return elapsed, cpu, done.stdout


def run_ns3(python: Path, rate: float, flows: int, duration: float, log) -> dict:
    cmd = [str(python), str(HERE / "ns3_dumbbell.py"), "--qdisc", QDISC, "--cc", CC]
    cmd += ["--flows", str(flows), "--run", str(DRAW), "--duration", f"{duration:g}"]
    cmd += ["--rate", f"{rate:g}", "--no-rtos"]  # the RTO counter is instrumentation, not ns-3
    process_s, cpu_s, out = timed(cmd, log)
    r = json.loads(out.strip().splitlines()[-1])
    return {
        "engine_s": r["wall_s"],
        "engine_cpu_s": r["run_cpu_s"],
        "process_s": process_s,
        "process_cpu_s": cpu_s,
        "import_s": r["import_s"],
        "events": r["events"],
        "packet_hops": r["packet_hops"],
        "delivered_bytes": r["delivered_bytes"],
        "tcp_mbps": r["tcp_goodput_sum_bps"] / 1e6,
        "udp_mbps": r["udp_goodput_bps"] / 1e6,
        "starts": r["starts"],
    }


#: fairsim's event loop alone, timed in CPU time in a fresh process (the scenario's path is
#: argv[1]); prints that time, then the run's report (with the queues' intervals, which the CLI's
#: JSON leaves out and the work over the whole run needs)
ENGINE_CPU = """
import sys, time
from fairsim import _core
sc = _core.loads(open(sys.argv[1]).read(), sys.argv[1], [], "set=")
sim = sc.simulation(sc.pairs[0], None)
t = time.process_time()
while not sim.step(1 << 22):
    pass
print(time.process_time() - t)
print(sim.report_json())
"""


def run_fairsim(cli: Path, scenario: Path, duration: float, log) -> dict:
    _, _, engine_out = timed([sys.executable, "-c", ENGINE_CPU, str(scenario)], log)
    engine_cpu, engine_report = engine_out.split("\n", 1)
    process_s, cpu_s, out = timed([str(cli), "run", str(scenario), "--json"], log)
    report = json.loads(out)["runs"][0]
    payload = {f["name"]: f["run_totals"]["payload_unique"] for f in report["flows"]}
    udp = payload.pop("udp")
    # the work over the whole run from the engine process's report (the same run: deterministic),
    # the wall time from the command line's
    figures = {**fairsim_dumbbell.figures(json.loads(engine_report)), "wall_s": report["wall_s"]}
    return {
        "engine_s": figures.pop("wall_s"),
        "engine_cpu_s": float(engine_cpu),
        "process_s": process_s,
        "process_cpu_s": cpu_s,
        **figures,
        "tcp_mbps": sum(payload.values()) * 8 / duration / 1e6,
        "udp_mbps": udp * 8 / duration / 1e6,
        **engine_library(),
    }


def measure(args, python: Path, cli: Path) -> list[dict]:
    scenarios = [(rate, n) for rate in args.rates for n in args.flows]
    starts: dict[tuple[float, int], list[float]] = {}
    runs = []
    with open(args.out / "ns3_stderr.log", "w") as log:
        for repeat in range(1, args.repeats + 1):
            for rate, n in scenarios:
                order = SIMS if repeat % 2 else SIMS[::-1]  # repeat 1 starts with ns-3: its starts
                for sim in order:
                    if sim == "ns-3":
                        r = run_ns3(python, rate, n, args.duration, log)
                        if starts.setdefault((rate, n), r["starts"]) != r["starts"]:
                            sys.exit(f"ns-3 drew other start times for {n} flows at {rate:g} Mb/s")
                        del r["starts"]
                    else:
                        # fairsim gets ns-3's start times, to the nanosecond, in a file of its own
                        toml = args.out / "scenarios" / f"{QDISC}-{CC}-{rate:g}M-{n}.toml"
                        text = fairsim_dumbbell.scenario_text(
                            QDISC, CC, starts[(rate, n)], args.duration, seed=DRAW, mode=MODE, rate_mbps=rate
                        )
                        toml.write_text(text)
                        r = run_fairsim(cli, toml, args.duration, log)
                    r = {"sim": sim, "rate_mbps": rate, "flows": n, "duration_s": args.duration,
                         "repeat": repeat, "first": sim == order[0], **r}  # fmt: skip
                    runs.append(r)
                    print(
                        f"  repeat {repeat}/{args.repeats}, {rate:g} Mb/s, {n} flows, {sim}: "
                        f"engine {r['engine_s']:.3f} s, process {r['process_s']:.2f} s",
                        flush=True,
                    )
    return runs


def medians(runs: pd.DataFrame) -> pd.DataFrame:
    """A row per scenario: each simulator's medians, the ratios of the medians (ns-3 / fairsim)
    and the range of the per-repeat ratios (each ns-3 run against the fairsim run beside it)."""
    keys = ["rate_mbps", "flows"]
    timings = ["engine_s", "engine_cpu_s", "process_s", "process_cpu_s"]
    cols = [*timings, "events", "packet_hops", "delivered_bytes", "tcp_mbps", "udp_mbps"]
    med = runs.groupby([*keys, "sim"])[cols].median().unstack("sim")
    out = pd.DataFrame(index=med.index)
    for c in cols:
        for sim in SIMS:
            out[f"{c}:{sim}"] = med[(c, sim)]
    out["import_s:ns-3"] = runs[runs.sim == "ns-3"].groupby(keys)["import_s"].median()
    paired = runs.pivot_table(index=[*keys, "repeat"], columns="sim", values=timings)
    for t in timings:
        out[f"{t}:ratio"] = out[f"{t}:ns-3"] / out[f"{t}:fairsim"]
        per_repeat = (paired[(t, "ns-3")] / paired[(t, "fairsim")]).groupby(keys)
        out[f"{t}:ratio_min"], out[f"{t}:ratio_max"] = per_repeat.min(), per_repeat.max()
    out["repeats"] = runs.groupby(keys)["repeat"].nunique()
    return out.reset_index()


def bitrate(bps: float) -> str:
    return f"{bps / 1e9:g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:g} Mb/s"


def seconds(x: float) -> str:
    return f"{x:.0f} s" if x >= 100 else f"{x:.3g} s"


def factor(r: float) -> str:
    return f"{r:.0f}×" if r >= 10 else f"{r:.1f}×"


def ratio(row, t: str) -> str:
    cell = f"**{factor(row[f'{t}:ratio'])}**"
    if row["repeats"] > 1:
        cell += f" ({factor(row[f'{t}:ratio_min'])[:-1]}–{factor(row[f'{t}:ratio_max'])})"
    return cell


def markdown(med: pd.DataFrame, duration: float, repeats: int) -> str:
    nets = {rate: network(rate) for rate in med["rate_mbps"]}
    out = [
        f"FIFO, NewReno with SACK, PRR and limited transmit, N TCP flows and a CBR, {duration:g} s "
        f"simulated; medians of {repeats} alternated run{'s' if repeats > 1 else ''} of each "
        "simulator, ratios ns-3 / fairsim (in brackets: the range of the per-repeat ratios)."
        + "".join(
            f" At {bitrate(net.neck_bps)}: access links {bitrate(net.access_bps)}, "
            f"CBR {bitrate(net.cbr_bps)}, buffers {net.neck_buffer} packets."
            for net in nets.values()
        ),
        "",
        "| bottleneck | flows | ns-3 Run() | fairsim engine | engine ratio | ns-3 process | "
        "(ns-3 import) | fairsim process | process ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, r in med.iterrows():
        out.append(
            f"| {r['rate_mbps']:g} Mb/s | {int(r['flows'])} | {seconds(r['engine_s:ns-3'])} | "
            f"{seconds(r['engine_s:fairsim'])} | {ratio(r, 'engine_s')} | {seconds(r['process_s:ns-3'])} | "
            f"{seconds(r['import_s:ns-3'])} | {seconds(r['process_s:fairsim'])} | {ratio(r, 'process_s')} |"
        )
    out += [
        "",
        "CPU time (user and system, all threads), less sensitive than wall time to other work on a "
        "shared machine: of the engines (ns-3's `Run()`, fairsim's event loop) and of the whole "
        "fresh processes.",
        "",
        "| bottleneck | flows | ns-3 Run() CPU | fairsim engine CPU | engine CPU ratio | ns-3 process CPU | "
        "fairsim process CPU | process CPU ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, r in med.iterrows():
        out.append(
            f"| {r['rate_mbps']:g} Mb/s | {int(r['flows'])} | {seconds(r['engine_cpu_s:ns-3'])} | "
            f"{seconds(r['engine_cpu_s:fairsim'])} | {ratio(r, 'engine_cpu_s')} | "
            f"{seconds(r['process_cpu_s:ns-3'])} | {seconds(r['process_cpu_s:fairsim'])} | "
            f"{ratio(r, 'process_cpu_s')} |"
        )
    out += [
        "",
        "The work done (both simulators are deterministic: every repeat does the same): events "
        "executed, packet-hops (packets put on a link, data and ACKs, every link), application "
        "packets delivered (TCP and UDP) and goodputs.",
        "",
        "| bottleneck | flows | events ns-3 | events fairsim | hops ns-3 | hops fairsim | delivered ns-3 "
        "| delivered fairsim | TCP Mb/s ns-3 | TCP Mb/s fairsim | UDP Mb/s ns-3 | UDP Mb/s fairsim |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, r in med.iterrows():
        cells = [f"{r['rate_mbps']:g} Mb/s", str(int(r["flows"]))]
        for c in ("events", "packet_hops"):
            cells += [f"{r[f'{c}:{sim}']:,.0f}" for sim in SIMS]
        cells += [f"{r[f'delivered_bytes:{sim}'] / PAYLOAD:,.0f}" for sim in SIMS]
        for c in ("tcp_mbps", "udp_mbps"):
            cells += [f"{r[f'{c}:{sim}']:.2f}" for sim in SIMS]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--short", action="store_true", help="8 flows at 10 Mb/s, 10 s, 1 repeat")
    ap.add_argument("--flows", type=int, nargs="+", help="TCP flows (default 8 64 256)")
    ap.add_argument("--rates", type=float, nargs="+", help="bottleneck rates in Mb/s (default 10 100)")
    ap.add_argument("--duration", type=float, help="simulated seconds (default 60)")
    ap.add_argument("--repeats", type=int, help="alternated runs of each simulator (default 3)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/fairsim-ns3-speed"))
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="where ns-3's environment lives")
    args = ap.parse_args()
    if "test" in str(args.venv.resolve()):
        sys.exit(f"{args.venv}: ns-3's wheel does not load its libraries from a path containing 'test'")
    args.flows = args.flows or ([8] if args.short else [8, 64, 256])
    args.rates = args.rates or ([10.0] if args.short else [10.0, 100.0])
    args.duration = args.duration or (10.0 if args.short else 60.0)
    args.repeats = args.repeats or (1 if args.short else 3)
    (args.out / "scenarios").mkdir(parents=True, exist_ok=True)

    python, cli = ns3_python(args.venv), fairsim_cli()
    print(
        f"{len(args.rates) * len(args.flows)} scenarios × {args.repeats} repeats, {args.duration:g} s "
        f"simulated; ns-3 {NS3_VERSION} ({python}), fairsim {fairsim.__version__} ({cli})",
        flush=True,
    )
    load, before = os.getloadavg(), source()
    t0 = time.perf_counter()
    runs = pd.DataFrame(measure(args, python, cli))
    elapsed = time.perf_counter() - t0

    runs.to_json(args.out / "runs.json", orient="records", indent=1)
    runs.to_csv(args.out / "runs.csv", index=False)
    med = medians(runs)
    med.to_csv(args.out / "medians.csv", index=False)
    md = markdown(med, args.duration, args.repeats)
    (args.out / "table.md").write_text(md)
    libs = runs.dropna(subset=["sha256"]).drop_duplicates("sha256")
    engine = ", ".join(f"{r.sha256} built {r.built}" for r in libs.itertuples())
    after = source()
    code = before if after == before else f"{before} at the start, {after} at the end"
    print(f"\n{md}")
    print(
        (f"fairsim's source: {code}; " if code else "")
        + f"fairsim's engine library: {engine}"
        + (" (it changed during the measurement!)" if len(libs) > 1 else "")
        + f"; load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} "
        f"cores; {elapsed / 60:.0f} min; results in {args.out}"
    )


if __name__ == "__main__":
    main()
