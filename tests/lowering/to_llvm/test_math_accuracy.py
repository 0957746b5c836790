"""The f32 math approximations meet the error bounds docs/lowering-math.md states.

Each math op is lowered by `convert-to-llvm` and the resulting llvm ops are evaluated with NumPy
in f32. The PTX instructions are modelled by their documented bounds (PTX ISA 9.7.3): the
correctly rounded value moved by up to the bound, with the sign of the move drawn per element and
per instruction (and all +, all -), so the test checks that the bounds compose as the doc says.
The bounds and domains are read from the doc's table, so the doc and the test cannot drift apart.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, llvm
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    f16,
    f32,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from ferrox.lowering.to_llvm import convert_to_llvm

DOC = Path(__file__).resolve().parents[3] / "docs" / "lowering-math.md"

# -- the instruction models (PTX ISA 9.7.3.16-22) -----------------------------------------------


def _ulp(x: np.ndarray) -> np.ndarray:
    return np.spacing(np.abs(x).astype(np.float32)).astype(np.float64)


def _ex2(x, s):
    exact = np.exp2(x.astype(np.float64))
    cr = exact.astype(np.float32).astype(np.float64)
    moved = cr + s * 2 * _ulp(cr)  # 2 ulp from the correctly rounded result
    return np.where(np.isfinite(cr), moved, cr).astype(np.float32)


def _lg2(x, s):
    x64 = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = np.log2(x64)
    inner = (x64 > 0.5) & (x64 < 2)
    moved = np.where(inner, exact + s * 2.0**-22, exact * (1 + s * 2.0**-22))
    return np.where(np.isfinite(exact), moved, exact).astype(np.float32)


def _rsqrt(x, s):
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = 1 / np.sqrt(x.astype(np.float64))
    return (exact * (1 + s * 2.0**-22.9)).astype(np.float32)


def _trig(fn):
    def model(x, s):
        x64 = x.astype(np.float64)
        assert np.all(np.abs(x64[np.isfinite(x64)]) <= 2 * np.pi), "argument not reduced"
        return (fn(x64) + s * 2.0**-20.5).astype(np.float32)

    return model


def _tanh(x, s):
    return (np.tanh(x.astype(np.float64)) * (1 + s * 2.0**-11)).astype(np.float32)


INSTRUCTIONS = {
    "llvm.nvvm.ex2.approx.f32": _ex2,
    "llvm.nvvm.lg2.approx.f": _lg2,
    "llvm.nvvm.rsqrt.approx.f": _rsqrt,
    "llvm.nvvm.sin.approx.f": _trig(np.sin),
    "llvm.nvvm.cos.approx.f": _trig(np.cos),
    "llvm.nvvm.tanh.approx.f32": _tanh,
}

# -- evaluating lowered llvm ops ----------------------------------------------------------------


def _fma(a, b, c):
    # the f64 product of two f32 is exact; one f64 and one f32 rounding stand in for fma's one
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


FCMP = {
    "oeq": lambda a, b: a == b,
    "olt": lambda a, b: a < b,
    "une": lambda a, b: ~(a == b),
}
BINARY = {
    "llvm.fadd": np.add,
    "llvm.fsub": np.subtract,
    "llvm.fmul": np.multiply,
    "llvm.fdiv": np.divide,
    "llvm.intr.maxnum": np.fmax,
    "llvm.intr.copysign": np.copysign,
    "llvm.and": np.logical_and,
    "llvm.or": np.logical_or,
    "llvm.xor": np.logical_xor,
}
NUMPY_TYPES = {f32: np.float32, f16: np.float16}


def evaluate(fn: llvm.FuncOp, args: list[np.ndarray], sign) -> np.ndarray:
    """Run the single block of `fn` on arrays; `sign(n)` gives each instruction's error signs."""
    env: dict[SSAValue, np.ndarray] = dict(zip(fn.body.blocks[0].args, args))
    n = args[0].shape[0]
    with np.errstate(all="ignore"):
        for op in fn.body.blocks[0].ops:
            v = [env[o] for o in op.operands]
            match op:
                case llvm.ReturnOp():
                    return v[0]
                case llvm.ConstantOp():
                    value = op.value
                    assert isinstance(value, FloatAttr | IntegerAttr)
                    if isinstance(value, IntegerAttr):
                        out = np.full(n, bool(value.value.data))
                    else:
                        out = np.full(n, value.value.data, NUMPY_TYPES[op.result.type])
                case llvm.CallIntrinsicOp():
                    out = INSTRUCTIONS[op.intrin.data](v[0], sign(n))
                case llvm.FMAOp():
                    out = _fma(*v)
                case llvm.FNegOp():
                    out = -v[0]
                case llvm.FAbsOp():
                    out = np.abs(v[0])
                case llvm.FCmpOp():
                    flag = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data)
                    out = FCMP[flag.value](*v)
                case llvm.SelectOp():
                    out = np.where(*v)
                case llvm.FPExtOp() | llvm.FPTruncOp():
                    out = v[0].astype(NUMPY_TYPES[op.results[0].type])
                case _ if op.name == "llvm.intr.roundeven":
                    out = np.rint(v[0])
                case _ if op.name in BINARY:
                    out = BINARY[op.name](*v)
                case _:
                    raise AssertionError(f"evaluator has no model of {op.name}")
            env[op.results[0]] = out
    raise AssertionError("no llvm.return")


def lowered(op_name: str, t: Attribute = f32) -> llvm.FuncOp:
    """`func.func @f(x[, y]) { return math.<op>(x[, y]) }` after convert-to-llvm."""
    cls = next(c for c in vars(xmath).values() if getattr(c, "name", None) == op_name)
    arity = 2 if op_name == "math.powf" else 1
    block = Block(arg_types=[t] * arity)
    math_op = cls(*block.args)
    block.add_ops([math_op, func.ReturnOp(math_op.results[0])])
    module = ModuleOp([func.FuncOp("f", ([t] * arity, [t]), Region(block))])
    convert_to_llvm(module)
    (fn,) = module.ops
    assert isinstance(fn, llvm.FuncOp)
    return fn


# -- the documented bounds ----------------------------------------------------------------------

ROW = re.compile(r"^\|\s*`(math\.\w+)`\s*\|\s*(f16|f32)\s*\|([^|]+)\|([^|]+)\|")
INTERVAL = re.compile(r"([\[(])\s*([^,\[\]()]+?)\s*,\s*([^,\[\]()]+?)\s*([\])])")
BOUND = re.compile(r"^\s*(?:(\d+(?:\.\d+)?) ulp|(abs|rel) 2\^(-?\d+(?:\.\d+)?))\s*$")


def _number(text: str) -> float:
    text = text.strip().replace("−", "-")
    if "^" in text:
        sign = -1.0 if text.startswith("-") else 1.0
        base, exponent = text.lstrip("-").split("^")
        return sign * float(base) ** float(exponent)
    return float(text)


Interval = tuple[float, float, bool, bool]
"""(low, high, open, integral): a domain for one argument."""


def documented_bounds() -> list[tuple[str, str, list[Interval], str, float]]:
    """(op, type, argument domains, metric, bound) for each row of the doc's table."""
    rows = []
    for line in DOC.read_text().splitlines():
        m = ROW.match(line)
        if m is None:
            continue
        op, t, domain, bound = m.groups()
        parts = domain.split(";")
        intervals = []
        for part in parts:
            ((left, lo, hi, _),) = INTERVAL.findall(part)
            intervals.append((_number(lo), _number(hi), left == "(", "integral" in part))
        b = BOUND.match(bound.strip("` "))
        assert b is not None, f"unreadable bound {bound!r} in {line!r}"
        if b.group(1) is not None:
            rows.append((op, t, intervals, "ulp", float(b.group(1))))
        else:
            rows.append((op, t, intervals, b.group(2), 2.0 ** float(b.group(3))))
    return rows


REFERENCES = {
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.rsqrt": lambda x: 1 / np.sqrt(x),
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tanh": np.tanh,
    "math.powf": np.power,
    "math.erf": np.vectorize(math.erf, otypes=[np.float64]),
}
SAMPLES = 100_000


def sample(low: float, high: float, rng: np.random.Generator, dtype) -> np.ndarray:
    """Uniform over the interval, or log-uniform over a positive one spanning > 16x; ends kept."""
    if low > 0 and high / low > 16:
        x = np.exp2(rng.uniform(np.log2(low), np.log2(high), SAMPLES))
    else:
        x = rng.uniform(low, high, SAMPLES)
    x = np.concatenate([x, [low, high]]).astype(dtype)
    return x[(x >= low) & (x <= high)]


def measured_error(op: str, t: str, intervals, metric: str) -> float:
    """The worst error of the lowered `op` over `intervals`, under every instruction-error sign."""
    dtype = np.float32 if t == "f32" else np.float16
    fn = lowered(op, f32 if t == "f32" else f16)
    rng = np.random.default_rng(20260101)
    args = [sample(lo, hi, rng, dtype) for lo, hi, _, _ in intervals]
    n = min(len(a) for a in args)
    args = [a[:n] for a in args]
    args = [np.rint(a) if integral else a for a, (*_, integral) in zip(args, intervals)]
    keep = np.ones(n, bool)
    for a, (lo, hi, is_open, _) in zip(args, intervals):
        if is_open:
            keep &= (a > lo) & (a < hi)
    args = [a[keep] for a in args]
    with np.errstate(all="ignore"):
        exact = REFERENCES[op](*[a.astype(np.float64) for a in args])
    worst = 0.0
    for signs in ("+", "-", "0", "random"):
        draw = {
            "+": lambda k: np.ones(k),
            "-": lambda k: -np.ones(k),
            "0": lambda k: np.zeros(k),
            "random": lambda k: rng.choice([-1.0, 1.0], k),
        }[signs]
        y = evaluate(fn, list(args), draw).astype(np.float64)
        if metric == "ulp":
            error = np.abs(y - exact) / np.spacing(np.abs(exact).astype(dtype)).astype(np.float64)
        elif metric == "abs":
            error = np.abs(y - exact)
        else:
            error = np.abs(y - exact) / np.abs(exact)
        # NaN where the function is NaN is exact; NaN anywhere else is the worst error
        error = np.where(np.isnan(y) & np.isnan(exact), 0.0, error)
        worst = max(worst, float(np.max(np.where(np.isnan(error), np.inf, error))))
    return worst


BOUNDS = documented_bounds()


def test_the_doc_states_a_bound_for_every_approximated_function() -> None:
    from ferrox.lowering.to_llvm.math_approx import APPROXIMATIONS

    documented = {op for op, t, *_ in BOUNDS if t == "f32"}
    assert documented == set(APPROXIMATIONS), "docs/lowering-math.md and math_approx disagree"


@pytest.mark.parametrize(
    ("op", "t", "intervals", "metric", "bound"),
    BOUNDS,
    ids=[f"{op}-{t}-{i}" for i, (op, t, *_) in enumerate(BOUNDS)],
)
def test_documented_bound_holds_for_the_model(op, t, intervals, metric, bound) -> None:
    worst = measured_error(op, t, intervals, metric)
    assert worst <= bound, (
        f"{op} on {t}: {metric} error {worst:.4g} exceeds the documented {bound:.4g}"
    )


INF, NAN = np.inf, np.nan
SPECIAL_VALUES = [
    ("math.exp", [-INF], 0.0),
    ("math.exp", [INF], INF),
    ("math.exp", [NAN], NAN),
    ("math.exp", [0.0], 1.0),
    ("math.log", [0.0], -INF),
    ("math.log", [-1.0], NAN),
    ("math.log", [INF], INF),
    ("math.powf", [3.5, 0.0], 1.0),
    ("math.powf", [NAN, 0.0], 1.0),
    ("math.powf", [1.0, NAN], 1.0),
    ("math.powf", [-2.0, 3.0], -8.0),
    ("math.powf", [-2.0, 2.0], 4.0),
    ("math.powf", [-2.0, 0.5], NAN),
    ("math.powf", [0.0, -1.0], INF),
    ("math.powf", [0.0, 2.0], 0.0),
    ("math.erf", [INF], 1.0),
    ("math.erf", [-INF], -1.0),
    ("math.erf", [NAN], NAN),
    ("math.erf", [0.0], 0.0),
    ("math.tanh", [INF], 1.0),
    ("math.tanh", [-INF], -1.0),
    ("math.sin", [INF], NAN),
    ("math.cos", [0.0], 1.0),
]


@pytest.mark.parametrize(("op", "args", "expected"), SPECIAL_VALUES)
def test_special_values(op, args, expected) -> None:
    fn = lowered(op)
    # exactly representable results: the instructions' error is not needed, only their specials
    y = evaluate(fn, [np.array([a], np.float32) for a in args], np.zeros)[0]
    if np.isnan(expected):
        assert np.isnan(y)
    else:
        assert y == pytest.approx(expected, rel=2**-20)
