"""Sweep descriptions for the fuzzer: a `[sweep]` table (axes over the scenario's own fields,
ranges written near and past their edges, skip expressions built from Python's grammar and from
the tokens that escape a sandbox), added to a bundled scenario.

Drawn by hypothesis from plain choices, so that shrinking makes a failing table smaller.
"""

from __future__ import annotations

from hypothesis import strategies as st

# numbers as a range's start, end or step may be written: ordinary, at the edges of Decimal and
# float, not numbers at all
NUMBERS = [
    "0",
    "1",
    "5",
    "-1",
    "0.1",
    "1e-9",
    "1e300",
    "1e999999999",
    "1e-999999999",
    "NaN",
    "Infinity",
    "-Infinity",
    "sNaN",
    "٣",
    "²",
    "1_000",
    "0x10",
    "",
    " ",
    "9" * 400,
]
UNITS = ["", "ms", "s", "ns", "kbps", "Mbps", "B", "KiB", "packets", "furlongs", "µs"]
STEPS = [
    "",
    "1",
    "0",
    "-1",
    "*2",
    "*1",
    "*0.5",
    "*NaN",
    "*Infinity",
    "*1e999999999",
    "log4",
    "log1",
    "log0",
    "log²",
    "log99999999",
    "log-3",
    "1ms",
    "1e-999999999",
]
# what a skip is made of: axis-like names, values, operators, and the pieces of an escape
SKIP_TOKENS = [
    "buffer",
    "window",
    "rate",
    "x",
    "True",
    "None",
    "1",
    "2.5",
    "'fq'",
    "'2Mbps'",
    "9",
    "**",
    "*",
    "+",
    "-",
    "/",
    "//",
    "%",
    "<",
    "<=",
    "==",
    "!=",
    "in",
    "not",
    "and",
    "or",
    "if",
    "else",
    "(",
    ")",
    "[",
    "]",
    ",",
    ".",
    "__class__",
    "__base__",
    "__subclasses__",
    "__import__",
    "'os'",
    "lambda",
    ":",
    "for",
    "abs",
    "min",
    "max",
    "len",
    "int",
    "float",
    "round",
    "open",
    "eval",
    "getattr",
    "f'{x}'",
    ":=",
    "~",
    "<<",
    "@",
    "'x' * 99999999",
]

# text TOML can hold (no lone surrogates), so that a description reaches fairsim, not TOML's parser
TEXT = st.characters(exclude_categories=("Cs",))

RANGE = st.builds(
    lambda a, ua, b, ub, step, su: f"{a}{ua}..{b}{ub}:{step}{su if step[:1] not in '*l' else ''}",
    st.sampled_from(NUMBERS),
    st.sampled_from(UNITS),
    st.sampled_from(NUMBERS),
    st.sampled_from(UNITS),
    st.sampled_from(STEPS),
    st.sampled_from(UNITS),
)
# what a user would write, so that many descriptions are valid and reach the points, the skips
# and the runs' resolution
PLAUSIBLE = st.sampled_from([[1, 2], [2, 5, 10], "1..4:1", "1..8:*2", "1..100:log3", ["10ms", "20ms"], "5"])
SCALAR = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.sampled_from(NUMBERS),
    st.text(TEXT, max_size=8),
    st.booleans(),
)
VALUES = st.one_of(
    PLAUSIBLE,
    PLAUSIBLE,
    RANGE,
    st.lists(SCALAR, max_size=5),
    SCALAR,
    st.sampled_from(["5..100", "1..2:", ":1", ".."]),
)
SKIP = st.lists(st.sampled_from(SKIP_TOKENS), min_size=1, max_size=12).map(" ".join)
PLAUSIBLE_SKIP = st.sampled_from(
    ["window > 5", "buffer < 3 and rate > '1Mbps'", "x == 1", "max(buffer, 2) == 2"]
)
SEEDS = st.one_of(
    st.integers(1, 3),
    st.integers(-1, 200_000),
    st.lists(st.integers(-1, 2**64), max_size=4),
    st.text(TEXT, max_size=3),
)


def sweep_table(fields: list[str], numeric: list[str]) -> st.SearchStrategy:
    """A `[sweep]` table: half the time one a user would write (an axis or two over `numeric`
    fields, plausible values, maybe a skip), which reaches the points, the skips and the runs;
    else a wild one over any of `fields` (dotted paths of the base scenario)."""
    plausible = st.builds(
        lambda axes, skip, seeds: {"axes": axes, **({"skip": skip} if skip else {}), **seeds},
        st.dictionaries(st.sampled_from(numeric), PLAUSIBLE, min_size=1, max_size=2),
        st.lists(PLAUSIBLE_SKIP | SKIP, max_size=1),
        st.sampled_from([{}, {"seeds": 2}, {"mode": "zip"}]),
    )
    return plausible | _wild_table(fields)


def _wild_table(fields: list[str]) -> st.SearchStrategy:
    field = st.sampled_from(fields) | st.sampled_from(fields) | st.text(TEXT, max_size=12)
    plain = st.dictionaries(field, VALUES, min_size=1, max_size=3)
    named = st.dictionaries(
        st.sampled_from(["buffer", "window", "rate", "flow", "x"]),
        st.fixed_dictionaries({"fields": st.lists(field, min_size=1, max_size=2), "values": VALUES}),
        max_size=1,
    )
    optional = {
        "mode": st.sampled_from(["product", "zip", "cartesian", 3]),
        "seeds": SEEDS,
        "pairs": st.lists(st.text(TEXT, max_size=6), max_size=2),
        "skip": st.lists(PLAUSIBLE_SKIP | SKIP, max_size=3),
        "jobs": st.just(2),  # not a key a sweep has
    }
    chosen = st.sets(st.sampled_from(["mode", "seeds", "seeds", "skip", "skip", "pairs", "jobs"]), max_size=2)
    return st.builds(
        lambda axes, extra, keys: {"axes": axes, **{k: v for k, v in extra.items() if k in keys}},
        st.builds(lambda a, b: {**a, **b}, plain, named),
        st.fixed_dictionaries(optional),
        chosen,
    )
