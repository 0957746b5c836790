"""The test processes' shared parse (tests/support/parsed_once.py): a repeat gets a module that
prints as the parse's, locations included, that is its own (changing it changes no later
answer), and a text that fails fails again with its own error."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from parsed_once import ParsedOnce, faithful_copy
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from ferrox.parser import parse_module
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[1]
# every example of ferrox's own dialects (the custom dialect's need its plugin)
EXAMPLES = sorted((ROOT / "examples" / "simt").glob("*.mlir")) + sorted(
    (ROOT / "examples" / "tile").glob("*.mlir")
)


def printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


def test_a_copy_prints_as_the_parse_every_example():
    for path in EXAMPLES:
        module = parse_module(make_context(), path.read_text(), str(path))
        assert printed(faithful_copy(module)) == printed(module), path


def test_a_repeat_is_a_copy_of_its_own():
    calls = []

    def parse(*args):
        calls.append(args[1])
        return parse_module(*args)

    once = ParsedOnce(parse)
    path = ROOT / "examples" / "simt" / "gemm_tma.mlir"  # value names with `_<digits>` suffixes
    text = path.read_text()
    first = once(make_context(), text, str(path))
    expected = printed(first)
    first.body.block.erase_op(first.body.block.first_op, safe_erase=False)
    ctx = make_context()
    second = once(ctx, text, str(path))
    assert printed(second) == expected and second is not first
    assert "simt" in ctx._loaded_dialects  # loaded into the caller's context, as a parse does
    second.body.block.erase_op(second.body.block.first_op, safe_erase=False)
    assert printed(once(make_context(), text, str(path))) == expected
    assert len(calls) == 1 and once.hits == 2
    once(make_context(), text, "other.mlir")  # another name: its own locations, its own parse
    assert len(calls) == 2


def test_a_failing_text_is_parsed_and_fails_each_time():
    once = ParsedOnce(parse_module)
    for _ in range(2):
        with pytest.raises(ParseError, match="nowhere"):
            once(make_context(), "func.func @f() {\n  func.return %nowhere : i32\n}\n", "t.mlir")
    assert once.hits == 0 and not once.kept
