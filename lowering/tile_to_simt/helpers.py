"""Device functions the tile lowering shares between the chunks of a module (`simt.func`).

A masked tile load reads each chunk with `simt.load_chunk`, and a GEMM's pipelined copies are
`simt.async_copy`s; `convert-simt-to-nvvm` expands every one into its range trap, its vector
access and its guarded scalar fallback: 45 to 65 ops each, which every later stage (cse,
convert-to-llvm, the export) handles again. So such an op is emitted as a `simt.call` of one
function per op kind and signature (operand and result types, properties) of the module, whose
body is the op on the function's arguments: its expansion is made once a module, whatever the
number of chunks. A function called once saves nothing; its call becomes the op again.

A `simt.async_copy` function is internal and `alwaysinline`: LLVM puts the body back at every
call before it optimises anything (the PTX is what the op inline gives, docs/performance.md,
"Tile compile (H5)"). A `simt.load_chunk` one is inlined late instead (`LATE_INLINE`): it is
`noinline` through LLVM's optimisation, so LLVM optimises its body once, not once a call, and
the LLVM worker (`targets/llvm_worker.py`) inlines it into every caller after that, before
code generation: the PTX has no call. On layernorm that cut LLVM's work by a sixth (docs/
performance.md, "Tile compile latency, seventh session").

`simt.async_copy` is allowed only in unsafe code (its shared side is unchecked): its function is
an `unsafe` one, called from the unsafe region the lowering put the copy in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, FunctionType, IntegerAttr, LocationAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.rewriter import Rewriter

from ferrox.dialects import simt

SHARED_OPS: tuple[type[Operation], ...] = (simt.LoadChunkOp, simt.AsyncCopyOp)
"""The ops `Lowering.emit` routes through a shared function."""

_UNSAFE_ONLY: tuple[type[Operation], ...] = (simt.AsyncCopyOp,)

LATE_INLINE = "ferrox-inline-late"
"""The LLVM function attribute (a string one) of a function that the LLVM worker inlines into
every caller after optimising the module, before code generation; it is `noinline` until then."""


@dataclass
class _Helper:
    func: simt.FuncOp
    calls: list[simt.CallOp] = field(default_factory=list[simt.CallOp])


@dataclass
class Helpers:
    """The shared functions made so far for one module, by signature, with their calls
    (`settle` gives those `convert.py` inserts)."""

    helpers: dict[tuple, _Helper] = field(default_factory=dict[tuple, _Helper])
    names: set[str] = field(default_factory=set[str])

    def call(self, op: Operation, location: LocationAttr | None = None) -> simt.CallOp:
        """The call that does what `op` (one of `SHARED_OPS`, not yet inserted) does; a new
        function's ops get `location` (the tile op the first such op lowers)."""
        operands = list(op.operands)
        results = [r.type for r in op.results]
        key = (
            type(op),
            tuple(v.type for v in operands),
            tuple(results),
            tuple(sorted(op.properties.items())),
            tuple(sorted(op.attributes.items())),
        )
        helper = self.helpers.get(key)
        if helper is None:
            helper = self.helpers[key] = _Helper(self._function(op, key, location))
        op.drop_all_references()
        call = simt.CallOp(helper.func.sym_name.data, operands, results)
        helper.calls.append(call)
        return call

    def settle(self) -> list[simt.FuncOp]:
        """The functions to insert: those called more than once (the others' calls become
        their body's op again)."""
        shared = []
        for helper in self.helpers.values():
            if len(helper.calls) > 1:
                shared.append(helper.func)
                continue
            (call,) = helper.calls
            body = helper.func.body.block.first_op
            assert body is not None
            mapping = dict(zip(helper.func.body.block.args, call.arguments))
            op = body.clone(value_mapper=mapping)  # type: ignore[arg-type]
            Rewriter.replace_op(call, op)
        return shared

    def _function(self, op: Operation, key: tuple, location: LocationAttr | None) -> simt.FuncOp:
        types = list(key[1])
        block = Block(arg_types=types)
        defs = type(op).get_irdl_definition().operands  # type: ignore[attr-defined]
        for arg, (field_name, _) in zip(block.args, defs):
            arg.name_hint = field_name
        body = type(op).create(
            operands=list(block.args),
            result_types=list(key[2]),
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        ret = simt.ReturnOp(list(body.results))
        fn_ops = [body, ret]
        if location is not None:  # a later stage's report points at the first such tile op
            for o in fn_ops:
                o.location = location
        block.add_ops(fn_ops)
        name = self._name(op, types)
        fn = simt.FuncOp(
            name,
            FunctionType.from_lists(types, list(key[2])),
            unsafe=isinstance(op, _UNSAFE_ONLY),
            body=Region(block),
        )
        if location is not None:
            fn.location = location
        inlining = ("alwaysinline",) if isinstance(op, _UNSAFE_ONLY) else ("noinline", LATE_INLINE)
        fn.attributes["passthrough"] = ArrayAttr([StringAttr(a) for a in inlining])
        return fn

    def _name(self, op: Operation, types: list[Attribute]) -> str:
        """`__ferrox_<op>_<first operand's type>_x<width>` (a prefix no source uses), made
        unique, valid in PTX."""
        width = op.properties.get("width")
        w = width.value.data if isinstance(width, IntegerAttr) else len(op.results)
        kind = re.sub(r"[^A-Za-z0-9]+", "_", str(types[0]).replace("!simt.", "")).strip("_")
        base = f"__ferrox_{op.name.removeprefix('simt.')}_{kind}_x{w}"
        name, n = base, 0
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name


__all__ = ["LATE_INLINE", "SHARED_OPS", "Helpers"]
