"""Mutations of scenario files, for the fuzzer: of bytes, of lines and of values.

A case is a bundled scenario and a few mutations, drawn by hypothesis as plain numbers (so that
shrinking makes them fewer and simpler) and applied in order by :func:`apply`. Value mutations
parse the TOML, then replace one value by an extreme or by another name the schema knows, add
a parameter to a table, or misspell a key, and either write the document back or pass the
change as an override (`set=`), so both paths are fuzzed; they do nothing once the text no
longer parses.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path

from hypothesis import strategies as st

from fairsim.api import overrides_list
from fairsim.catalogue import catalogue

# bytes that mean something to TOML's grammar or to UTF-8
TOKENS = [b'"', b"'", b"[", b"]", b"{", b"}", b"=", b",", b".", b"\n", b"#", b"\\", b"\x00", b"\xff", b"\xc3"]

# values at the edges of every type the schema has: numbers, times, rates, sizes, names
EXTREMES = [
    0,
    -1,
    1e-20,
    1e300,
    0.5,
    1 - 2**-53,
    65536,
    100_000,
    1 << 20,
    2**32 - 1,
    2**63,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x" * 100_000,
    "0s",
    "1ns",
    "-1ms",
    "1e-20s",
    "18446744073709551615ns",
    "1bps",
    "100000000000Tbps",
    "4GB",
    "0B",
    "unlimited",
    True,
    [],
    {},
    "near-miss",  # the old value misspelt
    "wrong-type",  # the old value as another type
]

# the names the schema knows: disciplines, transports, applications and parameters' choices
NAMES = [
    *(entry.name for kind in ("disciplines", "transports", "applications") for entry in catalogue()[kind]),
    *"flow pair source longest largest_bid perc list tree double_heap tail exponential pareto fixed".split(),
    *"none ppp ethernet".split(),
    *"packets bytes per_probe per_epoch auto edge core float byte all oldest".split(),
]

# every parameter of the schema, to add where the base has none (docs/scenario-format.md): the
# scenario's own fields here, every component's parameters from the engine's catalogue (so a
# new discipline's, transport's or application's are fuzzed without a change here)
PARAMETERS = """
    duration warmup interval seed fairness fluid_reference trace trace_queues between rate delay
    buffer buffer_includes_line qdisc forward reverse src dst app transport window packet_size
    ack_size headers start start_jitter clock_jitter stop route acks weight enabled size mean_gap jitter
    on_mean off_mean periods
    shape transfers kind key delta charge_drops drop mark_threshold quantum queues map queue_limit
    perturb min_th max_th max_p w_q gentle byte_mode mean_packet_size min_q many_flows role k
    k_alpha k_c overflow_decrease max_overflow_decrease low_occupancy relabel label_format
    threshold capacity_factor panic flow seqs beta gain initial_rtt retransmit dupack_threshold
    initial_cwnd initial_ssthresh counting initial_rto min_rto max_rto rttvar_factor alpha gamma
    increase decrease setpoint law timeout_factor initial_timeout error_low error_mid error_high
    out_low out_high layers base_rate init_join max_join init_detect init_detect_var
    loss_threshold min_packets transports description loss model p r loss_good loss_bad
""".split()
PARAMETERS += sorted(
    {
        p.name
        for kind in ("disciplines", "transports", "applications")
        for e in catalogue()[kind]
        for p in e.parameters
    }
    - set(PARAMETERS)
)

# what an added parameter is set to: ordinary values of each type, and the extremes
ADDED = [1, 2, 10, 0.1, "10ms", "1s", "1Mbps", "1000B", "flow", False, ["a", "b"], *EXTREMES[:-2]]

# the edges of each kind of value, for a mutation that keeps the kind (and so often the
# scenario's validity): numbers for numbers, times for times, rates for rates, ...
EDGES = {
    "int": [0, -1, 1, 65536, 100_000, 1 << 20, 2**31, 2**32 - 1, 2**63 - 1],
    "float": [0.0, -1.0, 1e-20, 1e-9, 1 - 2**-53, 1e300, math.nan, math.inf],
    "time": ["0s", "1ns", "-1ns", "1e-20s", "0.5ns", "18446744073709551615ns", "1000000000h"],
    "rate": ["0bps", "1bps", "1Tbps", "18446744073709551615bps", "100000000000Tbps"],
    "size": ["0B", "1B", "4GB", "4294967296B", "1000000GB"],
    "str": ["", "x" * 100_000, "\u00e9", "a.b", "*"],
    "list": [[], ["x"] * 10_000],
    "table": [{}],
    "bool": [False, True],
}
UNITS = {"time": r"ns|us|ms|s|min|h", "rate": r"[kMGT]?(bps|b/s|bit/s)", "size": r"[kKMG]?i?B"}


def kind_of(value) -> str:
    """Which list of `EDGES` a value's replacements come from."""
    if isinstance(value, str):
        number = r"-?[0-9.]+(e-?[0-9]+)?\s*"
        return next((k for k, unit in UNITS.items() if re.fullmatch(number + f"({unit})", value)), "str")
    names = {bool: "bool", int: "int", float: "float", list: "list", dict: "table"}
    return names.get(type(value), "str")


POSITION = st.integers(0, 1 << 16)  # taken modulo the length of what it picks from

# a value replaced by any extreme, or (three times in four) by an edge of its kind, in the text
# or as an override
VALUE = st.tuples(
    st.just("value"),
    POSITION,
    POSITION,
    st.sampled_from([True, False, False, False]),
    st.sampled_from(["text", "set"]),
)

NAME = st.tuples(st.just("name"), POSITION, POSITION, st.sampled_from(["text", "set"]))
ADD = st.tuples(st.just("add"), POSITION, POSITION, POSITION, st.sampled_from(["text", "set"]))

# value mutations thrice as often as the others: they make valid scenarios with extreme values,
# which reach the engine, where bytes and lines mostly make syntax errors
MUTATION = st.one_of(
    st.tuples(st.just("flip_bit"), POSITION, st.integers(0, 7)),
    st.tuples(st.just("insert"), POSITION, st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("delete"), POSITION, st.integers(1, 16)),
    st.tuples(st.just("delete_line"), POSITION),
    st.tuples(st.just("duplicate_line"), POSITION),
    st.tuples(st.just("swap_lines"), POSITION, POSITION),
    VALUE,
    VALUE,
    VALUE,
    NAME,
    ADD,
    ADD,
    st.tuples(st.just("rename_key"), POSITION),
)


def cases(bases: list[Path]) -> st.SearchStrategy:
    """A base scenario and one to four mutations."""
    return st.tuples(st.sampled_from(bases), st.lists(MUTATION, min_size=1, max_size=4))


def apply(text: bytes, mutations: list[tuple]) -> tuple[bytes, list[str]]:
    """The mutated text and the overrides to load it with."""
    overrides: dict[str, object] = {}
    for kind, *args in mutations:
        if kind in ("value", "name", "add", "rename_key"):
            text = _mutate_value(text, kind, args, overrides)
        else:
            text = _EDITS[kind](text, *args)
    return text, overrides_list(overrides)


def _flip_bit(text: bytes, at: int, bit: int) -> bytes:
    if not text:
        return text
    at %= len(text)
    return text[:at] + bytes([text[at] ^ (1 << bit)]) + text[at + 1 :]


def _insert(text: bytes, at: int, data: bytes) -> bytes:
    at %= len(text) + 1
    return text[:at] + data + text[at:]


def _delete(text: bytes, at: int, length: int) -> bytes:
    at %= len(text) + 1
    return text[:at] + text[at + length :]


def _lines(edit):
    """An edit of the list of lines (each with its end) as an edit of the text."""

    def on_text(text: bytes, *args: int) -> bytes:
        lines = text.splitlines(keepends=True)
        return b"".join(edit(lines, *(a % len(lines) for a in args))) if lines else text

    return on_text


_EDITS = {
    "flip_bit": _flip_bit,
    "insert": _insert,
    "delete": _delete,
    "delete_line": _lines(lambda lines, i: lines[:i] + lines[i + 1 :]),
    "duplicate_line": _lines(lambda lines, i: lines[: i + 1] + lines[i:]),
    "swap_lines": _lines(
        lambda lines, i, j: [lines[j] if k == i else lines[i] if k == j else x for k, x in enumerate(lines)]
    ),
}


def _mutate_value(text: bytes, kind: str, args: list, overrides: dict) -> bytes:
    try:
        doc = tomllib.loads(text.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return text
    every = list(_paths(doc))
    if not every:
        return text
    path = every[args[0] % len(every)]
    old = _get(doc, path)
    if kind == "rename_key":
        *parents, last = path
        if isinstance(last, int):
            return text
        holder = _get(doc, parents)
        holder[_near_miss(last)] = holder.pop(last)
        return document(doc)
    if kind == "name":  # a name the schema knows, in place of a string
        if not isinstance(old, str):
            return text
        new = NAMES[args[1] % len(NAMES)]
    elif kind == "add":  # a parameter the base may not have, in a table
        if not isinstance(old, dict):
            return text
        path, new = (*path, PARAMETERS[args[1] % len(PARAMETERS)]), ADDED[args[2] % len(ADDED)]
    else:
        new = _extreme(args[1], args[2], old)
    if args[-1] == "set" and not any(isinstance(key, int) for key in path):
        overrides[".".join(map(_key, path))] = new
        return text
    *parents, last = path
    _get(doc, parents)[last] = new
    return document(doc)


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def paths(text: bytes) -> list[tuple]:
    """The paths value mutations choose from (by index, modulo their number)."""
    return list(_paths(tomllib.loads(text.decode())))


def _paths(node, prefix=()):
    """Every value's path in the document, tables and arrays included, parents first; not the
    papers' numbers (`[published]`), which only `fairsim reproduce` reads."""
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        if (*prefix, key) == ("published",):
            continue
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _extreme(index: int, any_kind: bool, old):
    if not any_kind:
        edges = EDGES[kind_of(old)]
        return edges[index % len(edges)]
    choice = EXTREMES[index % len(EXTREMES)]
    if choice == "near-miss":
        return _near_miss(old) if isinstance(old, str) else old
    if choice == "wrong-type":
        return {str: 7, bool: "yes", int: "7", float: "7.5", list: {"x": 1}, dict: [1]}.get(type(old), "?")
    return choice


def _near_miss(name: str) -> str:
    """A one-letter typo: the last letter doubled, or dropped."""
    return name + name[-1:] if len(name) < 3 else name[:-1]


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(v) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(map(_value, v)) + "]"
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)  # nan, inf, -inf
    if hasattr(v, "isoformat"):  # a date or time that mutation made
        return v.isoformat()
    return json.dumps(v, ensure_ascii=False)  # strings, booleans, integers (past 64 bits: a syntax error)


def document(doc: dict) -> bytes:
    """The document as TOML, one line per top-level key (its tables inline)."""
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in doc.items()).encode()
