"""Every tile example's host program, run with its kernel on the reference interpreter.

`run_main` follows docs/dialects/host.md's run-time model for the ops the examples use: params
take their defaults (or an override), `host.random` draws with `numpy.random.default_rng(seed)`,
outputs start poisoned, partitions are views, and each `host.tile_launch` calls
`run_tile_kernel` with its operands in the kernel's parameter order. Each `host.check` formula is
evaluated on the same arrays and compared with `np.allclose` under the check's tolerance. The
generic host runner, `ferrox run --device cpu`, must pass each example too.
"""

from __future__ import annotations

from pathlib import Path

import in_process
import numpy as np
import pytest
from parsed_once import parse_once
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation

from ferrox.dialects import host, tile
from ferrox.dialects.host.creation import Distribution
from ferrox.driver.interpreter.tile_kernel import (
    find_tile_kernel,
    run_tile_kernel,
    tile_launch_args,
)
from ferrox.driver.interpreter.tile_ops.dtypes import round_to, tile_dtype
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tile"
KERNELS = ROOT / "tests" / "filecheck" / "dialects" / "tile" / "kernels.mlir"
NAMES = [
    "vector_add",
    "saxpy",
    "row_sum",
    "softmax",
    "layernorm",
    "transpose",
    "matmul_f32",
    "matmul_bf16",
    "attention",
]


def load(name: str) -> ModuleOp:
    path = EXAMPLES / f"{name}.mlir"
    module = parse_once(make_context(), path.read_text(), str(path))
    verify_module(module)
    return module


def _host_array(op: Operation, values: dict) -> np.ndarray:
    t = op.results[0].type
    assert isinstance(t, host.TensorType)
    sizes = iter(values[v] for v in op.operands)
    shape = tuple(next(sizes) if d < 0 else d for d in t.get_shape())
    element = t.element_type
    if isinstance(op, host.PoisonOp):
        return np.full(shape, np.nan, dtype=tile_dtype(element))
    assert isinstance(op, host.RandomOp)
    rng = np.random.default_rng(op.seed.value.data)
    low, high = op.low.value.data, op.high.value.data
    if op.distribution.data is Distribution.UNIFORM:
        drawn = rng.uniform(low, high, size=shape)
    else:
        drawn = rng.normal(low, high, size=shape)
    return round_to(element, drawn)  # cast to the element type (bf16: rounded once)


def run_main(module: ModuleOp, params: dict | None = None) -> list[tuple[str, bool, float]]:
    """Run `@main`; returns `(formula, passed, max abs error)` for each check."""
    params = params or {}
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    values: dict = {}
    checks = []
    for op in main.body.block.ops:
        if isinstance(op, host.ParamOp):
            default = op.default
            value = params.get(op.param_name.data, default.value.data)
            if isinstance(default, FloatAttr):
                value = tile_dtype(default.type).type(value)
            else:
                assert isinstance(default, IntegerAttr)
                value = int(value)
            values[op.result] = value
        elif isinstance(op, host.RandomOp | host.PoisonOp):
            values[op.result] = _host_array(op, values)
        elif isinstance(op, host.StreamOp):
            values[op.results[0]] = None
        elif isinstance(op, host.PartitionOp | host.UnpartitionOp):
            values[op.result] = values[op.source]  # a view of the same buffer
        elif isinstance(op, host.TileLaunchOp):
            kernel = find_tile_kernel(module, op.kernel.string_value())
            ins, outs = [values[v] for v in op.ins], [values[v] for v in op.outs]
            run_tile_kernel(module, op.kernel.string_value(), tile_launch_args(kernel, ins, outs))
            for new, old in zip(op.new_outs, outs):
                values[new] = old
        elif isinstance(op, host.SyncOnOp):
            pass  # the interpreter runs launches eagerly
        elif isinstance(op, host.CheckOp):
            assert op.formula is not None
            bound = {name: values[v] for name, v in op.bindings().items()}
            expected = np.asarray(eval(op.formula.data, {"__builtins__": {}, "np": np, **bound}))
            actual = values[op.actual]
            rtol, atol = op.tolerance()
            ok = expected.shape == actual.shape and bool(
                np.allclose(actual, expected, rtol=rtol, atol=atol)
            )
            err = (
                float(np.max(np.abs(actual.astype(np.float64) - expected)))
                if expected.shape == actual.shape
                else np.inf
            )
            checks.append((op.formula.data, ok, err))
        elif isinstance(op, func.ReturnOp):
            break
        else:
            raise AssertionError(f"the example uses {op.name}, which this test does not run")
    return checks


def test_the_set_is_complete():
    assert sorted(p.stem for p in EXAMPLES.glob("*.mlir")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_example_passes_its_checks_on_the_interpreter(name):
    module = load(name)
    checks = run_main(module)
    assert checks, "the example checks nothing"
    for formula, ok, err in checks:
        assert ok, f"{name}: check {formula!r} failed (max abs error {err})"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("vector_add", {"n": 1024, "ragged_n": 1}),
        ("saxpy", {"n": 1025, "alpha": -0.5}),
        ("row_sum", {"m": 17, "n": 129}),
        ("softmax", {"m": 5, "n": 1024}),
        ("layernorm", {"m": 4, "n": 3}),
        ("transpose", {"m": 65, "n": 33}),
        ("matmul_f32", {"m": 64, "n": 64, "k": 33}),
        ("matmul_bf16", {"m": 1, "n": 65, "k": 7}),
        ("attention", {"heads": 1, "seq": 129}),
    ],
)
def test_example_passes_with_other_sizes(name, params):
    for formula, ok, err in run_main(load(name), params):
        assert ok, f"{name} {params}: check {formula!r} failed (max abs error {err})"


def test_a_wrong_kernel_fails_its_check():
    """The checks have teeth: vector add turned into a subtraction fails."""
    text = (
        (EXAMPLES / "vector_add.mlir")
        .read_text()
        .replace("%sum = tile.add %a, %b", "%sum = tile.sub %a, %b")
    )
    module = parse_module(make_context(), text, "broken.mlir")
    assert [ok for _, ok, _ in run_main(module)] == [False, False]


def test_a_forgotten_store_leaves_poison_that_fails_the_check():
    text = (
        (EXAMPLES / "saxpy.mlir")
        .read_text()
        .replace(
            "    tile.store %r, %out : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>\n", ""
        )
    )
    module = parse_module(make_context(), text, "broken.mlir")
    assert [ok for _, ok, _ in run_main(module)] == [False]


@pytest.mark.parametrize("name", NAMES)
def test_example_kernel_is_the_one_in_kernels_mlir(name):
    tested = parse_once(make_context(), KERNELS.read_text(), str(KERNELS))
    ours = find_tile_kernel(load(name), name)
    theirs = find_tile_kernel(tested, name)
    assert str(ours) == str(theirs)
    assert [k.sym_name.data for k in load(name).walk() if isinstance(k, tile.KernelOp)] == [name]


@pytest.mark.parametrize("name", NAMES)
def test_example_passes_verify_ownership(name):
    proc = in_process.ferrox_opt(EXAMPLES / f"{name}.mlir", "-p", "verify-ownership")
    assert proc.returncode == 0, proc.stderr
    assert f"host.tile_launch @{name}" in proc.stdout


@pytest.mark.parametrize("name", NAMES)
def test_ferrox_run_on_the_cpu(name):
    proc = in_process.ferrox("run", EXAMPLES / f"{name}.mlir", "--device", "cpu")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAILED" not in proc.stdout
