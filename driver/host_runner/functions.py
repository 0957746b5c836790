"""The host dialect's run-time semantics, as xDSL interpreter functions (one `@impl` per op).

Each implementation follows docs/dialects/host.md's run-time model and hands memory and kernels
to the interpreter's backend (`HostInterpreter.backend`). Every failure is a `HostRunError` at
the op, raised before the offending launch; launches already enqueued are unaffected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, SymbolRefAttr
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from ferrox.diagnostics import location_of
from ferrox.dialects import host
from ferrox.dialects.host.kernels import Role, role_of
from ferrox.driver.checker import LaunchError, check_launch
from ferrox.driver.host_runner import checks, creation
from ferrox.driver.host_runner.errors import HostRunError
from ferrox.driver.host_runner.prepare import check_prepare, check_same_args, described
from ferrox.driver.host_runner.scalars import scalar_value
from ferrox.driver.host_runner.values import (
    Partition,
    Prepared,
    Stream,
    dim3,
    resolve_shape,
)
from ferrox.driver.runtime.errors import NoTensorMap


def _kernel(op: Operation, symbol: SymbolRefAttr) -> Operation:
    found = SymbolTable.lookup_symbol(op, symbol)
    if found is None:  # the verifier rules this out; keep the message if it ever happens
        raise HostRunError(op, f"{symbol} does not name a kernel in this module")
    return found


def _shape(interp, op: Operation, result_type: host.TensorType, sizes: Sequence[SSAValue]):
    try:
        return resolve_shape(result_type, interp.get_values(sizes))
    except ValueError as e:
        raise HostRunError(op, str(e)) from None


def _bind_params(kernel: Operation, ins: Sequence[Any], outs: Sequence[Any]) -> list[Any]:
    """Launch operands in kernel-parameter order: outputs from `outs`, the rest from `ins`."""
    pending_in, pending_out = iter(ins), iter(outs)
    params = kernel.regions[0].blocks[0].arg_types
    return [next(pending_out if role_of(p) is Role.OUTPUT else pending_in) for p in params]


@register_impls
class HostFunctions(InterpreterFunctions):
    # -- scalars and creation ------------------------------------------------------------
    @impl(host.ParamOp)
    def run_param(self, interp, op: host.ParamOp, args: PythonValues):
        name = op.param_name.data
        t = op.result.type
        if name in interp.params:
            try:
                return (scalar_value(interp.params[name], t),)
            except (TypeError, ValueError) as e:
                raise HostRunError(op, f"parameter '{name}': {e}") from None
        default = op.default
        assert isinstance(default, IntegerAttr | FloatAttr)
        return (scalar_value(default.value.data, t),)

    @impl(host.ZerosOp)
    def run_zeros(self, interp, op: host.ZerosOp, args: PythonValues):
        t = op.result.type
        return (
            interp.make(
                op, creation.zeros(_shape(interp, op, t, op.dynamic_sizes), t.element_type)
            ),
        )

    @impl(host.FullOp)
    def run_full(self, interp, op: host.FullOp, args: PythonValues):
        t = op.result.type
        (value,) = interp.get_values((op.value,))
        shape = _shape(interp, op, t, op.dynamic_sizes)
        return (interp.make(op, creation.full(shape, value, t.element_type)),)

    @impl(host.ArangeOp)
    def run_arange(self, interp, op: host.ArangeOp, args: PythonValues):
        t = op.result.type
        shape = _shape(interp, op, t, op.dynamic_sizes)
        start, step = op.start.value.data, op.step.value.data
        return (interp.make(op, creation.arange(shape, start, step, t.element_type)),)

    @impl(host.RandomOp)
    def run_random(self, interp, op: host.RandomOp, args: PythonValues):
        t = op.result.type
        shape = _shape(interp, op, t, op.dynamic_sizes)
        data = creation.random(
            shape,
            op.distribution.data,
            op.low.value.data,
            op.high.value.data,
            op.seed.value.data,
            t.element_type,
        )
        return (interp.make(op, data),)

    @impl(host.PoisonOp)
    def run_poison(self, interp, op: host.PoisonOp, args: PythonValues):
        t = op.result.type
        return (
            interp.make(
                op, creation.poison(_shape(interp, op, t, op.dynamic_sizes), t.element_type)
            ),
        )

    @impl(host.FromArrayOp)
    def run_from_array(self, interp, op: host.FromArrayOp, args: PythonValues):
        return (interp.bind_array(op),)

    # -- streams and launches ------------------------------------------------------------
    @impl(host.StreamOp)
    def run_stream(self, interp, op: host.StreamOp, args: PythonValues):
        return (Stream(interp.call_backend(op, interp.backend.stream)),)

    @impl(host.SyncOnOp)
    def run_sync_on(self, interp, op: host.SyncOnOp, args: PythonValues):
        (stream,) = args
        interp.sync(op, stream)
        return ()

    @impl(host.PrepareOp)
    def run_prepare(self, interp, op: host.PrepareOp, args: PythonValues):
        kernel = _kernel(op, op.kernel)
        grid, block = interp.get_values(op.grid), interp.get_values(op.block)
        shared = interp.get_values((op.shared,))[0] if op.shared is not None else None
        values = interp.get_values(op.args)
        artifact = interp.artifact(op, kernel)
        backend = interp.backend
        try:
            return (
                check_prepare(
                    artifact, grid, block, shared, values, backend.describe, backend.limits
                ),
            )
        except LaunchError as e:
            notes = [(kernel, f"launch contract of {e.kernel} declared here")]
            raise HostRunError(
                op, [f"cannot prepare the launch of {e.kernel}: {p}" for p in e.problems], notes
            ) from None

    @impl(host.LaunchOp)
    def run_launch(self, interp, op: host.LaunchOp, args: PythonValues):
        kernel = _kernel(op, op.kernel)
        (prepared, stream) = interp.get_values((op.prepared, op.stream))
        assert isinstance(prepared, Prepared)
        outs = interp.get_values(op.outs)
        values = _bind_params(kernel, interp.get_values(op.ins), outs)
        artifact = interp.artifact(op, kernel)
        if problems := check_same_args(artifact, prepared, values, interp.backend.describe):
            raise HostRunError(op, problems)
        interp.launch(op, kernel, prepared.grid, prepared.block, prepared.shared, values, stream)
        return tuple(t.given_back() for t in outs)

    @impl(host.UnsafeLaunchOp)
    def run_unsafe_launch(self, interp, op: host.UnsafeLaunchOp, args: PythonValues):
        kernel = _kernel(op, op.kernel)
        try:
            grid = dim3(interp.get_values(op.grid), "grid")
            block = dim3(interp.get_values(op.block), "block")
        except ValueError as e:
            raise HostRunError(op, str(e)) from None
        shared = int(interp.get_values((op.shared,))[0]) if op.shared is not None else 0
        (stream,) = interp.get_values((op.stream,))
        outs = interp.get_values(op.outs)
        values = _bind_params(kernel, interp.get_values(op.ins), outs)
        interp.launch(op, kernel, grid, block, shared, values, stream)
        return tuple(t.given_back() for t in outs)

    # -- the tile track ------------------------------------------------------------------
    @impl(host.PartitionOp)
    def run_partition(self, interp, op: host.PartitionOp, args: PythonValues):
        (tensor,) = args
        return (Partition(tensor.given_back(), op.result.type.get_tile()),)

    @impl(host.UnpartitionOp)
    def run_unpartition(self, interp, op: host.UnpartitionOp, args: PythonValues):
        (partition,) = args
        return (partition.tensor.given_back(),)

    @impl(host.TileLaunchOp)
    def run_tile_launch(self, interp, op: host.TileLaunchOp, args: PythonValues):
        kernel = _kernel(op, op.kernel)
        (stream,) = interp.get_values((op.stream,))
        outs: Sequence[Partition] = interp.get_values(op.outs)
        values = _bind_params(kernel, interp.get_values(op.ins), outs)
        artifact = interp.artifact(op, kernel)
        backend = interp.backend

        def checked(artifact):  # the grid is the first output partition's tile grid, as on the GPU
            try:
                return check_launch(
                    artifact, None, None, None, described(values, backend.describe), backend.limits
                )
            except LaunchError as e:
                problems = [f"cannot launch {e.kernel}: {p}" for p in e.problems]
                raise HostRunError(op, problems) from None

        try:
            interp.tile_launch(op, kernel, checked(artifact), values, stream)
        except NoTensorMap as e:  # no TMA map fits these tensors: the portable twin runs instead
            twin = interp.portable(op, artifact, e)
            interp.tile_launch(op, kernel, checked(twin), values, stream, twin)
        return tuple(Partition(p.tensor.given_back(), p.tile) for p in outs)

    # -- host reads ----------------------------------------------------------------------
    @impl(host.CheckOp)
    def run_check(self, interp, op: host.CheckOp, args: PythonValues):
        (actual,) = interp.get_values((op.actual,))
        got = interp.read(op, actual)
        name = op.actual.name_hint or f"#{len(interp.checks)}"
        rtol, atol = op.tolerance()
        where = location_of(op)
        if op.reference is not None:
            (ref,) = interp.get_values((op.reference,))
            expected: Any = interp.read(op, ref)
        else:
            assert op.formula is not None
            bound = {
                n: interp.read(op, v)
                for n, v in zip((s.data for s in op.names.data), interp.get_values(op.inputs))
            }
            try:
                expected = checks.evaluate(op.formula.data, bound)
            except checks.FormulaError as e:
                result = checks.CheckResult(name, where, False, f'formula "{op.formula.data}": {e}')
                interp.record(result)
                return ()
        interp.record(checks.compare(name, where, got, expected, rtol, atol))
        return ()

    @impl(host.PrintOp)
    def run_print(self, interp, op: host.PrintOp, args: PythonValues):
        (value,) = args
        shown = interp.read(op, value)
        text = np.array2string(shown) if isinstance(shown, np.ndarray) else str(shown)
        label = op.label.data if op.label is not None else f"%{op.value.name_hint or 'value'} = "
        interp.emit(f"{label}{text}")
        return ()
