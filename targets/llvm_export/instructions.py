"""llvmlite instructions and attribute sets that spell what GPU code needs and llvmlite cannot.

llvmlite's atomics have no `syncscope`, `volatile` or alignment, its loads and stores no
`volatile` or atomic scope, it has no `freeze`, and its attribute sets reject string attributes
(`"nvvm.reqntid"="128,1,1"`) and parameter attributes such as `readonly`. Each class here prints
one LLVM IR form exactly as LangRef spells it.
"""

from __future__ import annotations

from types import MappingProxyType

from llvmlite import ir
from llvmlite.ir import instructions


def _scope(syncscope: str | None) -> str:
    return f' syncscope("{syncscope}")' if syncscope else ""


def _align(align: int | None) -> str:
    return f", align {align}" if align else ""


class AtomicRMW(instructions.Instruction):
    """`atomicrmw [volatile] <op> ptr, val [syncscope("s")] <ordering>[, align N]`."""

    def __init__(self, parent, op, ptr, val, ordering, syncscope=None, align=None, volatile=False):
        super().__init__(parent, val.type, "atomicrmw", [ptr, val])
        self.operation, self.ordering = op, ordering
        self.syncscope, self.align, self.volatile = syncscope, align, volatile

    def descr(self, buf: list[str]) -> None:
        ptr, val = self.operands
        volatile = " volatile" if self.volatile else ""
        buf.append(
            f"atomicrmw{volatile} {self.operation} {ptr.type} {ptr.get_reference()}, "
            f"{val.type} {val.get_reference()}{_scope(self.syncscope)} {self.ordering}"
            f"{_align(self.align)}{self._stringify_metadata(leading_comma=True)}\n"
        )


class CmpXchg(instructions.Instruction):
    """`cmpxchg [weak] [volatile] ptr, cmp, new [syncscope("s")] <success> <failure>[, align N]`."""

    def __init__(
        self, parent, ptr, cmp, val, success, failure,
        syncscope=None, align=None, weak=False, volatile=False,
    ):  # fmt: skip
        result = ir.LiteralStructType([val.type, ir.IntType(1)])
        super().__init__(parent, result, "cmpxchg", [ptr, cmp, val])
        self.success, self.failure = success, failure
        self.syncscope, self.align, self.weak, self.volatile = syncscope, align, weak, volatile

    def descr(self, buf: list[str]) -> None:
        ptr, cmp, val = self.operands
        flags = (" weak" if self.weak else "") + (" volatile" if self.volatile else "")
        buf.append(
            f"cmpxchg{flags} {ptr.type} {ptr.get_reference()}, {cmp.type} {cmp.get_reference()}, "
            f"{val.type} {val.get_reference()}{_scope(self.syncscope)} "
            f"{self.success} {self.failure}"
            f"{_align(self.align)}{self._stringify_metadata(leading_comma=True)}\n"
        )


class Load(instructions.Instruction):
    """`load [atomic] [volatile] T, ptr p [syncscope("s") <ordering>][, align N]`."""

    def __init__(self, parent, ptr, typ, ordering=None, syncscope=None, align=None, volatile=False):
        super().__init__(parent, typ, "load", [ptr])
        self.ordering, self.syncscope, self.align, self.volatile = (
            ordering,
            syncscope,
            align,
            volatile,
        )

    def descr(self, buf: list[str]) -> None:
        (ptr,) = self.operands
        atomic = " atomic" if self.ordering else ""
        volatile = " volatile" if self.volatile else ""
        order = f"{_scope(self.syncscope)} {self.ordering}" if self.ordering else ""
        buf.append(
            f"load{atomic}{volatile} {self.type}, {ptr.type} {ptr.get_reference()}{order}"
            f"{_align(self.align)}{self._stringify_metadata(leading_comma=True)}\n"
        )


class Store(instructions.Instruction):
    """`store [atomic] [volatile] T v, ptr p [syncscope("s") <ordering>][, align N]`."""

    def __init__(self, parent, val, ptr, ordering=None, syncscope=None, align=None, volatile=False):
        super().__init__(parent, ir.VoidType(), "store", [val, ptr])
        self.ordering, self.syncscope, self.align, self.volatile = (
            ordering,
            syncscope,
            align,
            volatile,
        )

    def descr(self, buf: list[str]) -> None:
        val, ptr = self.operands
        atomic = " atomic" if self.ordering else ""
        volatile = " volatile" if self.volatile else ""
        order = f"{_scope(self.syncscope)} {self.ordering}" if self.ordering else ""
        buf.append(
            f"store{atomic}{volatile} {val.type} {val.get_reference()}, {ptr.type} "
            f"{ptr.get_reference()}{order}{_align(self.align)}"
            f"{self._stringify_metadata(leading_comma=True)}\n"
        )


class Freeze(instructions.Instruction):
    def __init__(self, parent, val):
        super().__init__(parent, val.type, "freeze", [val])

    def descr(self, buf: list[str]) -> None:
        (val,) = self.operands
        buf.append(f"freeze {val.type} {val.get_reference()}\n")


class Poison(ir.Constant):
    """`poison` of any type (llvmlite would spread a vector constant into its lanes)."""

    def __init__(self, typ: ir.Type):
        self.type = typ
        self.constant = "poison"

    def _get_reference(self) -> str:
        return "poison"


class FunctionAttributes(ir.FunctionAttributes):
    """llvmlite's function attributes plus `"key"="value"` string ones (NVVM launch bounds)."""

    _known = ir.FunctionAttributes._known | {"willreturn", "nosync", "nofree", "mustprogress"}

    def __init__(self, args=()):
        self.strings: dict[str, str] = {}
        super().__init__(args)

    def __bool__(self) -> bool:
        return bool(self.strings) or len(self) > 0

    def _to_list(self, ret_type):
        return super()._to_list(ret_type) + [f'"{k}"="{v}"' for k, v in self.strings.items()]


class ArgumentAttributes(ir.values.ArgumentAttributes):
    """llvmlite's parameter attributes plus the memory ones (readonly, writeonly, readnone)."""

    _known = MappingProxyType(
        {
            **ir.values.ArgumentAttributes._known,
            "readonly": False,
            "writeonly": False,
            "readnone": False,
        }
    )

    @classmethod
    def upgrade(cls, old: ir.values.ArgumentAttributes) -> ArgumentAttributes:
        new = cls(list(old))
        new.align, new.dereferenceable = old.align, old.dereferenceable
        new.dereferenceable_or_null = old.dereferenceable_or_null
        return new
