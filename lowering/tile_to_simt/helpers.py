"""Device functions the tile lowering shares between the chunks of a module (`simt.func`).

A masked tile load reads each chunk with `simt.load_chunk`, and `convert-simt-to-nvvm` expands
every one into its range trap, its vector read and its guarded scalar reads: about 65 ops a
chunk, which every later stage (cse, convert-to-llvm, the export) handles again, for the path
that only ragged or misaligned tiles take. So a masked chunk is a `simt.call` of one function
per (slice type, element type, width) of the module, whose body is that `simt.load_chunk`:
the expansion is made once a module, whatever the number of chunks. The function is internal
(`simt.func`), and LLVM inlines it at every call (NVPTX's inlining threshold is eleven times
the usual one), so the PTX is the same code as before (docs/performance.md, "Tile compile").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, FunctionType, IndexType, StringAttr
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import Rewriter

from ferrox.dialects import simt
from ferrox.dialects.simt.types import DisjointSliceType


@dataclass
class Helpers:
    """The helper functions made so far for one module, by name, and their calls (`settle`
    gives those `convert.py` inserts)."""

    funcs: dict[str, simt.FuncOp] = field(default_factory=dict[str, simt.FuncOp])
    calls: dict[str, list[simt.CallOp]] = field(default_factory=dict[str, list[simt.CallOp]])

    def load_chunk(
        self, slice_: SSAValue, index: SSAValue, count: SSAValue, padding: SSAValue, width: int
    ) -> simt.CallOp:
        """The call that does `simt.load_chunk slice_[index], count, padding` of `width`."""
        element = padding.type
        name = _name("load_chunk", slice_.type, element, width)
        if name not in self.funcs:
            self.funcs[name] = _load_chunk_func(name, slice_.type, element, width)
        call = simt.CallOp(name, [slice_, index, count, padding], [element] * width)
        self.calls.setdefault(name, []).append(call)
        return call

    def settle(self) -> list[simt.FuncOp]:
        """The functions to insert: those called more than once. A function called once
        saves nothing, so its call becomes its body's op again (the IR is as without it)."""
        shared = []
        for name, fn in self.funcs.items():
            calls = self.calls[name]
            if len(calls) > 1:
                shared.append(fn)
                continue
            (call,) = calls
            s, index, count, pad = call.arguments
            load = simt.LoadChunkOp(s, index, count, pad, len(call.res))
            Rewriter.replace_op(call, load)
        return shared


def _name(what: str, slice_type: Attribute, element: Attribute, width: int) -> str:
    """A symbol no source names (`__ferrox_` is reserved to the compiler), valid in PTX."""
    kind = "disjoint" if isinstance(slice_type, DisjointSliceType) else "slice"
    return f"__ferrox_{what}_{kind}_{re.sub(r'[^A-Za-z0-9]', '_', str(element))}_x{width}"


def _load_chunk_func(
    name: str, slice_type: Attribute, element: Attribute, width: int
) -> simt.FuncOp:
    inputs = [slice_type, IndexType(), IndexType(), element]
    block = Block(arg_types=inputs)
    s, index, count, pad = block.args
    s.name_hint, index.name_hint, count.name_hint, pad.name_hint = "s", "i", "count", "pad"
    load = simt.LoadChunkOp(s, index, count, pad, width)
    block.add_ops([load, simt.ReturnOp(list(load.results))])
    fn = simt.FuncOp(name, FunctionType.from_lists(inputs, [element] * width), body=Region(block))
    fn.attributes["passthrough"] = ArrayAttr([StringAttr("alwaysinline")])
    return fn


__all__ = ["Helpers"]
