"""The interpreter mirrors the dialects: each op family module of `dialects/simt/` and
`dialects/tile/` has an interpreter module of the same name that implements every op defined
there (SIMT ops in the engine's op table, tile ops as xDSL implementations) (and nothing of another family), so an op's semantics are found where its definition is."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest
from xdsl.interpreter import InterpreterFunctions, _InterpreterFunctionImpls
from xdsl.ir import Operation

from ferrox.dialects import simt, tile
from ferrox.driver.interpreter import simt_ops, tile_ops
from ferrox.driver.interpreter.ops import FACTORIES

PAIRS = [(simt, simt_ops), (tile, tile_ops)]
ENTERED_BY_THE_LAUNCHER = {simt.KernelOp, simt.FuncOp, tile.KernelOp}
"""Symbols whose body the launcher (or `simt.call`) runs; they are never executed as ops."""


def _ops_defined_in(module: ModuleType) -> set[type[Operation]]:
    return {
        c
        for c in vars(module).values()
        if inspect.isclass(c)
        and issubclass(c, Operation)
        and c.__module__ == module.__name__
        and hasattr(c, "name")
        and isinstance(c.name, str)
    }


def _implemented_in(module: ModuleType) -> set[type[Operation]]:
    if module.__name__.startswith(simt_ops.__name__):  # the SIMT engine's op table
        return {t for t, f in FACTORIES.items() if f.__module__ == module.__name__}
    impls = _InterpreterFunctionImpls()
    for c in vars(module).values():
        if (
            inspect.isclass(c)
            and issubclass(c, InterpreterFunctions)
            and c.__module__ == module.__name__
        ):
            impls.register_from(c(), override=False)
    return set(impls._impl_dict)


def _families(dialect: ModuleType) -> list[str]:
    names = [m.name for m in pkgutil.iter_modules(dialect.__path__)]
    return [n for n in names if _ops_defined_in(importlib.import_module(f"{dialect.__name__}.{n}"))]


CASES = [(d, i, family) for d, i in PAIRS for family in _families(d)]


@pytest.mark.parametrize(
    ("dialect", "interpreter", "family"),
    CASES,
    ids=[f"{d.__name__.rsplit('.', 1)[-1]}.{f}" for d, _, f in CASES],
)
def test_each_op_family_has_its_interpreter_module(dialect, interpreter, family) -> None:
    ops = _ops_defined_in(importlib.import_module(f"{dialect.__name__}.{family}"))
    implemented = _implemented_in(importlib.import_module(f"{interpreter.__name__}.{family}"))
    # abstract bases (an op class other ops derive from) have no instances to run
    concrete = {op for op in ops if not any(o is not op and issubclass(o, op) for o in ops)}
    missing = concrete - implemented - ENTERED_BY_THE_LAUNCHER
    assert sorted(op.name for op in missing) == []
    assert sorted(op.name for op in implemented - ops) == []


def test_the_families_are_the_ones_the_lowering_has() -> None:
    assert _families(simt) == [
        "atomic",
        "ids",
        "index",
        "kernel",
        "memory",
        "pipeline",
        "shared",
        "specialize",
        "sync",
        "tile_support",
        "tma",
        "unsafe",
        "warp",
        "wgmma",
    ]
    assert _families(tile) == [
        "creation",
        "elementwise",
        "grid",
        "kernel",
        "matrix",
        "memory",
        "reduction",
        "shape",
    ]
