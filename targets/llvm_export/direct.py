"""A function body's LLVM IR written as text, for the ops ferrox's kernels are made of.

The exporter (`module._body`) builds an llvmlite instruction for every op through xDSL's and
ferrox's converters, and llvmlite then prints each one: on a tile kernel that was about nine
tenths of the export (softmax: 740 ops, 10 ms of the CPU machine; matmul_f32: 57 ms).
`write_body` writes the same lines itself, for a function whose every op has a writer here (by
class, `_ROUTES`: every op of the 29 examples), and the llvmlite function prints them as its
body (`_Written`); any other function is built as before.

The text is llvmlite's, byte for byte (`tests/targets/test_llvm_export_direct.py` compares the
two on every example and every FileCheck input that reaches the llvm dialect): the same
instruction spellings (`builder.py`, `instructions.py` and ferrox's `instructions.py`), and the
same value names, taken from the llvmlite function's own name scope in the order llvmlite would
take them (each instruction, void ones included, takes the next `.N`; a value with a name hint
is then renamed to it, deduplicated). What is not an instruction stays an llvmlite object: the
function, its blocks and arguments, constants, globals, the intrinsic declarations and the
metadata nodes, each made in the same order as before. A writer that meets anything unexpected
raises `Fallback`, and the whole module is exported the old way, so a refusal says what the
converters say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llvmlite import ir
from llvmlite.ir.builder import _CMP_MAP  # pyright: ignore[reportPrivateUsage]
from llvmlite.ir.values import Block as LLVMBlock
from xdsl.backend.llvm import convert_op as x  # pyright: ignore[reportPrivateUsage]
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.ir import Attribute, Block, Operation, SSAValue

from ferrox.dialects import llvm as fx
from ferrox.targets.llvm_export import instructions as li
from ferrox.targets.llvm_export import ops as ex
from ferrox.targets.llvm_export import xdsl_ops
from ferrox.targets.llvm_export.types import intrinsic_suffix


class Fallback(Exception):
    """The writer met something it does not spell as llvmlite would: export the old way."""


class _V:
    """A value as an instruction's operand prints it: its llvmlite type, the type's text and
    the value's reference (`%"x"`, `@"g"`, `i32 4`'s `4`)."""

    __slots__ = ("type", "text", "ref")

    def __init__(self, typ: ir.Type, text: str, ref: str):
        self.type, self.text, self.ref = typ, text, ref


_TYPES: dict[Attribute, tuple[ir.Type, str]] = {}


def _type(t: Attribute) -> tuple[ir.Type, str]:
    """`convert_type(t)` and its text, once per type."""
    found = _TYPES.get(t)
    if found is None:
        if len(_TYPES) >= 4096:
            _TYPES.clear()
        lt = convert_type(t)
        found = _TYPES[t] = (lt, str(lt))
    return found


def _wrap(value: ir.Value) -> _V:
    return _V(value.type, str(value.type), value.get_reference())


def _ref(name: str) -> str:
    """`NamedValue._get_reference` of a `%` value."""
    if "\\" in name or '"' in name:
        name = name.replace("\\", "\\5c").replace('"', "\\22")
    return f'%"{name}"'


class _Writer:
    def __init__(self, fn: ir.Function, module: ir.Module, blocks: dict[Block, LLVMBlock]):
        self.fn, self.module, self.blocks = fn, module, blocks
        self.used: set[str] = fn.scope._useset  # pyright: ignore[reportAttributeAccessIssue]
        self.counts: dict[str, int] = fn.scope._basenamemap  # pyright: ignore
        self.vals: dict[SSAValue, _V] = {}
        self.lines: list[str] = []  # the current block's
        self.phis: dict[SSAValue, tuple[str, str, list[str]]] = {}  # arg: ref, type, incomings
        self.block: Block | None = None
        self.calls: dict[tuple[object, ...], tuple[str, str]] = {}  # `_intrinsic_call`'s

    def value(self, v: SSAValue) -> _V:
        try:
            return self.vals[v]
        except KeyError:
            raise Fallback from None

    def fresh(self, base: str) -> str:
        """`NameScope.register(base, deduplicate=True)`, on the scope's own set and counts."""
        used, counts = self.used, self.counts
        name = base
        while name in used:
            ident = counts[base] + 1
            counts[base] = ident
            name = f"{base}.{ident}"
        used.add(name)
        return name

    def name(self, hint: str | None) -> str:
        """The reference of a new instruction (its `.N`), renamed to `hint` where there is one."""
        name = self.fresh("")
        if hint:
            name = self.fresh(hint)
        return _ref(name)

    def void(self, text: str) -> None:
        """An instruction without a result (it takes a `.N` all the same)."""
        self.fresh("")
        self.lines.append(f"  {text.rstrip()}\n")

    def result(self, result: SSAValue, typ: ir.Type, text: str, line: str) -> None:
        ref = self.name(result.name_hint)
        self.vals[result] = _V(typ, text, ref)
        self.lines.append(f"  {ref} = {line.rstrip()}\n")

    def incoming(self, dest: Block, values: Sequence[SSAValue]) -> None:
        assert self.block is not None
        here = self.blocks[self.block].get_reference()
        for arg, v in zip(dest.args, values, strict=True):
            phi = self.phis.get(arg)
            if phi is None:
                raise Fallback
            phi[2].append(f"[{self.value(v).ref}, {here}]")


Write = Callable[[Any, _Writer], None]


def _metadata(*entries: str) -> str:
    return "".join(f", {e}" for e in entries)


def _binop(cls: type[Operation]) -> Write:
    opname = x._BINARY_OP_MAP[cls](ir.IRBuilder).__name__.rstrip("_")  # pyright: ignore
    flags = xdsl_ops.binop_flags(cls) or (lambda op: [])

    def write(op: Any, w: _Writer) -> None:
        a, b = op._operands  # (the tuple itself: its view and `__getitem__` are Python calls)
        (result,) = op.results
        lhs, rhs = w.value(a), w.value(b)
        if lhs.text != rhs.text:
            raise Fallback
        named = flags(op)
        name = " ".join([opname, *named]) if named else opname
        w.result(result, lhs.type, lhs.text, f"{name} {lhs.text} {lhs.ref}, {rhs.ref}")

    return write


def _cast_line(w: _Writer, op: Operation, opname: str, flags: list[str]) -> None:
    (operand,) = op._operands  # pyright: ignore[reportPrivateUsage]
    (result,) = op.results
    value = w.value(operand)
    typ, text = _type(result.type)
    name = " ".join((opname, *flags))
    w.result(result, typ, text, f"{name} {value.text} {value.ref} to {text}")


def _xdsl_cast(cls: type[Operation]) -> Write:
    opname = x._CAST_OP_NAMES[cls]  # pyright: ignore[reportPrivateUsage]
    flags = xdsl_ops.cast_flags(cls)
    return lambda op, w: _cast_line(w, op, opname, flags(op))


def _ferrox_cast(opname: str) -> Write:
    def write(op: Any, w: _Writer) -> None:
        _cast_line(w, op, opname, ["nneg"] if ex._flag(op, "nonNeg") else [])  # pyright: ignore

    return write


_I1 = ir.IntType(1)


def _compare(op: Any, w: _Writer, opname: str, predicate: str) -> None:
    a, b = op._operands
    (result,) = op.results
    lhs, rhs = w.value(a), w.value(b)
    if isinstance(lhs.type, ir.VectorType):
        typ = ir.VectorType(_I1, lhs.type.count)
        text = str(typ)
    else:
        typ, text = _I1, "i1"
    w.result(result, typ, text, f"{opname} {predicate} {lhs.text} {lhs.ref}, {rhs.ref}")


_ICMP: dict[int, str] = {}
_FCMP: dict[int, str] = {}


def _icmp(op: llvm.ICmpOp, w: _Writer) -> None:
    number = op.predicate.value.data
    predicate = _ICMP.get(number)
    if predicate is None:  # as `_convert_icmp` and `IRBuilder._icmp` spell it
        symbol, signed = x._ICMP_PRED_MAP[llvm.ICmpPredicateFlag.from_int(number).value]  # pyright: ignore
        predicate = _CMP_MAP[symbol]
        if symbol not in ("==", "!="):
            predicate = ("s" if signed else "u") + predicate
        _ICMP[number] = predicate
    _compare(op, w, "icmp", predicate)


def _fcmp(op: llvm.FCmpOp, w: _Writer) -> None:
    number = op.predicate.value.data
    predicate = _FCMP.get(number)
    if predicate is None:  # as `_convert_fcmp` and `IRBuilder.fcmp_(un)ordered` spell it
        pred = llvm.FCmpPredicateFlag.from_int(number).value
        symbol = x._FCMP_CMP_MAP.get(pred[1:], pred)  # pyright: ignore[reportPrivateUsage]
        prefix = "o" if pred[0] == "o" else "u"
        predicate = prefix + _CMP_MAP[symbol] if symbol in _CMP_MAP else symbol
        if predicate not in ir.instructions.FCMPInstr.VALID_OP:
            raise Fallback
        _FCMP[number] = predicate
    _compare(op, w, "fcmp", predicate)


def _select(op: llvm.SelectOp, w: _Writer) -> None:
    cond, lhs, rhs = w.value(op.cond), w.value(op.lhs), w.value(op.rhs)
    if lhs.text != rhs.text:
        raise Fallback
    w.result(
        op.res,
        lhs.type,
        lhs.text,
        f"select  {cond.text} {cond.ref}, {lhs.text} {lhs.ref}, {rhs.text} {rhs.ref}",
    )


def _fneg(op: llvm.FNegOp, w: _Writer) -> None:
    arg = w.value(op.arg)
    flags = [f.value for f in op.fastmathFlags.data]
    name = " ".join(["fneg", *flags]) if flags else "fneg"
    w.result(op.res, arg.type, arg.text, f"{name} {arg.text} {arg.ref}")


def _gep(op: llvm.GEPOp, w: _Writer) -> None:
    dynamic = iter(op.ssa_indices)
    indices = []
    for index in op.rawConstantIndices.iter_values():
        if index == llvm.GEP_USE_SSA_VAL:
            v = w.value(next(dynamic))
            indices.append(f"{v.text} {v.ref}")
        else:
            indices.append(f"i32 {index}")
    inbounds = op.inbounds is not None or bool(op.noWrapFlags.value.data & 1)
    ptr = w.value(op.ptr)
    _, source = _type(op.elem_type)
    name = "getelementptr inbounds" if inbounds else "getelementptr"
    line = f"{name} {source}, {ptr.text} {ptr.ref}, {', '.join(indices)}"
    w.result(op.result, ptr.type, ptr.text, line)


def _memory_flags(
    op: llvm.LoadOp | llvm.StoreOp, ordering: str | None, typ: ir.Type
) -> tuple[str, str, str]:
    """(` atomic`, ` volatile`, `syncscope and ordering` + `, align N`) of a load or store."""
    align = ex._int(op.alignment) or (  # pyright: ignore
        ex._natural_align(typ) if ordering else None  # pyright: ignore[reportPrivateUsage]
    )
    scope = ex._str(op, "syncscope")  # pyright: ignore[reportPrivateUsage]
    order = f"{li._scope(scope)} {ordering}" if ordering else ""  # pyright: ignore
    return (
        " atomic" if ordering else "",
        " volatile" if ex._flag(op, "volatile_") else "",  # pyright: ignore
        order + (f", align {align}" if align else ""),
    )


def _nontemporal(op: Operation, w: _Writer) -> list[str]:
    if not ex._flag(op, "nontemporal"):  # pyright: ignore[reportPrivateUsage]
        return []
    node = w.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
    return [f"!nontemporal {node.get_reference()}"]


def _load(op: llvm.LoadOp, w: _Writer) -> None:
    typ, text = _type(op.dereferenced_value.type)
    ordering = ex._ordering(op)  # pyright: ignore[reportPrivateUsage]
    atomic, volatile, rest = _memory_flags(op, ordering, typ)
    ptr = w.value(op.ptr)
    metadata = []
    if ex._flag(op, "invariant"):  # pyright: ignore[reportPrivateUsage]
        metadata.append(f"!invariant.load {w.module.add_metadata([]).get_reference()}")
    metadata += _nontemporal(op, w)
    line = f"load{atomic}{volatile} {text}, {ptr.text} {ptr.ref}{rest}{_metadata(*metadata)}"
    w.result(op.dereferenced_value, typ, text, line)


def _store(op: llvm.StoreOp, w: _Writer) -> None:
    value, ptr = w.value(op.value), w.value(op.ptr)
    ordering = ex._ordering(op)  # pyright: ignore[reportPrivateUsage]
    atomic, volatile, rest = _memory_flags(op, ordering, value.type)
    metadata = _metadata(*_nontemporal(op, w))
    w.void(
        f"store{atomic}{volatile} {value.text} {value.ref}, {ptr.text} {ptr.ref}{rest}{metadata}"
    )


def _call_line(
    w: _Writer,
    result: SSAValue | None,
    callee: ir.Function | ir.InlineAsm,
    args: list[_V],
    cconv: str | None = None,
    tail: bool = False,
    fastmath: Sequence[str] = (),
    attrs: Sequence[str] = (),
) -> None:
    """`IRBuilder.call`'s instruction, as `CallInstr` prints it."""
    fnty = callee.function_type
    if fnty.var_arg or len(fnty.args) != len(args):
        raise Fallback
    for arg, expected in zip(args, fnty.args, strict=True):
        if isinstance(expected, ir.MetaDataType) or arg.type != expected:
            raise Fallback
    ret = fnty.return_type
    if cconv is None:
        cconv = callee.calling_convention
    callee_ref = f"{ret} {callee.get_reference()}"
    if cconv:
        callee_ref = f"{cconv} {callee_ref}"
    fm = " " + " ".join(sorted(ir.instructions.FastMathFlags(fastmath))) if fastmath else ""
    fn_attrs = " " + " ".join(sorted(ir.instructions.CallInstrAttributes(attrs))) if attrs else ""
    arguments = ", ".join(f"{a.text} {a.ref}" for a in args)
    line = f"{'tail ' if tail else ''}call{fm} {callee_ref}({arguments}){fn_attrs}"
    if isinstance(ret, ir.VoidType):
        if result is not None:
            raise Fallback
        w.void(line)
    else:  # (a result no op names is numbered all the same)
        ref = w.name(result.name_hint if result is not None else None)
        if result is not None:
            w.vals[result] = _V(ret, str(ret), ref)
        w.lines.append(f"  {ref} = {line}\n")


def _intrinsic_call(
    w: _Writer,
    op: Operation,
    result: SSAValue | None,
    name: str,
    returns: ir.Type,
    args: list[_V],
    fastmath: list[str],
    convergent: bool = False,
) -> None:
    """`IRBuilder.call` of intrinsic `name`, declared (`ops._declare`) with the arguments' own
    types, so that the call's type checks hold by construction; the declaration and the line's
    fixed parts are made once per function for each name, types and flags."""
    key = (name, str(returns), tuple(a.text for a in args), tuple(fastmath), convergent)
    parts = w.calls.get(key)
    if parts is None:
        fn = ex._declare(  # pyright: ignore[reportPrivateUsage]
            w.module, op, name, ir.FunctionType(returns, [a.type for a in args])
        )
        if convergent:
            fn.attributes.add("convergent")
        ret = fn.function_type.return_type
        callee = f"{ret} {fn.get_reference()}"
        if fn.calling_convention:
            callee = f"{fn.calling_convention} {callee}"
        fm = " " + " ".join(sorted(ir.instructions.FastMathFlags(fastmath))) if fastmath else ""
        parts = w.calls[key] = (f"call{fm} {callee}(", ") convergent" if convergent else ")")
    head, tail = parts
    line = f"{head}{', '.join([f'{a.text} {a.ref}' for a in args])}{tail}"
    if isinstance(returns, ir.VoidType):
        if result is not None:
            raise Fallback
        w.void(line)
    else:
        ref = w.name(result.name_hint if result is not None else None)
        if result is not None:
            w.vals[result] = _V(returns, key[1], ref)
        w.lines.append(f"  {ref} = {line}\n")


_SEGMENTS: dict[Attribute, tuple[int, ...]] = {}


def _call_intrinsic(op: llvm.CallIntrinsicOp, w: _Writer) -> None:
    sizes = op.properties["operandSegmentSizes"]
    counts = _SEGMENTS.get(sizes)
    if counts is None:
        counts = _SEGMENTS[sizes] = tuple(sizes.get_values())  # type: ignore[attr-defined]
    if len(counts) != 2 or counts[1]:  # (operand bundles: the converter refuses them)
        raise Fallback
    args = [w.value(a) for a in op._operands]  # pyright: ignore[reportPrivateUsage]
    results = op.results
    ress = results[0] if results else None
    returns = _type(ress.type)[0] if ress is not None else ir.VoidType()
    name = op.properties["intrin"].data  # type: ignore[attr-defined]
    convergent = ex.is_convergent_intrinsic(name) or ex._flag(op, "convergent")  # pyright: ignore
    flags = (
        [f.value for f in op.properties["fastmathFlags"].data]  # type: ignore[attr-defined]
        if ex._is_float(ress)  # pyright: ignore[reportPrivateUsage]
        else []
    )
    _intrinsic_call(w, op, ress, name, returns, args, flags, convergent)


def _intrinsic(op: fx.IntrinsicOp, w: _Writer) -> None:
    args = [w.value(v) for v in op._operands]  # pyright: ignore[reportPrivateUsage]
    for name in op.IMMEDIATES:
        flag = op.properties[name]
        args.append(_wrap(ir.Constant(_I1, flag.value.data != 0)))  # type: ignore[attr-defined]
    (result,) = op.results
    returns = _type(result.type)[0]
    name = f"{op.INTRINSIC}.{intrinsic_suffix(returns)}"
    _intrinsic_call(w, op, result, name, returns, args, ex._fastmath(op))  # pyright: ignore


def _xdsl_intrinsic(op: Operation, w: _Writer) -> None:
    args = [w.value(v) for v in op._operands]  # pyright: ignore[reportPrivateUsage]
    (result,) = op.results
    returns = _type(result.type)[0]
    name = f"{ex._XDSL_INTRINSICS[type(op)]}.{intrinsic_suffix(returns)}"  # pyright: ignore
    _intrinsic_call(w, op, result, name, returns, args, ex._fastmath(op))  # pyright: ignore


def _call(op: llvm.CallOp, w: _Writer) -> None:
    if op.callee is None or op.op_bundle_operands:
        raise Fallback
    callee = w.module.globals.get(op.callee.string_value())
    if not isinstance(callee, ir.Function):
        raise Fallback
    cconv = op.CConv.cconv_name
    cconv = callee.calling_convention if cconv == "ccc" else cconv
    flags = [f.value for f in op.fastmathFlags.data] if ex._is_float(op.returned) else []  # pyright: ignore
    _call_line(
        w,
        op.returned,
        callee,
        [w.value(a) for a in op.args],
        cconv=cconv or "",
        tail=op.TailCallKind.data != "none",
        fastmath=flags,
        attrs=["convergent"] if ex._flag(op, "convergent") else [],  # pyright: ignore
    )


def _inline_asm(op: llvm.InlineAsmOp, w: _Writer) -> None:
    args = [w.value(a) for a in op.operands_]
    result = _type(op.res.type)[0] if op.res is not None else ir.VoidType()
    asm = ir.InlineAsm(
        ir.FunctionType(result, [a.type for a in args]),
        op.asm_string.data,
        op.constraints.data,
        side_effect=op.has_side_effects is not None,
    )
    convergent = ["convergent"] if ex._flag(op, "convergent") else []  # pyright: ignore
    _call_line(w, op.res, asm, args, cconv="", attrs=convergent)  # (no convention: not a function)


def _extract_value(op: llvm.ExtractValueOp, w: _Writer) -> None:
    agg = w.value(op.container)
    typ, text = _type(op.res.type)
    indices = ", ".join(str(i) for i in op.position.iter_values())
    w.result(op.res, typ, text, f"extractvalue {agg.text} {agg.ref}, {indices}")


def _insert_value(op: llvm.InsertValueOp, w: _Writer) -> None:
    agg, value = w.value(op.container), w.value(op.value)
    indices = ", ".join(str(i) for i in op.position.iter_values())
    line = f"insertvalue {agg.text} {agg.ref}, {value.text} {value.ref}, {indices}"
    w.result(op.res, agg.type, agg.text, line)


def _extract_element(op: fx.ExtractElementOp, w: _Writer) -> None:
    vector, index = w.value(op.vector), w.value(op.position)
    if not isinstance(vector.type, ir.VectorType) or not isinstance(index.type, ir.IntType):
        raise Fallback
    element = vector.type.element
    line = f"extractelement {vector.text} {vector.ref}, {index.text} {index.ref}"
    w.result(op.res, element, str(element), line)


def _insert_element(op: llvm.InsertElementOp, w: _Writer) -> None:
    vector, value, index = w.value(op.vector), w.value(op.value), w.value(op.index)
    if not isinstance(vector.type, ir.VectorType) or not isinstance(index.type, ir.IntType):
        raise Fallback
    if value.type != vector.type.element:
        raise Fallback
    line = (
        f"insertelement {vector.text} {vector.ref}, {value.text} {value.ref}, "
        f"{index.text} {index.ref}"
    )
    w.result(op.res, vector.type, vector.text, line)


def _freeze(op: fx.FreezeOp, w: _Writer) -> None:
    value = w.value(op.val)
    w.result(op.res, value.type, value.text, f"freeze {value.text} {value.ref}")


_CONSTANTS: dict[tuple[Attribute, Attribute], _V] = {}


def _constant(op: llvm.ConstantOp, w: _Writer) -> None:
    (result,) = op.results
    value = op.properties["value"]
    key = (result.type, value)
    found = _CONSTANTS.get(key)
    if found is None:
        if len(_CONSTANTS) >= 4096:
            _CONSTANTS.clear()
        found = _CONSTANTS[key] = _wrap(x.create_constant(result.type, value))
    w.vals[result] = found


def _poison(op: fx.PoisonOp, w: _Writer) -> None:
    typ, text = _type(op.res.type)
    w.vals[op.res] = _V(typ, text, "poison")


def _undef(op: llvm.UndefOp, w: _Writer) -> None:
    w.vals[op.res] = _wrap(ir.Constant(convert_type(op.res.type), ir.Undefined))


def _addressof(op: llvm.AddressOfOp, w: _Writer) -> None:
    w.vals[op.result] = _wrap(w.module.get_global(op.global_name.root_reference.data))


def _br(op: llvm.BrOp, w: _Writer) -> None:
    w.incoming(op.successor, op.arguments)
    w.void(f"br label {w.blocks[op.successor].get_reference()}")


def _cond_br(op: llvm.CondBrOp, w: _Writer) -> None:
    w.incoming(op.then_block, op.then_arguments)
    w.incoming(op.else_block, op.else_arguments)
    cond = w.value(op.cond)
    then, other = w.blocks[op.then_block], w.blocks[op.else_block]
    w.void(
        f"br {cond.text} {cond.ref}, label {then.get_reference()}, label {other.get_reference()}"
    )


def _return(op: llvm.ReturnOp, w: _Writer) -> None:
    if op.operands:
        value = w.value(op.operands[0])
        w.void(f"ret {value.text} {value.ref}")
    else:
        w.void("ret void")


def _routes() -> dict[type[Operation], Write]:
    """A writer for each class that `ops._route` sends to a converter written here, by the
    converter it chooses (ferrox's, intrinsics, xDSL's binary ops and casts, xDSL's others)."""
    routes: dict[type[Operation], Write] = {
        llvm.GEPOp: _gep,
        llvm.LoadOp: _load,
        llvm.StoreOp: _store,
        llvm.CallIntrinsicOp: _call_intrinsic,
        llvm.CallOp: _call,
        llvm.InlineAsmOp: _inline_asm,
        fx.AddrSpaceCastOp: _ferrox_cast("addrspacecast"),
        fx.FPToSIOp: _ferrox_cast("fptosi"),
        fx.FPToUIOp: _ferrox_cast("fptoui"),
        fx.UIToFPOp: _ferrox_cast("uitofp"),
        fx.ExtractElementOp: _extract_element,
        fx.PoisonOp: _poison,
        fx.FreezeOp: _freeze,
    }
    ferrox_own = set(ex._CONVERTERS)  # pyright: ignore[reportPrivateUsage]
    for cls in ex._XDSL_INTRINSICS:  # pyright: ignore[reportPrivateUsage]
        if cls not in ferrox_own:
            routes[cls] = _xdsl_intrinsic
    for cls in x._BINARY_OP_MAP:  # pyright: ignore[reportPrivateUsage]
        if cls not in ferrox_own and cls not in ex._XDSL_INTRINSICS:  # pyright: ignore
            routes[cls] = _binop(cls)
    for cls in x._CAST_OP_NAMES:  # pyright: ignore[reportPrivateUsage]
        if cls not in routes and cls not in ferrox_own:
            routes[cls] = _xdsl_cast(cls)
    for cls, write in (
        (llvm.ICmpOp, _icmp),
        (llvm.FCmpOp, _fcmp),
        (llvm.FNegOp, _fneg),
        (llvm.ExtractValueOp, _extract_value),
        (llvm.InsertValueOp, _insert_value),
        (llvm.BrOp, _br),
        (llvm.CondBrOp, _cond_br),
        (llvm.SelectOp, _select),
        (llvm.ReturnOp, _return),
        (llvm.ConstantOp, _constant),
        (llvm.InsertElementOp, _insert_element),
        (llvm.UndefOp, _undef),
        (llvm.AddressOfOp, _addressof),
    ):
        routes.setdefault(cls, write)
    return routes


_ROUTES: dict[type[Operation], Write] = _routes()


def _writer_of(cls: type[Operation]) -> Write | None:
    """The writer of an op class; an intrinsic op of ferrox's has one by its base class."""
    found = _ROUTES.get(cls)
    if found is None and issubclass(cls, fx.IntrinsicOp) and cls not in ex._CONVERTERS:  # pyright: ignore
        found = _ROUTES[cls] = _intrinsic
    return found


class _Written(ir.Function):
    """An llvmlite function whose body is the text `write_body` made."""

    _ferrox_body: list[str]

    def descr_body(self, buf: list[str]) -> None:
        buf += self._ferrox_body


def write_body(op: llvm.FuncOp, fn: ir.Function, blocks: dict[Block, LLVMBlock]) -> bool:
    """Write the body of `op` into `fn`, whose blocks `blocks` are made and whose entry
    arguments are named; False (and nothing done) where some op has no writer here. Raises
    `Fallback` where a writer found something it does not spell."""
    plan: list[tuple[Block, list[tuple[Operation, Write]]]] = []
    for block in op.body.blocks:
        steps = []
        for inner in block.ops:
            write = _writer_of(type(inner))
            if write is None:
                return False
            steps.append((inner, write))
        plan.append((block, steps))
    w = _Writer(fn, fn.module, blocks)
    w.vals.update((a, _wrap(v)) for a, v in zip(op.body.blocks[0].args, fn.args, strict=False))
    for block, _ in plan[1:]:
        for arg in block.args:
            typ, text = _type(arg.type)
            name = _ref(w.fresh(arg.name_hint or ""))  # (as `IRBuilder.phi` names it)
            w.phis[arg] = (name, text, [])
            w.vals[arg] = _V(typ, text, name)
    body: list[str | list[str] | Block] = []  # a block: its phis, written once all are known
    for block, steps in plan:
        w.block, w.lines = block, []
        body.append(f"{blocks[block]._format_name()}:\n")  # pyright: ignore[reportPrivateUsage]
        if block is not op.body.blocks[0]:
            body.append(block)
        for inner, write in steps:
            write(inner, w)
        body.append(w.lines)
    lines: list[str] = []
    for part in body:
        if isinstance(part, str):
            lines.append(part)
        elif isinstance(part, Block):
            for arg in part.args:
                ref, text, incomings = w.phis[arg]
                lines.append(f"  {ref} = phi  {text} {', '.join(incomings)}".rstrip() + "\n")
        else:
            lines += part
    fn.__class__ = _Written
    fn._ferrox_body = lines  # pyright: ignore[reportAttributeAccessIssue]
    return True
