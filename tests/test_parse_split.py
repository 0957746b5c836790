"""`parse_split` (ferrox/parse_deferred.py) gives, once its `rest` has run, the module a whole
parse gives: the same text printed with every location, on every example and every FileCheck
input (each split part); where the whole parse fails, the same error."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.printer import Printer

from ferrox.parse_deferred import parse_split
from ferrox.parser import parse_module
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "examples").rglob("*.mlir")) + sorted(
    (ROOT / "tests" / "filecheck").rglob("*.mlir")
)


def inputs() -> list[tuple[str, str]]:
    found = []
    for path in FILES:
        for i, part in enumerate(path.read_text().split("// -----")):
            found.append((f"{path.relative_to(ROOT)}#{i}", part))
    return found


INPUTS = inputs()


def printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


def outcome(parse):
    try:
        return "ok", parse()
    except Exception as e:  # noqa: BLE001 - any failure must be the same failure
        return "error", (type(e).__name__, str(e))


def split_then_rest(text: str, name: str, deferred: list[str]):
    module, rest = parse_split(make_context(), text, name)
    if rest is not None:
        deferred.append(name)
        rest()
    return module


def test_every_input_parses_the_same_split():
    deferred: list[str] = []  # the inputs whose split came with a rest (each parsed once)
    parsed = set()  # the inputs the whole parse takes
    for name, text in INPUTS:
        whole_kind, whole = outcome(lambda t=text, n=name: parse_module(make_context(), t, n))
        split_kind, split = outcome(lambda t=text, n=name: split_then_rest(t, n, deferred))
        assert split_kind == whole_kind, name
        if whole_kind == "ok":
            assert printed(split) == printed(whole), name
            parsed.add(name)
        else:
            assert split == whole, name
    assert len(set(deferred) & parsed) >= 20, "most examples' host programs are deferred"


VECADD = (ROOT / "examples" / "simt" / "vecadd.mlir").read_text()


def test_the_host_program_comes_with_rest():
    module, rest = parse_split(make_context(), VECADD, "vecadd.mlir")
    assert rest is not None
    assert [op.name for op in module.ops] == ["simt.kernel"]
    rest()
    assert [op.name for op in module.ops] == ["simt.kernel", "func.func"]
    main = list(module.ops)[1]
    assert str(main.location) == 'loc("vecadd.mlir":21:3)'  # where the whole parse puts it


@pytest.mark.parametrize(
    "text",
    [
        # A host function before a kernel: not the last, so nothing is deferred.
        "builtin.module {\n  func.func @f() {\n    func.return\n  }\n"
        "  simt.kernel @k() {\n    simt.return\n  }\n}\n",
        # An alias at the top.
        "#m = affine_map<(d0) -> (d0)>\nfunc.func @f() {\n  func.return\n}\n",
        # Something after the function on its line.
        "func.func @f() {\n  func.return\n} func.func @g() {\n  func.return\n}\n",
        # A string that does not end on its line.
        'func.func @f() attributes {s = "a\n"} {\n  func.return\n}\n',
    ],
    ids=["not-last", "alias", "same-line", "open-string"],
)
def test_unusual_text_is_parsed_whole(text):
    whole_kind, whole = outcome(lambda: parse_module(make_context(), text, "t.mlir"))
    kind, got = outcome(lambda: parse_split(make_context(), text, "t.mlir"))
    assert kind == whole_kind
    if kind == "ok":
        module, rest = got
        assert rest is None
        assert printed(module) == printed(whole)
    else:
        assert got == whole


def test_an_error_in_the_host_program_is_the_whole_parse_s():
    text = VECADD.replace("host.sync_on %s", "host.sync_on %nowhere")
    module, rest = parse_split(make_context(), text, "vecadd.mlir")
    assert rest is not None
    with pytest.raises(Exception) as split:
        rest()
    with pytest.raises(Exception) as whole:
        parse_module(make_context(), text, "vecadd.mlir")
    assert (type(split.value), str(split.value)) == (type(whole.value), str(whole.value))
    assert "nowhere" in str(whole.value)


def test_a_module_body_of_two_blocks_is_parsed_whole():
    """(The verifiers refuse it; the split would have no one block to append the host code to.)"""
    text = (
        "builtin.module {\n^bb0:\n  simt.func @f() {\n    simt.return\n  }\n"
        "^bb1:\n  func.func @main() {\n    func.return\n  }\n}\n"
    )
    module, rest = parse_split(make_context(), text, "t.mlir")
    assert rest is None
    assert [[op.name for op in block.ops] for block in module.body.blocks] == [
        ["simt.func"],
        ["func.func"],
    ]
