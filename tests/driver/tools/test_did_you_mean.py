"""Did-you-mean on the command line: a misspelt pass, pass option or `--param` name gets the
name it was probably meant to be, in ferrox-opt, `ferrox compile -p` and `ferrox run`.
(Misspelt ops, types and attributes in the input: tests/test_diagnostics_render.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from ferrox.diagnostic_suggest import closest, did_you_mean, suggest_registered
from ferrox.driver.tools import cli, opt

ROOT = Path(__file__).resolve().parents[3]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"


def opt_error(capsys, *args: str) -> str:
    assert opt.main([str(VECADD), *args]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize(
    "pipeline, expected",
    [
        (
            "canonicalise",
            "ferrox-opt: error: unknown pass `canonicalise`\n"
            "  = help: did you mean `canonicalize`?\n"
            "  = help: `ferrox-opt --list-passes` lists every pass\n",
        ),
        (
            "verify-disjiont,csee",
            "ferrox-opt: error: unknown passes `verify-disjiont`, `csee`\n"
            "  = help: `verify-disjiont`: did you mean `verify-disjoint`?\n"
            "  = help: `csee`: did you mean `cse`?\n"
            "  = help: `ferrox-opt --list-passes` lists every pass\n",
        ),
        (
            "convert-tile-to-simt{thread=128}",
            "ferrox-opt: error: pass `convert-tile-to-simt` has no option `thread`\n"
            "  = help: did you mean `threads`?\n"
            "  = help: its options: threads, elems, chip\n",
        ),
        (
            "canonicalize{bogus=1}",
            "ferrox-opt: error: pass `canonicalize` has no option `bogus`\n"
            "  = help: pass `canonicalize` takes no options\n",
        ),
    ],
)
def test_ferrox_opt_passes_and_options(capsys, pipeline: str, expected: str):
    assert opt_error(capsys, "-p", pipeline) == expected


def test_ferrox_compile_pipeline(capsys, tmp_path):
    assert cli.main(["compile", str(VECADD), "-p", "lower-to-llvn", "-o", str(tmp_path / "k")]) == 1
    assert capsys.readouterr().err == (
        "ferrox compile: error: bad pass pipeline 'lower-to-llvn': unknown pass `lower-to-llvn`\n"
        "  = help: did you mean `lower-to-llvm`?\n"
        "  = help: `ferrox-opt --list-passes` lists every pass\n"
    )


def test_ferrox_run_param(capsys, monkeypatch):
    monkeypatch.chdir(VECADD.parent)
    args = ["run", VECADD.name, "--device", "cpu", "--param", "nn=10"]
    assert cli.main([*args, "--error-format=human"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "error: unknown parameter 'nn' (this program's parameters: n)\n"
        "  --> vecadd.mlir:21:3\n"
        "   |\n"
        "21 |   func.func @main() -> !host.tensor<f32, [?]> {\n"
        "   |   ^^^^^^^^^\n"
        "   |\n"
        "   = help: did you mean `n`?\n"
    )
    assert cli.main([*args, "--error-format=short"]) == 1
    assert capsys.readouterr().err == (
        "vecadd.mlir:21:3: error: unknown parameter 'nn' (this program's parameters: n)\n"
    )


def test_suggestions_are_close_names_only():
    assert closest("cse", ["canonicalize", "cse", "dce"]) == "cse"
    assert closest("zzzz", ["canonicalize", "cse"]) is None
    assert did_you_mean("lenght", ["length", "width"]) == "did you mean `length`?"
    assert suggest_registered("simt.thread_idx_1d", "op") == "simt.thread_index_1d"
    assert suggest_registered("smit.load", "op") == "simt.load"  # the dialect misspelt too
    assert suggest_registered("tile.zzzzzz", "attr") is None
