"""The op table of docs/getting-started.md is the compiler's own answer (docs/op_support.py)."""

from __future__ import annotations

import op_support  # docs/op_support.py: docs/ is on pytest's pythonpath

from ferrox.driver.tools.opt import main


def test_table_is_current():
    page = op_support.PAGE.read_text()
    assert op_support.render(page) == page, "stale: run python docs/op_support.py"


def test_rows_say_what_the_compiler_does():
    rows = {line.split(" | ")[0].strip("| `"): line for line in op_support.table().splitlines()}
    assert rows["arith.addf"] == "| `arith.addf` | `tile.add` | yes | yes |"
    assert rows["math.exp"] == "| `math.exp` | `tile.exp` | yes | yes |"
    assert rows["math.tan"] == "| `math.tan` | - | no | yes |"
    assert rows["arith.mului_extended"] == "| `arith.mului_extended` | - | no | yes |"


def test_a_no_is_the_lowering_refusing(tmp_path, capsys):
    """`no` in the lowering column is a refusal a user sees, with its reason."""
    src = tmp_path / "tan.mlir"
    src.write_text(
        "func.func @f(%x: f32) -> f32 {\n  %y = math.tan %x : f32\n  func.return %y : f32\n}\n"
    )
    assert main([str(src), "-p", "convert-to-llvm"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"{src}:2:3: error: cannot lower 'math.tan' to llvm: math.tan has no NVPTX lowering in "
        "ferrox (see docs/lowering-math.md)\n"
    )
