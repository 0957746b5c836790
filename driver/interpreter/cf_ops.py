"""`cf.switch`, which xDSL's `CfFunctions` do not interpret (its branches they do).

The flag and the case values are compared as bit patterns of the flag's width, so an `i32` flag
of -1 matches a case written `4294967295` as the GPU's compare does. The first case listing the
value wins, as the lowering's chain of compares (`lowering/to_llvm/cf.py`) does.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import cf
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    Successor,
    impl_terminator,
    register_impls,
)

from ferrox.driver.interpreter.values import int_width, unsigned


@register_impls
class FerroxCfFunctions(InterpreterFunctions):
    @impl_terminator(cf.SwitchOp)
    def run_switch(self, interpreter: Interpreter, op: cf.SwitchOp, args: tuple[Any, ...]):
        width = int_width(op.flag.type)
        assert width is not None, "cf.switch verifies an integer or index flag"
        flag = unsigned(args[0], width)
        values = op.case_values.get_values() if op.case_values is not None else ()
        for value, block, operands in zip(values, op.case_blocks, op.case_operand, strict=True):
            if unsigned(value, width) == flag:
                return Successor(block, interpreter.get_values(operands)), ()
        return Successor(op.default_block, interpreter.get_values(op.default_operands)), ()
