"""Skip expressions are read by fairsim's own small evaluator (sweeps/expressions.py), never run
as Python: what reaches code is refused when the description is read, with its place; what
would compute for ever is refused too; every documented form still works."""

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsim.sweeps import SweepError, make_sweep_plan
from fairsim.sweeps.expressions import Expression, ExpressionError
from fairsim.sweeps.spec import from_table

from conftest import SMALL

ESCAPES = [
    ("().__class__.__base__.__subclasses__()", "calling anything but a function by name"),
    ("__import__('os').system('touch pwned')", "calling anything but a function by name"),
    ("__import__", "no axis `__import__`"),
    ("out_buffer.__class__", "attribute access"),
    ("out_buffer.real > 1", "attribute access"),
    ("[c for c in ().__class__.__mro__]", "a comprehension"),
    ("(lambda: 1)()", "calling anything but a function by name"),
    ("open('/etc/passwd')", "calling `open`"),
    ("eval('1')", "calling `eval`"),
    ("getattr(out_buffer, 'real')", "calling `getattr`"),
    ("max.__self__", "attribute access"),
    ("'abc'[0] == 'a'", "subscripting"),
    ("f'{out_buffer}'", "an f-string"),
    ("(x := 1)", "assignment"),
    ("max(*[1, 2])", "plain arguments"),
    ("9**9**9**9", "larger than a skip computes"),
    ("out_buffer < 2**100000", "larger than a skip computes"),
    ("'x' * 10**9 == out_buffer", "longer than"),
    ("out_buffer >> 1", "the operator `>>`"),
    ("out_buffer is None", "the comparison `is`"),
    ("(" * 5000 + "1" + ")" * 5000, "longer than 2000 characters"),
]


@pytest.mark.parametrize("text, message", ESCAPES)
def test_code_and_unbounded_work_are_refused_where_written(small_path, text, message):
    with pytest.raises(SweepError, match=r"skip\[0\]: .*" + _escaped(message)):
        make_sweep_plan(small_path, axes={"links.out.buffer": [5, 10]}, skip=[text])


def _escaped(message: str) -> str:
    import re

    return re.escape(message)


def test_a_hostile_skip_in_a_file_runs_nothing_and_names_its_line(tmp_path):
    pwned = tmp_path / "pwned"
    bad = tmp_path / "mailed.toml"
    bad.write_text(
        SMALL
        + f"\n[sweep]\nskip = [\"().__class__.__base__.__subclasses__()[0]('touch {pwned}')\"]\n"
        + '[sweep.axes]\n"links.out.buffer" = [5, 10]\n'
    )
    r = subprocess.run(
        [sys.executable, "-m", "fairsim.cli", "sweep", str(bad), "--dry-run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2, r.stderr
    line = SMALL.count("\n") + 3
    assert f"mailed.toml:{line}:" in r.stderr and "sweep.skip" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not pwned.exists()


def test_a_hostile_skip_on_the_command_line_is_named_as_typed(small_path, tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fairsim.cli",
            "sweep",
            str(small_path),
            "--dry-run",
            "--axis",
            "links.out.buffer=5,10",
            "--skip",
            "out_buffer.__class__",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "--skip 'out_buffer.__class__'" in r.stderr, r.stderr
    assert "attribute access" in r.stderr


@pytest.mark.parametrize(
    "text, kept",
    [
        ("out_buffer < window", [(5, 5), (10, 5), (10, 10)]),
        ("out_buffer > 8 and window < 6", [(5, 5), (5, 10), (10, 10)]),
        ("not (out_buffer == 5 or window == 10)", [(5, 5), (5, 10), (10, 10)]),
        ("out_buffer in (5, 7) and window in [10]", [(5, 5), (10, 5), (10, 10)]),
        ("out_buffer not in (5,)", [(5, 5), (5, 10)]),
        ("abs(out_buffer - window) > 2", [(5, 5), (10, 10)]),
        ("min(out_buffer, window) == 10 or max(out_buffer, window) < 6", [(5, 10), (10, 5)]),
        (
            "round(out_buffer / 3) == 3 and int(window) == 5 and float(window) == 5.0",
            [(5, 5), (5, 10), (10, 10)],
        ),
        ("out_buffer * 2 + window // 5 - window % 3 ** 1 >= 21", [(5, 5), (5, 10), (10, 5)]),
        ("5 < out_buffer <= 10 and window != 10", [(5, 5), (5, 10), (10, 10)]),
        ("len('ab') == 2 and (out_buffer if window == 5 else 0) == 10", [(5, 5), (5, 10), (10, 10)]),
        ("True if out_buffer == window else False", [(5, 10), (10, 5)]),
    ],
)
def test_every_documented_form_works(small_path, text, kept):
    plan = make_sweep_plan(
        small_path, axes={"links.out.buffer": [5, 10], "flows.ftp.window": [5, 10]}, skip=[text]
    )
    points = [(p.columns(plan.axes)["out_buffer"], p.columns(plan.axes)["window"]) for p in plan.points]
    assert points == kept


def test_strings_with_units_are_numbers_in_base_units(small_path):
    plan = make_sweep_plan(
        small_path,
        axes={"links.out.rate": ["56kbps", "1Mbps", "2Mbps"], "links.out.delay": ["5ms", "20ms"]},
        skip=['rate >= "1Mbps" and delay > "10ms"', "rate == '56 kbps'"],
    )
    assert [p.columns(plan.axes)["rate"] for p in plan.points] == [1e6, 2e6]
    assert [p.columns(plan.axes)["delay"] for p in plan.points] == [0.005, 0.005]


def test_string_axes_compare_as_strings(small_path):
    plan = make_sweep_plan(
        small_path,
        axes={"disc": {"fields": ['pairs."G/FCFS".qdisc'], "values": ["fcfs", "fq", "drr"]}},
        skip=["disc == 'fq'"],
    )
    assert [p.columns(plan.axes)["disc"] for p in plan.points] == ["fcfs", "drr"]


def test_a_python_function_is_the_callers_own_code_and_is_called(small_path):
    seen = []

    def skip(point):
        seen.append(point["out_buffer"])
        return point["out_buffer"] > 5

    plan = make_sweep_plan(small_path, axes={"links.out.buffer": [5, 10]}, skip=[skip])
    assert seen == [5, 10] and len(plan.points) == 1


def test_a_skip_failing_at_a_point_says_where(small_path):
    with pytest.raises(
        SweepError, match=r"`out_buffer / \(out_buffer - 5\) > 1` fails: ZeroDivisionError.*out_buffer=5"
    ):
        make_sweep_plan(
            small_path, axes={"links.out.buffer": [5, 10]}, skip=["out_buffer / (out_buffer - 5) > 1"]
        )


def test_a_file_skip_is_located_by_line_and_column(tmp_path):
    text = (
        SMALL + '\n[sweep]\nskip = ["out_buffer > 3", "window.x"]\n[sweep.axes]\n"links.out.buffer" = [5]\n'
    )
    import tomllib

    with pytest.raises(
        SweepError, match=r"s.toml:\d+:\d+: sweep.skip.1: `window.x`: attribute access .* \(at character 1\)"
    ):
        from_table(tomllib.loads(text)["sweep"], text, "s.toml")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_is_an_expression_or_refused_never_anything_else(text):
    try:
        e = Expression(text)
    except ExpressionError:
        return
    try:
        e({name: 3 for name in e.names})
    except (ArithmeticError, TypeError, ValueError, KeyError):
        pass


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.integers(-10, 10).map(str) | st.sampled_from(["a", "'s'", "2.5"]),
        lambda inner: st.tuples(
            inner, st.sampled_from(["**", "*", "+", "-", "//", "%", "/", "<", "and"]), inner
        ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        max_leaves=12,
    )
)
def test_arithmetic_is_bounded(text):
    try:
        e = Expression(text)
        e({"a": 7})
    except (ExpressionError, ArithmeticError, TypeError, ValueError):
        pass
