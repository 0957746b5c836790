"""Type variables that feed the assembly format but leave mismatches to the op's verifier.

xDSL's `VarConstraint` lets `tile.add %a, %b : T` name one type for all three values, but its
mismatch error ("attribute X expected from variable 'T'") says nothing about tiles. This
variable still binds the type for parsing; `check_same_type` then reports a mismatch in the
op's own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import VarConstraint, base
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.types import TileType


@dataclass(frozen=True)
class TileVar(VarConstraint[TileType]):
    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if constraint_context.get_variable(self.name) is None:
            constraint_context.set_attr_variable(self.name, attr)
        self.constraint.verify(attr, constraint_context)


def tile_var(name: str = "T") -> TileVar:
    return TileVar(name, base(TileType))


def check_same_type(op: Operation, values: Sequence[SSAValue], roles: str, hint: str = "") -> None:
    """All of `values` (described by `roles`, e.g. "operands and result") have one type."""
    types = [v.type for v in values]
    if any(t != types[0] for t in types[1:]):
        found = ", ".join(str(t) for t in types)
        raise VerifyException(f"{op.name} {roles} must have the same type, found {found}{hint}")
