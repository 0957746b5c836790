"""Layout assignment: before emitting anything, decide the layout of every tile value.

Forward over the kernel, each op's `infer` rule picks its results' layouts from its operands'
(`rules.py`; loads pick the chunked layout, reductions drop the axis' bits, `mma` its blocked
layout, elementwise ops the operand spread over most threads). `None` means "any": a constant,
`tile.full` or `tile.iota`, and what is computed only from those, is made wherever it is used in
the layout its user needs. Values that cross control flow need one layout: a loop-carried tile
takes its initial value's layout, or, if that is "any", the layout its yielded value has after
one pass over the body (so an accumulator starts in the layout the loop computes it in); a
still undecided one, and an `scf.if` result that neither branch decides, is chunked. A GEMM loop
on wgmma hands its result on in the chunked layout of the store it reaches
(`gemm_wgmma.result_layout`), and the ops between take that layout.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue

from ferrox.dialects import tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.config import Config
from ferrox.lowering.tile_to_simt.context import canonical
from ferrox.lowering.tile_to_simt.layout import Layout
from ferrox.lowering.tile_to_simt.rules import RULES

Layouts = dict[SSAValue, Layout | None]


def analyse(kernel: tile.KernelOp, config: Config) -> Layouts:
    layouts: Layouts = {}
    _block(kernel.body.block, layouts, config)
    return layouts


def _block(block: Block, layouts: Layouts, config: Config) -> list[Layout | None]:
    """Analyse `block`; the layouts of what its terminator yields."""
    for op in block.ops:
        _op(op, layouts, config)
    last = block.last_op
    if isinstance(last, scf.YieldOp):
        return [layouts.get(v) for v in last.operands]
    return []


def _decided(value: SSAValue, layout: Layout | None, config: Config) -> Layout | None:
    if layout is None and isinstance(value.type, TileType):
        return canonical(value.type, config)
    return layout


def _op(op: Operation, layouts: Layouts, config: Config) -> None:
    r = RULES.get(type(op))
    if r is not None:
        for v, layout in zip(
            op.results, r.infer(op, [layouts.get(o) for o in op.operands], config)
        ):
            layouts[v] = layout
    elif isinstance(op, scf.ForOp):
        _for(op, layouts, config)
    elif isinstance(op, scf.IfOp):
        _if(op, layouts, config)


def _for(op: scf.ForOp, layouts: Layouts, config: Config) -> None:
    body = op.body.block
    carried = body.args[1:]
    current = [layouts.get(v) for v in op.iter_args]
    for _ in range(3):
        for arg, layout in zip(carried, current):
            layouts[arg] = layout
        yielded = _block(body, layouts, config)
        merged = [c if c is not None else y for c, y in zip(current, yielded)]
        if merged == current:
            break
        current = merged
    final = [_decided(arg, layout, config) for arg, layout in zip(carried, current)]
    for arg, layout in zip(carried, final):
        layouts[arg] = layout
    _block(body, layouts, config)
    for result, layout in zip(op.results, final):
        layouts[result] = layout
    from ferrox.lowering.tile_to_simt.gemm_wgmma import result_layout

    if (made := result_layout(op, config)) is not None:  # a wgmma GEMM loop's epilogue
        layouts[op.results[0]] = made


def _if(op: scf.IfOp, layouts: Layouts, config: Config) -> None:
    then = _block(op.true_region.block, layouts, config)
    other = _block(op.false_region.block, layouts, config) if op.false_region.blocks else []
    for i, result in enumerate(op.results):
        a = then[i] if i < len(then) else None
        b = other[i] if i < len(other) else None
        layouts[result] = _decided(result, a if a is not None else b, config)


__all__ = ["Layouts", "analyse"]
