"""`host.check` at run time: a result against a reference tensor or a NumPy formula.

A formula is a Python expression evaluated as docs/dialects/host.md says,
`eval(formula, {"__builtins__": {}, "np": numpy, **bound})` (with only NumPy's own lazy imports
allowed, which array methods need), after a syntactic screen: no
attribute starting with `_` (no way to `__class__` out of the namespace) and none of NumPy's
file or library loaders. The screen is against accidents in a program you run, not a sandbox
for programs you do not trust.

The check passes when the expected value has the result's shape and
`np.allclose(actual, expected, rtol, atol, equal_nan=False)` holds, so an element left poisoned
(NaN) fails. Each result prints one line: `check <name>: ok (max abs err ...)` or
`check <name>: FAILED (...)`, with how many elements differ and the first of them.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ferrox.diagnostics import SourceLoc

REFUSED = frozenset(
    {
        "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
        "fromfile", "tofile", "memmap", "fromregex", "ctypeslib", "lib", "DataSource",
        "dump", "dumps", "testing", "f2py", "distutils", "show_config", "show_runtime",
    }
)  # fmt: skip


class FormulaError(ValueError):
    """A formula that the screen refuses or that fails to evaluate."""


def screen(formula: str) -> ast.Expression:
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError as e:
        raise FormulaError(f"not a Python expression: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise FormulaError(f"attribute '{node.attr}' is not allowed in a check formula")
            if node.attr in REFUSED:
                raise FormulaError(f"'{node.attr}' is not allowed in a check formula")
        elif isinstance(node, ast.Name) and node.id.startswith("__"):
            raise FormulaError(f"name '{node.id}' is not allowed in a check formula")
        elif isinstance(node, ast.Lambda | ast.NamedExpr):
            raise FormulaError("lambdas and assignments are not allowed in a check formula")
    return tree


def evaluate(formula: str, bound: Mapping[str, Any]) -> Any:
    """The formula's value over `np` and the bound names; `FormulaError` if it cannot be had."""
    code = compile(screen(formula), "<check formula>", "eval")
    namespace = {"__builtins__": {"__import__": _numpy_import}, "np": np, **bound}
    try:
        with np.errstate(all="ignore"):
            return eval(code, namespace)  # noqa: S307 - the screened, builtin-free namespace above
    except Exception as e:
        raise FormulaError(f"{type(e).__name__}: {e}") from None


def _numpy_import(name: str, *args: Any, **kwargs: Any) -> Any:
    """The one import a formula's code may reach: NumPy's own, which array methods make lazily
    (`x.sum(axis=0)` imports part of NumPy on first use; with no `__import__` at all it failed
    with `KeyError: '__import__'`). Anything else is refused."""
    if name != "numpy" and not name.startswith("numpy."):
        raise ImportError(f"a check formula may not import {name!r}")
    return __import__(name, *args, **kwargs)


@dataclass(frozen=True)
class CheckResult:
    """One `host.check`: its name (the checked value's), where it is, and how it went."""

    name: str
    location: SourceLoc
    ok: bool
    detail: str
    max_abs_err: float | None = None
    mismatches: int = 0

    def line(self) -> str:
        return f"check {self.name}: {'ok' if self.ok else 'FAILED'} ({self.detail})"


def _fmt(v: Any) -> str:
    if isinstance(v, float | np.floating):
        return f"{float(v):.7g}"
    return str(v.item() if isinstance(v, np.generic) else v)


def compare(
    name: str,
    location: SourceLoc,
    actual: np.ndarray,
    expected: Any,
    rtol: float,
    atol: float,
) -> CheckResult:
    """`actual` against `expected` as `np.allclose` would judge it, element by element."""
    try:
        want = np.asarray(expected)
    except Exception as e:  # a formula may build anything
        return CheckResult(name, location, False, f"expected value is not an array: {e}")
    if want.shape != actual.shape:
        return CheckResult(
            name, location, False,
            f"expected shape {list(want.shape)}, but the result has shape {list(actual.shape)}",
        )  # fmt: skip
    if actual.size == 0:
        return CheckResult(name, location, True, "empty", 0.0)
    exact = actual.dtype.kind in "iub" and want.dtype.kind in "iub"
    if exact and rtol == 0 and atol == 0:
        good = actual == want
        err = np.abs(actual.astype(np.float64) - want.astype(np.float64))
    else:
        try:
            a, e = actual.astype(np.float64), want.astype(np.float64)
        except (TypeError, ValueError) as exc:
            return CheckResult(name, location, False, f"expected value is not numeric: {exc}")
        with np.errstate(invalid="ignore"):
            err = np.abs(a - e)
            good = err <= atol + rtol * np.abs(e)
    bad = int(good.size - np.count_nonzero(good))
    max_err = float(np.max(err)) if not np.isnan(err).any() else float("nan")
    tol = "exact" if exact and rtol == 0 and atol == 0 else f"rtol {rtol:g}, atol {atol:g}"
    if bad == 0:
        return CheckResult(name, location, True, f"max abs err {max_err:.3g}, {tol}", max_err)
    first = np.unravel_index(int(np.argmin(good.reshape(-1))), good.shape)
    at = list(int(i) for i in first)
    detail = (
        f"{bad} of {good.size} elements differ, max abs err {max_err:.3g}, {tol}; "
        f"first at {at}: got {_fmt(actual[first])}, expected {_fmt(want[first])}"
    )
    return CheckResult(name, location, False, detail, max_err, bad)
