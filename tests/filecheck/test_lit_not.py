"""lit's `not` in this suite: a tool that crashes never passes as a tool that refused its input.

A small lit suite, configured as tests/filecheck is (lit_support/ferrox_lit.py), runs fake tools
through the same command as ferrox-opt (`%{tool} module:function`): an exit status of 1 is a
refusal, which `not` expects; an internal error (exit 70, failure.py), an exception escaping the
tool, or a signal is a crash, which fails `not` and is what `not --crash` expects. Each case
runs with the tool server and without it (each tool a new Python).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import lit.LitTestCase
import lit.worker
import pytest

LIT_SUPPORT = Path(__file__).resolve().parent / "lit_support"

TOOLS = """
import os
import sys


def refuses(argv):
    print("input.mlir:1:1: error: a refusal", file=sys.stderr)
    return 1


def internal_error(argv):
    print("ferrox-opt: internal error (a bug in ferrox)", file=sys.stderr)
    return 70


def raises(argv):
    raise RuntimeError("a bug that escaped")


def aborts(argv):
    os.abort()
"""

CASES = {
    # file: (RUN line, lit's verdict)
    "refusal-not": ("not %{tool} tools:refuses", "PASS"),
    "refusal-plain": ("%{tool} tools:refuses", "FAIL"),
    "internal-error-not": ("not %{tool} tools:internal_error", "FAIL"),
    "exception-not": ("not %{tool} tools:raises", "FAIL"),
    "signal-not": ("not %{tool} tools:aborts", "FAIL"),
    "internal-error-crash": ("not --crash %{tool} tools:internal_error", "PASS"),
    "exception-crash": ("not --crash %{tool} tools:raises", "PASS"),
    "refusal-crash": ("not --crash %{tool} tools:refuses", "FAIL"),
    "ferrox-opt-refusal-not": ("not ferrox-opt %s 2>&1 | filecheck %s", "PASS"),
}


@pytest.mark.parametrize("server", [True, False], ids=["server", "no-server"])
def test_not_fails_on_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: bool):
    suite = tmp_path / "suite"
    suite.mkdir()
    (tmp_path / "tools.py").write_text(TOOLS)
    (suite / "lit.cfg.py").write_text(
        textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(LIT_SUPPORT)!r})
            from ferrox_lit import configure
            configure(config, "not-semantics")
            import os
            # the test's tools first, then wherever ferrox itself is on PYTHONPATH (a GPU host)
            config.environment["PYTHONPATH"] = os.pathsep.join(
                p for p in ({str(tmp_path)!r}, os.environ.get("PYTHONPATH", "")) if p
            )
        """)
    )
    for name, (run, _) in CASES.items():
        body = "func.func @f() {\n  func.return\n"  # no closing brace: a refusal
        check = "// CHECK: error\n"
        (suite / f"{name}.mlir").write_text(f"// RUN: {run}\n{check}{body}")
    monkeypatch.setenv("FERROX_LIT_EXEC_ROOT", str(tmp_path / "out"))
    if not server:
        monkeypatch.setenv("FERROX_LIT_NO_SERVER", "1")
    verdicts = {}
    for case in lit.LitTestCase.load_test_suite([str(suite)]):
        result = lit.worker._execute(case._test, case._lit_config)
        verdicts[Path(case._test.getSourcePath()).stem] = (result.code.name, result.output)
    assert {k: v[0] for k, v in verdicts.items()} == {k: v[1] for k, v in CASES.items()}, verdicts
    crashed = verdicts["internal-error-not"][1]
    assert "exit status 70 is a crash (internal error) in this test suite" in crashed
