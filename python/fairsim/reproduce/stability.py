"""How fragile each verdict is: the reproduction run again with one thing changed at a time.

A reproduction's verdicts rest on choices the papers left open (a noisy host clock, start
jitter, timer floors, …) and on a finite number of replications. `fairsim reproduce PAPER
--stability` reruns it under each variant below and the paper's own `knobs`, and the report
shows every claim's verdict under each (docs/reproductions.md, "Stability"): a claim whose
verdict changes with 20 replications is flagged as not stable at the default count; one that
changes with a knob shows which choice it turns on.

Variants reuse the runs a reproduction's folder holds, so a second `--stability` costs only
what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairsim.api import Scenario
    from fairsim.reproduce.claims import Verdict
    from fairsim.reproduce.model import Outcome, Paper

#: The replications that decide whether a verdict is stable (at least 20: docs/reproductions.md,
#: *Stability of the verdicts*).
STABLE_REPLICATIONS = 20


@dataclass(frozen=True)
class Variant:
    """One thing changed for every experiment of a reproduction."""

    name: str
    #: Why this is a plausible second value (Markdown, one sentence).
    why: str
    #: Replications per pair (None: the reproduction's own count).
    seeds: int | None = None
    #: Overrides for one experiment's scenario (as loaded), `{}` where it does not apply.
    overrides: Callable[[Scenario], dict[str, Any]] = field(default=lambda sc: {})


def _run_field(name: str, value: str) -> Callable[[Scenario], dict[str, Any]]:
    """`run.NAME = value` where the scenario sets it to something else."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        current = sc.resolved(ends=0)["run"].get(name)
        return {f"run.{name}": value} if current not in (None, value) else {}

    return overrides


def _written_start_jitter(value: str) -> Callable[[Scenario], dict[str, Any]]:
    """`start_jitter = value` in `[run]` and in every flow whose file sets it to something else.
    Read from the file as written: a resolved scenario holds no jitter, only the starts it drew
    (so a variant that looked there changed nothing)."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        import json
        import tomllib

        written = tomllib.loads(sc.text)
        found = {"run.start_jitter": written.get("run", {}).get("start_jitter")}
        for name, flow in written.get("flows", {}).items():
            if isinstance(flow, dict):
                found[f"flows.{json.dumps(name)}.start_jitter"] = flow.get("start_jitter")
        return {key: value for key, was in found.items() if was not in (None, value)}

    return overrides


def transport_tables(sc: Scenario) -> dict[str, dict]:
    """Every transport the scenario's file writes, by the override path that reaches it: each
    pair's (`transport`, and `transports` by flow), each flow's own and each workload's, as a
    table (a transport given by name, `"jk"`, as `{"kind": "jk"}`). Every knob that changes a
    transport's field finds its places here, so that none misses one (a flow's own transport
    wins over its pair's); `set_fields` writes the change."""
    import json
    import tomllib

    doc = tomllib.loads(sc.text)
    found: dict[str, object] = {}
    for section in ("pairs", "flows", "workloads"):
        for name, spec in doc.get(section, {}).items():
            if not isinstance(spec, dict):
                continue
            key = f"{section}.{json.dumps(name)}"
            found[f"{key}.transport"] = spec.get("transport")
            for flow, t in (spec.get("transports") or {}).items() if section == "pairs" else ():
                found[f"{key}.transports.{json.dumps(flow)}"] = t
    tables = {path: t for path, t in found.items() if isinstance(t, dict)}
    named = {
        path: {"kind": t, NAMED: True} for path, t in found.items() if isinstance(t, str) and t != "none"
    }
    return tables | named


#: The mark of a transport the file gives by name (`transport_tables`).
NAMED = "_named"


def set_fields(path: str, table: dict, fields: dict[str, Any]) -> dict[str, Any]:
    """The overrides that set `fields` in the transport at `path` (`transport_tables`): each field
    in a table, or, for a transport given by name, a table of its kind with them."""
    if table.get(NAMED):
        return {path: {"kind": table["kind"], **fields}}
    return {f"{path}.{name}": value for name, value in fields.items()}


def transport_field(
    name: str, value: str, when: Callable[[dict], bool] = lambda t: True
) -> Callable[[Scenario], dict[str, Any]]:
    """`NAME = value` in every transport table the file writes (`transport_tables`) that sets
    `NAME` to something else and that `when` accepts."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        return {
            f"{path}.{name}": value
            for path, t in transport_tables(sc).items()
            if t.get(name) not in (None, value) and when(t)
        }

    return overrides


def transport_kind_fields(kind: str, **fields: Any) -> Callable[[Scenario], dict[str, Any]]:
    """`fields` in every transport of `kind` the file writes, table or name, where one of them
    differs: for a choice the file leaves at its default (JK's fast-retransmit threshold)."""

    def overrides(sc: Scenario) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for path, t in transport_tables(sc).items():
            if t.get("kind") == kind and any(t.get(n) != v for n, v in fields.items()):
                out |= set_fields(path, t, fields)
        return out

    return overrides


#: The variants of every reproduction.
COMMON = (
    Variant(
        f"{STABLE_REPLICATIONS} replications",
        f"the same experiments with {STABLE_REPLICATIONS} replications per pair: a verdict that differs "
        "from the default's is not stable at the default count",
        seeds=STABLE_REPLICATIONS,
    ),
    Variant(
        "exact clocks",
        "hosts' clocks without noise (`run.clock_jitter = 0s`), where a scenario adds noise to "
        "break phase locks",
        overrides=_run_field("clock_jitter", "0s"),
    ),
    Variant(
        "no start jitter",
        "every flow starts when its scenario says (`run.start_jitter = 0s`), where a scenario draws starts",
        overrides=_written_start_jitter("0s"),
    ),
)


#: Generic and DECbit timeouts with a 0.25 s floor instead of 4.3BSD's 1 s: neither the 1989
#: paper nor the thesis gives Generic's timeout a floor (the scenarios' notes), and 0.25 s is as
#: plausible a reading (an audit of the reproductions found it removes keshav91 Scenario 1's
#: spurious retransmissions).
TIMEOUT_FLOOR = Variant(
    "timeout floor 0.25 s",
    "Generic and DECbit timeouts at least 0.25 s instead of 1 s (`min_timeout`): neither paper gives "
    "Generic's timeout a floor; 1 s is 4.3BSD's, which the JK sources have",
    overrides=transport_field("min_timeout", "250ms"),
)


#: JK's fast retransmit after one duplicate ACK instead of three: neither the 1989 paper nor the
#: thesis gives JK's threshold, and the default is 4.3BSD Tahoe's three (`tcprexmtthresh`). With
#: windows of 5 three duplicates rarely arrive, so most losses wait for the timer; one duplicate
#: is the other end of what a reading could choose.
JK_THRESHOLD = Variant(
    "JK fast retransmit after 1 duplicate",
    "JK retransmits at the first duplicate ACK instead of the third (`dupack_threshold`): neither paper "
    "gives the threshold; 3 is 4.3BSD Tahoe's, and with windows of 5 three duplicates rarely arrive",
    overrides=transport_kind_fields("jk", dupack_threshold=1),
)


def only_in(
    file: str, overrides: Callable[[Scenario], dict[str, Any]]
) -> Callable[[Scenario], dict[str, Any]]:
    """`overrides` for the experiments read from scenario `file` (`dks89/s4_mixed.toml`), none
    elsewhere: a change tried for one claim runs nothing else."""

    def limited(sc: Scenario) -> dict[str, Any]:
        return overrides(sc) if sc.file.replace("\\", "/").endswith(file) else {}

    return limited


@dataclass(frozen=True)
class Cause:
    """What makes a claim not hold, tested by runs: the changes tried for this claim alone (beside
    every paper-wide variant), and the change the reproduction's discussion names as the cause,
    which the report calls a hypothesis unless a run with it makes the claim hold."""

    claim: str
    #: The variant (by name) the discussion states as the cause, if it states one.
    stated: str = ""
    #: Changes particular to this claim, each a variant run for its experiment.
    tried: tuple[Variant, ...] = ()


def variants(paper: Paper) -> tuple[Variant, ...]:
    return (*COMMON, *paper.knobs)


def verdicts(paper: Paper, outcome: Outcome) -> dict[str, str]:
    """Each claim's verdict label from an outcome (no figures drawn, no cells compared); a
    derived claim's with what its check found, since a knob may move it."""
    ctx = outcome.context
    ran = set(outcome.loaded)
    return {c.id: _shown(c.evaluate(ctx)) for c in paper.claims if c.experiment in ran}


def _shown(v: Verdict) -> str:
    return f"{v.label}: {v.checked}" if v.label == "derived" else v.label


def stability(
    paper: Paper, default: dict[str, str], run: Callable[..., Outcome]
) -> dict[str, dict[str, str]]:
    """Claim id -> {variant name -> verdict}, with the default's verdicts first; `run(seeds,
    extra)` runs the reproduction as the caller asked, with a variant's replications (None: the
    caller's) and overrides."""
    table = {claim: {"default": verdict} for claim, verdict in default.items()}
    for v in variants(paper):
        got = verdicts(paper, run(v.seeds, v.overrides))
        for claim, verdict in got.items():
            table.setdefault(claim, {})[v.name] = verdict
    # each change tried for some claims runs once, and only if one of its claims' experiments ran
    tried = {v.name: v for c in paper.causes if c.claim in default for v in c.tried}
    for v in tried.values():
        got = verdicts(paper, run(v.seeds, v.overrides))
        for cause in paper.causes:
            if v in cause.tried and cause.claim in got:
                table.setdefault(cause.claim, {})[v.name] = got[cause.claim]
    return table


def what_moves(paper: Paper, table: dict[str, dict[str, str]]) -> dict[str, dict[str, Any]]:
    """For each claim not held by default: the single changes under which it holds (`moved_by`),
    those under which it does not (`not_moved_by`; more replications are no change and are left
    out), and the stated cause with whether a run supports it."""
    stated = {c.claim: c.stated for c in paper.causes}
    out = {}
    for claim, row in table.items():
        if row.get("default") != "not held":
            continue
        changes = {n: v for n, v in row.items() if n not in ("default", COMMON[0].name)}
        moved = [n for n, v in changes.items() if v == "held"]
        cause = stated.get(claim, "")
        out[claim] = {
            "moved_by": moved,
            "not_moved_by": [n for n in changes if n not in moved],
            "stated": cause,
            "stated_supported": (cause in moved) if cause else None,
        }
    return out


CAUSES_HEADING = "What moves the claims not held"


def causes_text(paper: Paper, table: dict[str, dict[str, str]]) -> str:
    """The report's account of each claim not held, from the runs: the one changes that make it
    hold and those tried that do not; a stated cause no run supports is called a hypothesis."""
    lines = []
    for claim, m in what_moves(paper, table).items():
        tried = ", ".join(f"*{n}*" for n in m["not_moved_by"])
        if m["moved_by"]:
            moved = ", ".join(f"*{n}*" for n in m["moved_by"])
            line = f"- **{claim}** holds with {moved}" + (f"; not with {tried}" if tried else "")
        else:
            line = f"- **{claim}**: no single change tried makes it hold ({tried})"
        if m["stated"]:
            line += (
                f". Its stated cause, *{m['stated']}*, is supported by that run"
                if m["stated_supported"]
                else f". Its stated cause, *{m['stated']}*, is a hypothesis: no run with it makes it hold"
            )
        lines.append(line + ".")
    if not lines:
        return ""
    return (
        "Each claim not held, with the single changes above (and those tried for it alone) that make "
        "it hold and those that do not: a cause is what a run shows, not what the discussion says.\n\n"
        + "\n".join(lines)
    )


def unstable(table: dict[str, dict[str, str]]) -> list[str]:
    """The claims whose verdict at the default count differs from that with more replications."""
    name = COMMON[0].name
    return [c for c, row in table.items() if name in row and row[name] != row.get("default")]


HEADING = "Stability of the verdicts"


def summary(paper: Paper, table: dict[str, dict[str, str]]) -> tuple[str, list[str], list[list[str]]]:
    """The report's stability section: its text, the table's headers and rows (a claim a row,
    its verdict under the default and each variant a column)."""
    names = ["default", *(v.name for v in variants(paper))]
    rows = [[claim, *(row.get(n, "—") for n in names)] for claim, row in table.items()]
    flagged = unstable(table)
    text = (
        "Every claim's verdict with one thing changed at a time: "
        + "; ".join(f"**{v.name}**: {v.why}" for v in variants(paper))
        + ". "
        + (
            f"Not stable at the default count of replications: {', '.join(flagged)}."
            if flagged
            else f"Every verdict at the default count is the one {STABLE_REPLICATIONS} replications give."
        )
    )
    return text, ["claim", *names], rows
