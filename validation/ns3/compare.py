"""fairsim against ns-3 on the reference dumbbell (docs/validation.md, *The settings, side by side*).

    python3 validation/ns3/compare.py [--short] [--draws N] [--out DIR]

For every configuration (discipline × TCP flows × congestion control) and draw of start times
(ns-3's RngRun 1..N), runs ns-3 twice — (a) `like`: no SACK, classic recovery, no limited
transmit; (b) `default`: ns-3 as it comes, SACK, PRR and limited transmit — then fairsim in the
same two modes with the start times ns-3 drew. Prints the medians over the draws and the ratios
of each fairsim mode to its ns-3 twin, and writes every run's numbers to DIR (runs.json, runs.csv,
medians.csv, table.md). One simulation runs at a time: all of ns-3's in one process (one import
of ns-3), then fairsim's in this one.
"""

import argparse
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fairsim_dumbbell  # noqa: E402 (next to this file, not a package)

NS3_VERSION = "3.44.post0"
# ns-3's wheel skips library paths containing "test": keep its environment away from such names
DEFAULT_VENV = Path.home() / ".cache" / "fairsim-validation" / "ns3-venv"
NS3_MODES = {"like": {"no_sack": True, "classic": True}, "default": {"no_sack": False, "classic": False}}
METRICS = ["tcp_mbps", "udp_mbps", "jain", "drops", "retransmitted", "timeouts", "mean_queue"]
#: What "agrees" means for a metric (docs/validation.md, *Results*): a relative difference of the
#: medians at most this, or for Jain's index an absolute one (`abs`). The UDP goodput and the mean
#: queue are shown without an aim.
AIMS = {"tcp_mbps": 0.03, "jain": ("abs", 0.02), "drops": 0.10, "retransmitted": 0.10, "timeouts": 0.20}
SIMS = ("ns3-like", "fairsim-like", "ns3-default", "fairsim-default")


def ns3_python(venv: Path) -> Path:
    """The venv's python, with the pinned ns-3 wheel; made on first use (about 520 MB)."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import importlib.metadata as m; print(m.version('ns3'))"]
    if (
        python.exists()
        and subprocess.run(check, capture_output=True, text=True).stdout.strip() == NS3_VERSION
    ):
        return python
    print(f"downloading ns-3's wheel (ns3=={NS3_VERSION}, about 520 MB) into {venv}, once …", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"ns3=={NS3_VERSION}"], check=True)
    return python


def configurations(short: bool):
    """(discipline, TCP flows, congestion control, bottleneck Mb/s): the 12 of the reference at
    10 Mb/s, and RED at 100 Mb/s, where SACK with PRR can end every recovery in a timeout
    (docs/validation.md, *Causes traced*: a retransmission RED dropped, invisible to RFC 6675,
    then ssthresh from a FlightSize full of SACKed data)."""
    if short:
        return [(q, 8, "newreno", 10) for q in ("fifo", "red", "fqcodel")]
    reference = [
        (q, n, cc, 10)
        for q, n, cc in itertools.product(("fifo", "red", "fqcodel"), (8, 64), ("newreno", "cubic"))
    ]
    return [*reference, ("red", 8, "newreno", 100)]


def run_ns3(python: Path, configs, draws, duration, out: Path, diagnostic=None) -> list[dict]:
    batch = [
        {
            "qdisc": q,
            "flows": n,
            "cc": cc,
            "rate": rate,
            "run": d,
            "duration": duration,
            **flags,
            **(diagnostic or {}),
            "mode": mode,
        }
        for (q, n, cc, rate), d, (mode, flags) in itertools.product(configs, draws, NS3_MODES.items())
    ]
    (out / "ns3_batch.json").write_text(json.dumps(batch, indent=1))
    runs = []
    with (
        open(out / "ns3_runs.jsonl", "w") as log,
        open(out / "ns3_stderr.log", "w") as err,
        subprocess.Popen(
            [str(python), str(HERE / "ns3_dumbbell.py"), "--batch", str(out / "ns3_batch.json")],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        ) as proc,
    ):
        for line in proc.stdout:
            log.write(line)
            log.flush()
            r = json.loads(line)
            runs.append(r)
            print(
                f"  ns-3 {len(runs)}/{len(batch)}: {r['qdisc']} {r['flows']} {r['cc']} run {r['run']} "
                f"{r['mode']}: {r['wall_s']:.1f} s",
                flush=True,
            )
    if proc.returncode:
        sys.exit(f"ns-3 failed (exit {proc.returncode}); see {out / 'ns3_stderr.log'}")
    return runs


def run_fairsim(ns3_runs, configs, draws, duration, out: Path) -> list[dict]:
    # the starts depend only on the draw and the number of flows, not on the discipline or mode
    starts = {(r["flows"], r["run"]): r["starts"] for r in ns3_runs}
    runs = []
    with open(out / "fairsim_runs.jsonl", "w") as log:
        for (q, n, cc, rate), d in itertools.product(configs, draws):
            for mode in NS3_MODES:
                r = fairsim_dumbbell.run(q, cc, starts[(n, d)], duration, seed=d, mode=mode, rate_mbps=rate)
                r["run"], r["mode"], r["rate"] = d, mode, rate
                runs.append(r)
                log.write(json.dumps(r) + "\n")
                print(f"  fairsim: {q} {n} {cc} run {d} {mode}: {r['wall_s']:.2f} s", flush=True)
    return runs


def table(ns3_runs, fs_runs) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [{**r, "sim": f"ns3-{r['mode']}"} for r in ns3_runs] + [
        {**r, "sim": f"fairsim-{r['mode']}"} for r in fs_runs
    ]
    runs = pd.DataFrame(rows)
    runs["tcp_mbps"] = runs["tcp_goodput_sum_bps"] / 1e6
    runs["udp_mbps"] = runs["udp_goodput_bps"] / 1e6
    runs["drops"] = runs["bottleneck_drops"]
    keys = ["rate", "qdisc", "flows", "cc"]
    med = runs.groupby([*keys, "sim"])[[*METRICS, "wall_s"]].median().unstack("sim")
    out = pd.DataFrame(index=med.index)
    for m in [*METRICS, "wall_s"]:
        for sim in SIMS:
            out[f"{m}:{sim}"] = med[(m, sim)]
        if m != "wall_s":
            for base in NS3_MODES:
                out[f"{m}:ratio_{base}"] = med[(m, f"fairsim-{base}")] / med[(m, f"ns3-{base}")]
    order = {"fifo": 0, "red": 1, "fqcodel": 2}
    out = out.reset_index().sort_values(
        ["rate", "flows", "cc", "qdisc"], key=lambda s: s.map(order) if s.name == "qdisc" else s
    )
    return runs, out.reset_index(drop=True)


def markdown(med: pd.DataFrame) -> str:
    """One table per metric: a row per configuration, ns-3 and fairsim in each mode, the ratios."""
    names = {
        "tcp_mbps": "TCP goodput, sum (Mb/s)",
        "udp_mbps": "UDP goodput (Mb/s)",
        "jain": "Jain's index",
        "drops": "bottleneck drops",
        "retransmitted": "retransmissions of the TCP senders, from 1 s",
        "timeouts": "retransmission timeouts of the TCP senders, every expiry, from 1 s",
        "mean_queue": "packets waiting at the bottleneck, time average from 1 s (ns-3: its queue disc)",
        "wall_s": "engine wall time (s)",
    }
    fmt = {
        "tcp_mbps": "{:.2f}",
        "udp_mbps": "{:.2f}",
        "jain": "{:.3f}",
        "drops": "{:.0f}",
        "retransmitted": "{:.0f}",
        "timeouts": "{:.0f}",
        "mean_queue": "{:.1f}",
        "wall_s": "{:.2f}",
    }
    out = []
    for m, title in names.items():
        ratios = m != "wall_s"
        out.append(f"**{title}**, median over draws\n")
        out.append(
            "| Mb/s | discipline | flows | CC | ns-3 like | fairsim like | ns-3 default | fairsim default"
            + (" | like: fairsim/ns-3 | default: fairsim/ns-3 |" if ratios else " |")
        )
        out.append("|---" * (10 if ratios else 8) + "|")
        for _, r in med.iterrows():
            cells = [f"{r['rate']:g}", r["qdisc"], str(r["flows"]), r["cc"]]
            cells += [fmt[m].format(r[f"{m}:{s}"]) for s in SIMS]
            if ratios:
                cells += [f"{r[f'{m}:ratio_{b}']:.2f}" for b in ("like", "default")]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join([*agreement(med), "", *out])


def agrees(metric: str, fs: float, ns3: float) -> bool:
    aim = AIMS[metric]
    if isinstance(aim, tuple):
        return abs(fs - ns3) <= aim[1]
    return abs(fs - ns3) <= aim * abs(ns3) if ns3 else fs == 0


def agreement(med: pd.DataFrame) -> list[str]:
    """How many configurations agree on each metric with an aim, in each mode."""
    out = [
        "**agreement**: configurations whose fairsim median is within the aim of ns-3's",
        "",
        "| metric | aim | like | default |",
        "|---|---|---|---|",
    ]
    for m, aim in AIMS.items():
        shown = f"±{aim[1]}" if isinstance(aim, tuple) else f"±{aim:.0%}"
        counts = []
        for mode in NS3_MODES:
            ok = sum(agrees(m, r[f"{m}:fairsim-{mode}"], r[f"{m}:ns3-{mode}"]) for _, r in med.iterrows())
            counts.append(f"{ok} of {len(med)}")
        out.append(f"| {m} | {shown} | {' | '.join(counts)} |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--short", action="store_true", help="20 s, 8 NewReno flows, the three disciplines")
    ap.add_argument("--draws", type=int, help="start-time draws (RngRun 1..N); 5, or 3 with --short")
    ap.add_argument("--out", type=Path, default=Path("/tmp/fairsim-ns3-validation"))
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="where ns-3's environment lives")
    ap.add_argument("--cc", choices=["newreno", "cubic"], help="only its configurations")
    ap.add_argument(
        "--ns3-no-hystart",
        action="store_true",
        help="diagnostic: ns-3's CUBIC without HyStart, as fairsim's (TcpCubic::HyStart false)",
    )
    ap.add_argument("--prepare", action="store_true", help="only make ns-3's environment, then exit")
    args = ap.parse_args()
    if "test" in str(args.venv.resolve()):
        sys.exit(f"{args.venv}: ns-3's wheel does not load its libraries from a path containing 'test'")
    if args.prepare:
        try:
            ns3_python(args.venv)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"could not make ns-3's environment in {args.venv}: {e}")
        return
    draws = list(range(1, (args.draws or (3 if args.short else 5)) + 1))
    duration = 20.0 if args.short else 60.0
    configs = [c for c in configurations(args.short) if args.cc in (None, c[2])]
    args.out.mkdir(parents=True, exist_ok=True)

    python = ns3_python(args.venv)
    t0 = time.perf_counter()
    print(
        f"ns-3: {len(configs)} configurations × {len(draws)} draws × {len(NS3_MODES)} modes, "
        f"{duration:g} s each"
    )
    diagnostic = {"no_hystart": True} if args.ns3_no_hystart else None
    ns3_runs = run_ns3(python, configs, draws, duration, args.out, diagnostic)
    t1 = time.perf_counter()
    print(f"fairsim: {len(configs)} configurations × {len(draws)} draws × {len(NS3_MODES)} modes")
    fs_runs = run_fairsim(ns3_runs, configs, draws, duration, args.out)
    t2 = time.perf_counter()

    runs, med = table(ns3_runs, fs_runs)
    runs.to_json(args.out / "runs.json", orient="records", indent=1)
    runs.drop(columns=["tcp_goodput_bps", "starts"]).to_csv(args.out / "runs.csv", index=False)
    med.to_csv(args.out / "medians.csv", index=False)
    md = markdown(med)
    (args.out / "table.md").write_text(md)
    if any(r["red_wait"] is not None for r in fs_runs):
        print(f"fairsim's RED with ns-3's wait rule: {fairsim_dumbbell.RED_WAIT}")
    print(f"\nmedians over draws {draws[0]}..{draws[-1]}, {duration:g} s; goodput in application bytes\n")
    print(md)
    print(
        f"elapsed: ns-3 {t1 - t0:.0f} s (including one import), fairsim {t2 - t1:.0f} s; "
        f"results in {args.out}"
    )


if __name__ == "__main__":
    main()
