"""Skip expressions: a small language over a sweep point's axis values, never Python's `eval`.

A skip expression comes from a scenario file or an option, that is from text someone else may
have written, so it is read by this module alone and can do nothing but compute a value from
the point. Python's `eval` with an emptied `__builtins__` is no sandbox (`().__class__` reaches
every class of the process), so the expression is parsed with `ast` and only the node types on
an allow-list are accepted; everything else is refused when the description is read, with the
place of the offending part.

What a skip may use (docs/sweeps.md, "Skip expressions"):

- the axes' names, numbers, strings, `True`, `False`, lists and tuples of those;
- a string with a unit stands for its number in base units, as the tables hold it:
  `rate < "2Mbps"` compares with 2e6, `delay >= "10ms"` with 0.01;
- comparisons (`<`, `<=`, `==`, `!=`, `>`, `>=`, chained), `in`, `not in`;
- `and`, `or`, `not`, `x if c else y`;
- arithmetic: `+`, `-`, `*`, `/`, `//`, `%`, `**`;
- the functions `abs`, `min`, `max`, `round`, `int`, `float`, `len`.

The work is bounded: an expression is at most `MOST_CHARACTERS` long, a power's result at most
`MOST_BITS` bits, a string at most `MOST_STRING` characters; past a bound the expression fails
with a message instead of running for ever.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from fairsim.sweeps.axes import parse_quantity

MOST_CHARACTERS = 2000
MOST_BITS = 4096
MOST_STRING = 10_000

FUNCTIONS: dict[str, Callable] = {
    "abs": abs,
    "min": min,
    "max": max,
    "round": round,
    "int": int,
    "float": float,
    "len": len,
}
ALLOWED = (
    'the axis names, numbers, strings ("2Mbps" is 2e6), comparisons, in, and, or, not, '
    "+ - * / // % **, and " + ", ".join(FUNCTIONS)
)


class ExpressionError(ValueError):
    """A skip expression that may not be used; the message says where in it, and why."""


class TooMuchWork(ArithmeticError):
    """A value past one of the bounds."""


Evaluate = Callable[[dict], Any]


class Expression:
    """A checked skip expression; call it with the point's axis values."""

    def __init__(self, text: str):
        if len(text) > MOST_CHARACTERS:
            raise ExpressionError(f"longer than {MOST_CHARACTERS} characters")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise ExpressionError(f"not an expression: {e.msg} (character {e.offset or 0})") from None
        except (RecursionError, MemoryError, ValueError):
            raise ExpressionError("too deeply nested, or not text") from None
        self.text = text
        #: The names it reads, to check against the axes once they are known.
        self.names: set[str] = set()
        self._reads = 0
        try:
            self._evaluate = self._compile(tree.body)
        except RecursionError:
            raise ExpressionError("too deeply nested") from None

    def __call__(self, values: dict) -> Any:
        try:
            return self._evaluate(values)
        except RecursionError:
            raise TooMuchWork("too deeply nested") from None

    def _compile(self, node: ast.AST) -> Evaluate:
        """The node's evaluator; a part that reads no axis is computed now, so that a value past
        the bounds (`9**9**9**9`) is refused when the expression is read."""
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise ExpressionError(f"{_describe(node)} is not allowed{_at(node)}; a skip uses {ALLOWED}")
        reads = self._reads
        evaluate = method(node)
        if self._reads != reads:
            return evaluate
        try:
            value = evaluate({})
        except TooMuchWork as e:
            raise ExpressionError(f"{e}{_at(node)}") from None
        except Exception:  # `1 + "a"`: fails at every point, with its message then
            return evaluate
        return lambda _values: value

    def _Constant(self, node: ast.Constant) -> Evaluate:
        value = node.value
        if isinstance(value, str):
            if len(value) > MOST_STRING:
                raise ExpressionError(f"a string longer than {MOST_STRING} characters{_at(node)}")
            q = parse_quantity(value)
            if q is not None and q.unit:
                value = float(q.base)
        elif not isinstance(value, (bool, int, float)) and value is not None:
            raise ExpressionError(f"{type(value).__name__} constants are not allowed{_at(node)}")
        return lambda _values: value

    def _Name(self, node: ast.Name) -> Evaluate:
        name = node.id
        self.names.add(name)
        self._reads += 1
        return lambda values: values[name]

    def _sequence(self, node: ast.Tuple | ast.List) -> Evaluate:
        items = [self._compile(e) for e in node.elts]
        return lambda values: tuple(f(values) for f in items)

    _Tuple = _List = _sequence

    def _BoolOp(self, node: ast.BoolOp) -> Evaluate:
        parts = [self._compile(v) for v in node.values]
        if isinstance(node.op, ast.And):

            def both(values):
                result = True
                for f in parts:
                    result = f(values)
                    if not result:
                        return result
                return result

            return both

        def either(values):
            result = False
            for f in parts:
                result = f(values)
                if result:
                    return result
            return result

        return either

    def _UnaryOp(self, node: ast.UnaryOp) -> Evaluate:
        ops = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
        op = ops.get(type(node.op))
        if op is None:
            raise ExpressionError(f"the operator `~` is not allowed{_at(node)}; a skip uses {ALLOWED}")
        operand = self._compile(node.operand)
        return lambda values: op(operand(values))

    def _BinOp(self, node: ast.BinOp) -> Evaluate:
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ExpressionError(
                f"the operator {_symbol(node.op)} is not allowed{_at(node)}; a skip uses {ALLOWED}"
            )
        left, right = self._compile(node.left), self._compile(node.right)
        return lambda values: op(left(values), right(values))

    def _Compare(self, node: ast.Compare) -> Evaluate:
        ops = []
        for o in node.ops:
            op = _COMPARISONS.get(type(o))
            if op is None:
                raise ExpressionError(f"the comparison {_symbol(o)} is not allowed{_at(node)}; use == or !=")
            ops.append(op)
        first = self._compile(node.left)
        rest = [self._compile(c) for c in node.comparators]

        def compare(values):
            left = first(values)
            for op, f in zip(ops, rest, strict=True):
                right = f(values)
                if not op(left, right):
                    return False
                left = right
            return True

        return compare

    def _IfExp(self, node: ast.IfExp) -> Evaluate:
        test, body, orelse = self._compile(node.test), self._compile(node.body), self._compile(node.orelse)
        return lambda values: body(values) if test(values) else orelse(values)

    def _Call(self, node: ast.Call) -> Evaluate:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            called = node.func.id if isinstance(node.func, ast.Name) else None
            what = f"calling `{called}`" if called else "calling anything but a function by name"
            raise ExpressionError(
                f"{what} is not allowed{_at(node)}; the functions a skip may call: {', '.join(FUNCTIONS)}"
            )
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"`{node.func.id}` takes plain arguments here{_at(node)}")
        function = FUNCTIONS[node.func.id]
        args = [self._compile(a) for a in node.args]

        def call(values):
            result = function(*(a(values) for a in args))
            return _bounded(result)

        return call


def _power(base: Any, exponent: Any) -> Any:
    """`**`, refused where an integer result would be larger than `MOST_BITS` bits
    (`9**9**9**9`); a float overflows at once, by itself."""
    whole = isinstance(base, int) and isinstance(exponent, int)
    if whole and exponent > 0 and abs(base) > 1 and (abs(base).bit_length() - 1) * exponent > MOST_BITS:
        raise TooMuchWork(f"{base} ** {exponent} is larger than a skip computes")
    return _bounded(operator.pow(base, exponent))


def _times(left: Any, right: Any) -> Any:
    """`*`, refused where a repeated string or list would be longer than `MOST_STRING`."""
    for seq, count in ((left, right), (right, left)):
        if isinstance(seq, (str, tuple)) and isinstance(count, int) and len(seq) * count > MOST_STRING:
            raise TooMuchWork(f"a string or list longer than {MOST_STRING} items")
    return _bounded(operator.mul(left, right))


def _bounded(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value.bit_length() > MOST_BITS:
        raise TooMuchWork(f"a number of more than {MOST_BITS} bits")
    if isinstance(value, (str, tuple)) and len(value) > MOST_STRING:
        raise TooMuchWork(f"a string or list longer than {MOST_STRING} items")
    return value


def _checked(op: Callable) -> Callable:
    return lambda left, right: _bounded(op(left, right))


_BINARY: dict[type, Callable] = {
    ast.Add: _checked(operator.add),
    ast.Sub: _checked(operator.sub),
    ast.Mult: _times,
    ast.Div: operator.truediv,
    ast.FloorDiv: _checked(operator.floordiv),
    ast.Mod: _checked(operator.mod),
    ast.Pow: _power,
}
_COMPARISONS: dict[type, Callable] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}
_SYMBOLS = {
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_KINDS = {
    "Attribute": "attribute access (`.name`)",
    "Subscript": "subscripting (`x[...]`)",
    "Lambda": "a lambda",
    "ListComp": "a comprehension",
    "SetComp": "a comprehension",
    "DictComp": "a comprehension",
    "GeneratorExp": "a generator",
    "NamedExpr": "assignment (`:=`)",
    "JoinedStr": "an f-string",
    "Starred": "unpacking (`*x`)",
    "Dict": "a dict",
    "Set": "a set",
    "Await": "`await`",
    "Yield": "`yield`",
    "YieldFrom": "`yield`",
    "Slice": "a slice",
}


def _symbol(op: ast.AST) -> str:
    return f"`{_SYMBOLS.get(type(op), type(op).__name__)}`"


def _describe(node: ast.AST) -> str:
    kind = type(node).__name__
    return _KINDS.get(kind, f"`{kind}`")


def _at(node: ast.AST) -> str:
    """Where in the expression: its 1-based character, as a reader counts."""
    offset = getattr(node, "col_offset", None)
    return f" (at character {offset + 1})" if offset is not None else ""
