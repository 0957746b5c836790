"""Kernels, device functions, calls and returns.

`simt.kernel @name(%p: T, ...) [unsafe] [contract<...>] [attributes {...}] { ... }`: a GPU entry
point. Its parameters are the entry block's arguments; a slice parameter is a (pointer, length)
pair at the ABI. An optional launch contract (`LaunchContractAttr`) fixes the launch shape; a kernel
without one can only be launched unsafely. `unsafe` marks the whole body as an unsafe region.

`simt.func @name(%p: T, ...) [-> (T, ...)] [unsafe] { ... }` is a device function, called with
`simt.call`. Both end in `simt.return`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.contract import LaunchContractAttr
from ferrox.dialects.simt.types import SLICE_TYPES, DisjointSliceType, SliceType

_RESERVED = ("sym_name", "function_type", "contract", "unsafe")


def _parameter(parser: Parser) -> Parser.Argument:
    """`%name: type`, then the `loc(...)` a printer with debug info writes after it."""
    arg = parser.parse_argument()
    arg.location = parser.parse_optional_location()
    return arg


def _parse_signature(parser: Parser, allow_results: bool):
    name = parser.parse_symbol_name()
    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: _parameter(parser))
    results: list[Attribute] = []
    if allow_results and parser.parse_optional_punctuation("->") is not None:
        parsed = parser.parse_optional_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_type
        )
        results = list(parsed) if parsed is not None else [parser.parse_type()]
    unsafe = parser.parse_optional_keyword("unsafe") is not None
    return name, args, results, unsafe


def _finish(parser: Parser, cls, name, args, results, unsafe, extra_props):
    attrs = parser.parse_optional_attr_dict_with_keyword(_RESERVED)
    body = parser.parse_region(args)
    props: dict[str, Attribute] = {
        "sym_name": name,
        "function_type": FunctionType.from_lists([a.type for a in args], results),
        **extra_props,
    }
    if unsafe:
        props["unsafe"] = UnitAttr()
    op = cls.create(properties=props, attributes=attrs.data if attrs else {}, regions=[body])
    return op


def _print_signature(printer: Printer, op: KernelOp | FuncOp) -> None:
    printer.print_string(" ")
    printer.print_symbol_name(op.sym_name.data)
    printer.print_string("(")
    printer.print_list(
        op.body.blocks[0].args if op.body.blocks else (), printer.print_block_argument
    )
    printer.print_string(")")
    outputs = op.function_type.outputs.data
    if outputs:
        printer.print_string(" -> ")
        if len(outputs) == 1:
            printer.print_attribute(outputs[0])
        else:
            printer.print_string("(")
            printer.print_list(outputs, printer.print_attribute)
            printer.print_string(")")
    if op.unsafe is not None:
        printer.print_string(" unsafe")


def _print_tail(printer: Printer, op: KernelOp | FuncOp) -> None:
    printer.print_op_attributes(op.attributes, reserved_attr_names=_RESERVED, print_keyword=True)
    printer.print_string(" ")
    printer.print_region(op.body, print_entry_block_args=False)


def _in_symbol_table(op: IRDLOperation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.has_trait(SymbolTable):
            return True
        parent = parent.parent_op()
    return False


def _verify_entry(op: KernelOp | FuncOp) -> None:
    if not op.body.blocks:
        raise VerifyException(f"'{op.name}' needs a body")
    args = op.body.blocks[0].args
    inputs = op.function_type.inputs.data
    if tuple(a.type for a in args) != tuple(inputs):
        raise VerifyException(f"'{op.name}' entry block arguments do not match its function type")


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A GPU entry point; parameters are the entry block's arguments, it returns nothing."""

    name = "simt.kernel"

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    contract = opt_prop_def(LaunchContractAttr)
    unsafe = opt_prop_def(UnitAttr)
    body = region_def()

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(
        self,
        sym_name: str,
        param_types: Sequence[Attribute],
        contract: LaunchContractAttr | None = None,
        unsafe: bool = False,
        body: Region | None = None,
    ):
        props: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "function_type": FunctionType.from_lists(param_types, []),
            "contract": contract,
            "unsafe": UnitAttr() if unsafe else None,
        }
        super().__init__(properties=props, regions=[body or Region(Block(arg_types=param_types))])

    @property
    def params(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.blocks[0].args)

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name, args, _, unsafe = _parse_signature(parser, allow_results=False)
        extra: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("contract") is not None:
            extra["contract"] = LaunchContractAttr.new(LaunchContractAttr.parse_parameters(parser))
        return _finish(parser, cls, name, args, [], unsafe, extra)

    def print(self, printer: Printer) -> None:
        _print_signature(printer, self)
        if self.contract is not None:
            printer.print_string(" contract")
            self.contract.print_parameters(printer)
        _print_tail(printer, self)

    def verify_(self) -> None:
        _verify_entry(self)
        if self.function_type.outputs.data:
            raise VerifyException("'simt.kernel' returns nothing; write outputs to disjoint slices")
        if self.contract is not None:
            self._verify_requires(self.contract)

    def _verify_requires(self, contract: LaunchContractAttr) -> None:
        inputs = self.function_type.inputs.data
        for rel in contract.relations:
            for kind, i in rel.arg_refs():
                if i >= len(inputs):
                    raise VerifyException(
                        f"launch contract relation '{rel}' names arg{i}, but the kernel has "
                        f"{len(inputs)} parameters"
                    )
                t = inputs[i]
                if kind == "len" and not isinstance(t, SLICE_TYPES):
                    raise VerifyException(
                        f"launch contract relation '{rel}': "
                        f"len(arg{i}) needs a slice parameter, found {t}"
                    )
                if kind == "arg" and not isinstance(t, IndexType | IntegerType):
                    raise VerifyException(
                        f"launch contract relation '{rel}': "
                        f"arg{i} needs an integer or index parameter, found {t}"
                    )


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A device function: called from kernels with `simt.call`, never launched."""

    name = "simt.func"

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    unsafe = opt_prop_def(UnitAttr)
    body = region_def()

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(
        self,
        sym_name: str,
        function_type: FunctionType,
        unsafe: bool = False,
        body: Region | None = None,
    ):
        props: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "function_type": function_type,
            "unsafe": UnitAttr() if unsafe else None,
        }
        region = body or Region(Block(arg_types=function_type.inputs.data))
        super().__init__(properties=props, regions=[region])

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name, args, results, unsafe = _parse_signature(parser, allow_results=True)
        return _finish(parser, cls, name, args, results, unsafe, {})

    def print(self, printer: Printer) -> None:
        _print_signature(printer, self)
        _print_tail(printer, self)

    def verify_(self) -> None:
        _verify_entry(self)


@irdl_op_definition
class CallOp(IRDLOperation):
    """`simt.call @f(%x) : (f32) -> f32`: a call to a `simt.func` in the same module."""

    name = "simt.call"

    callee = prop_def(SymbolRefAttr)
    arguments = var_operand_def()
    res = var_result_def()

    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        arguments: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[arguments], result_types=[result_types], properties={"callee": callee}
        )

    def callee_op(self) -> FuncOp | KernelOp | None:
        found = SymbolTable.lookup_symbol(self, self.callee)
        return found if isinstance(found, FuncOp | KernelOp) else None

    def verify_(self) -> None:
        callee = SymbolTable.lookup_symbol(self, self.callee)
        if callee is None:
            if _in_symbol_table(self):
                raise VerifyException(f"'{self.callee}' does not name a 'simt.func' in this module")
            return  # a detached call: its module's verification sees it
        if isinstance(callee, KernelOp):
            raise VerifyException(f"'{self.callee}' is a kernel; kernels are launched, not called")
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"'{self.callee}' does not name a 'simt.func'")
        ft = callee.function_type
        if len(ft.inputs.data) != len(self.arguments):
            raise VerifyException(
                f"'{self.callee}' takes {len(ft.inputs.data)} arguments, "
                f"{len(self.arguments)} given"
            )
        for i, (arg, expected) in enumerate(zip(self.arguments, ft.inputs.data)):
            # A disjoint slice where a shared slice is expected is a safety rule: verify-disjoint
            # reports it, with the rest of the kernel's violations.
            if isinstance(arg.type, DisjointSliceType) and isinstance(expected, SliceType):
                continue
            if arg.type != expected:
                raise VerifyException(
                    f"argument {i} of '{self.callee}' has type {arg.type}, expected {expected}"
                )
        if tuple(r.type for r in self.res) != tuple(ft.outputs.data):
            raise VerifyException(f"result types do not match the signature of '{self.callee}'")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a kernel (no values) or a device function (its results)."""

    name = "simt.return"

    values = var_operand_def()

    traits = traits_def(IsTerminator(), HasParent(KernelOp, FuncOp))

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, KernelOp | FuncOp):
            return
        expected = tuple(parent.function_type.outputs.data)
        if tuple(v.type for v in self.values) != expected:
            raise VerifyException(
                f"'simt.return' types ({', '.join(str(v.type) for v in self.values)}) do not match "
                f"the {'kernel' if isinstance(parent, KernelOp) else 'function'} results "
                f"({', '.join(map(str, expected))})"
            )
