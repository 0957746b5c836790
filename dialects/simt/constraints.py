"""IRDL constraints shared by the op families: "a container of element type T"."""

from __future__ import annotations

from xdsl.irdl import AnyAttr, AnyOf, AttrConstraint, ParamAttrConstraint

from ferrox.dialects.simt.types import (
    AtomicSliceType,
    DisjointSliceType,
    PtrType,
    SharedArrayType,
    SliceType,
)


def slice_of(t: AttrConstraint) -> AttrConstraint:
    """A shared slice with element `t`."""
    return ParamAttrConstraint(SliceType, (t,))


def any_slice_of(t: AttrConstraint) -> AttrConstraint:
    """Any global slice (shared, disjoint or atomic) with element `t`."""
    return AnyOf(
        (
            ParamAttrConstraint(SliceType, (t,)),
            ParamAttrConstraint(DisjointSliceType, (t, AnyAttr())),
            ParamAttrConstraint(AtomicSliceType, (t,)),
        )
    )


def disjoint_of(t: AttrConstraint) -> AttrConstraint:
    return ParamAttrConstraint(DisjointSliceType, (t, AnyAttr()))


def ptr_of(t: AttrConstraint) -> AttrConstraint:
    return ParamAttrConstraint(PtrType, (t,))


def shared_of(t: AttrConstraint) -> AttrConstraint:
    return ParamAttrConstraint(SharedArrayType, (t, AnyAttr()))


def atomic_target_of(t: AttrConstraint) -> AttrConstraint:
    """What an atomic may name: any global slice (the verifier allows only atomic slices in safe
    code and rejects shared/disjoint ones), a raw pointer or a shared-memory array."""
    return AnyOf(
        (
            ParamAttrConstraint(SliceType, (t,)),
            ParamAttrConstraint(DisjointSliceType, (t, AnyAttr())),
            ParamAttrConstraint(AtomicSliceType, (t,)),
            ParamAttrConstraint(PtrType, (t,)),
            ParamAttrConstraint(SharedArrayType, (t, AnyAttr())),
        )
    )
