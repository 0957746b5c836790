"""How the checker's messages name things: kernels, parameters, size expressions."""

from __future__ import annotations

from ferrox.artifact import Param, ParamKind, SizeExpr

KIND_WORDS = {
    ParamKind.SHARED_SLICE: "slice",
    ParamKind.DISJOINT_SLICE: "disjoint slice",
    ParamKind.ATOMIC_SLICE: "atomic slice",
    ParamKind.POINTER: "pointer",
    ParamKind.SCALAR: "scalar",
    ParamKind.TILE_TENSOR: "tile tensor",
    ParamKind.PARTITION: "partition",
}


def param_name(params: tuple[Param, ...], i: int) -> str:
    """`%name` for a named parameter, `argN` for one the source left unnamed."""
    if i >= len(params) or params[i].name in ("", f"arg{i}"):
        return f"arg{i}"
    return f"%{params[i].name}"


def describe(param: Param) -> str:
    """`a slice of f32`, `a scalar i32`, ... for messages about what a parameter takes."""
    if param.kind is ParamKind.SCALAR:
        return f"a scalar {param.element}"
    word = KIND_WORDS[param.kind]
    article = "an" if word[0] in "aeiou" else "a"
    return f"{article} {word} of {param.element}"


def leaves(e: SizeExpr) -> list[SizeExpr]:
    """The `arg` and `len` references of an expression, left to right."""
    if e.op in ("arg", "len"):
        return [e]
    return [leaf for o in e.operands for leaf in leaves(o)]


__all__ = ["KIND_WORDS", "describe", "leaves", "param_name"]
