"""RUN lines run in the pytest worker (lit_support/tools_in_worker.py): a line passes there only
where lit would pass it; any other line, one that fails there included, is lit's to run and
judge.

A small lit suite configured as tests/filecheck is runs each case with the in-process pipelines
installed; a spy on lit's own executor tells which lines lit ran.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import lit.LitTestCase
import lit.worker
import pytest

LIT_SUPPORT = Path(__file__).resolve().parent / "lit_support"
sys.path.insert(0, str(LIT_SUPPORT))
import tools_in_worker  # noqa: E402

VALID = "func.func @f() {\n  func.return\n}\n"
INVALID = "func.func @f() {\n  func.return\n"  # no closing brace: a refusal

CASES = {
    # file: (RUN line, CHECK line, body, lit's verdict, whether lit ran the line)
    "round-trip": ("ferrox-opt %s | ferrox-opt | filecheck %s", "func.func @f", VALID, "PASS", 0),
    "check-fails": ("ferrox-opt %s | filecheck %s", "func.func @g", VALID, "FAIL", 1),
    "refusal-not": ("not ferrox-opt %s 2>&1 | filecheck %s", "error", INVALID, "PASS", 0),
    "refusal-plain": ("ferrox-opt %s", "", INVALID, "FAIL", 1),
    "valid-not": ("not ferrox-opt %s", "", VALID, "FAIL", 1),
    "stderr-not-piped": ("not ferrox-opt %s | filecheck %s", "error", INVALID, "FAIL", 1),
    "through-a-file": (
        "ferrox-opt %s > %t && filecheck %s < %t",
        "func.return",
        VALID,
        "PASS",
        0,
    ),
}


def run_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cases: dict) -> dict:
    """{case: (lit's verdict, its report, how many pipelines lit ran)}."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "lit.cfg.py").write_text(
        textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(LIT_SUPPORT)!r})
            from ferrox_lit import configure
            configure(config, "in-process")
        """)
    )
    for name, (run, check, body, _, _) in cases.items():
        check_line = f"// CHECK: {check}\n" if check else ""
        (suite / f"{name}.mlir").write_text(f"// RUN: {run}\n{check_line}{body}")
    monkeypatch.setenv("FERROX_LIT_EXEC_ROOT", str(tmp_path / "out"))
    ran_by_lit: list = []

    def lit_execute(cmd, shenv, results, timeout_helper):
        if isinstance(cmd, lit.ShUtil.Pipeline) and cmd.commands[0].args[0] != "@echo":
            ran_by_lit.append(cmd)
        return real(cmd, shenv, results, timeout_helper)

    real = tools_in_worker._lit_execute
    monkeypatch.setattr(tools_in_worker, "_lit_execute", lit_execute)
    verdicts = {}
    for case in lit.LitTestCase.load_test_suite([str(suite)]):
        ran_by_lit.clear()
        with tools_in_worker.installed():
            result = lit.worker._execute(case._test, case._lit_config)
        name = Path(case._test.getSourcePath()).stem
        verdicts[name] = (result.code.name, result.output, len(ran_by_lit))
    return verdicts


def test_only_passing_plain_pipelines_run_here(tmp_path, monkeypatch):
    verdicts = run_suite(tmp_path, monkeypatch, CASES)
    got = {k: (v[0], v[2]) for k, v in verdicts.items()}
    assert got == {k: (v[3], v[4]) for k, v in CASES.items()}, verdicts
    # a failure is lit's report: the commands it ran, filecheck's message
    report = verdicts["check-fails"][1]
    assert "# executed command: " in report and 'error: Couldn\'t match "func.func @g"' in report


def test_a_tool_that_raises_here_is_handed_to_lit(tmp_path, monkeypatch):
    """An exception out of the tool in this process is a crash there: lit runs the line itself
    (in a fork of the tool server, which the patch here does not reach) and its verdict
    stands."""
    import ferrox.driver.tools.opt as opt

    def raises(argv):
        raise RuntimeError("a bug that escaped")

    monkeypatch.setattr(opt, "main", raises)
    case = {"round-trip": CASES["round-trip"][:3] + ("PASS", 1)}
    verdicts = run_suite(tmp_path, monkeypatch, case)
    assert {k: (v[0], v[2]) for k, v in verdicts.items()} == {"round-trip": ("PASS", 1)}


def test_the_worker_gets_its_state_back(tmp_path, monkeypatch):
    argv, env, cwd = list(sys.argv), dict(__import__("os").environ), Path.cwd()
    stdout, stderr, stdin = sys.stdout, sys.stderr, sys.stdin
    run_suite(tmp_path, monkeypatch, CASES)
    assert (sys.argv, Path.cwd()) == (argv, cwd)
    assert (sys.stdout, sys.stderr, sys.stdin) == (stdout, stderr, stdin)
    assert {k: v for k, v in __import__("os").environ.items() if k != "FERROX_LIT_EXEC_ROOT"} == {
        k: v for k, v in env.items() if k != "FERROX_LIT_EXEC_ROOT"
    }
