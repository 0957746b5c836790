"""The filecheck suite (a lit suite: lit.cfg.py), one pytest test per `.mlir` file.

lit discovers the suite here, in this process, through its own unittest adaptor
(`lit.LitTestCase.load_test_suite`); each test then runs as lit would run it (its format's
`execute`), so that pytest-xdist spreads the files over its workers and a failure shows lit's
report of the file: each RUN line, the commands it ran, their output and exit statuses. A test
whose `// REQUIRES:` features are missing is skipped with lit's reason. `lit tests/filecheck`
runs the same suite without pytest.

Here a RUN line's plain pipeline of `ferrox-opt` and `filecheck` runs in this process
(lit_support/tools_in_worker.py) where it passes; every other line, and any line that does not
pass that way, lit runs as always (through the tool server), and its verdict stands.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import lit.LitTestCase
import lit.Test
import lit.worker
import pytest

HERE = Path(__file__).resolve().parent

if "FERROX_LIT_EXEC_ROOT" not in os.environ:  # scratch files (%t) of this process's tests
    _scratch = tempfile.mkdtemp(prefix="ferrox-lit-out-")
    atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
    os.environ["FERROX_LIT_EXEC_ROOT"] = _scratch

CASES = list(lit.LitTestCase.load_test_suite([str(HERE)]))

sys.path.insert(0, str(HERE / "lit_support"))
import tools_in_worker  # noqa: E402


def _name(case) -> str:
    return "/".join(case._test.path_in_suite)


@pytest.mark.parametrize("case", CASES, ids=_name)
def test_lit(case) -> None:
    test = case._test
    with tools_in_worker.installed():  # plain passing pipelines in this process, the rest by lit
        result = lit.worker._execute(test, case._lit_config)
    if result.code is lit.Test.UNSUPPORTED:
        missing = test.getMissingRequiredFeatures()
        pytest.skip(f"needs {', '.join(missing)}, which this machine lacks (lit: UNSUPPORTED)")
    if result.code.isFailure:  # FAIL, XPASS, UNRESOLVED, TIMEOUT
        pytest.fail(f"lit: {result.code.name}: {_name(case)}\n{result.output}", pytrace=False)


def test_the_suite_is_found() -> None:
    """Every `.mlir` file with RUN lines is one of the suite's tests (none dropped by lit)."""
    files = {
        str(p.relative_to(HERE))
        for p in HERE.rglob("*.mlir")
        if "RUN:" in p.read_text() and "Output" not in p.parts
    }
    assert {_name(case) for case in CASES} == files
