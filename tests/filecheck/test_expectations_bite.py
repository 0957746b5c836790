"""Every `--verify-diagnostics` file fails once any one of its expected messages is altered.

The invalid tests only prove something if an expectation that does not match makes the run fail;
this alters each file's expectations one at a time (a sample of up to 5 per file, spread over the
file) and checks that ferrox-opt then exits 1 naming the altered text. ferrox-opt runs in this
process (`main(argv)`, its output captured).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from ferrox.driver.tools.opt import main

HERE = Path(__file__).resolve().parent
ANNOTATION = re.compile(
    r"(expected-(?:error|warning|note|remark)(?:-re)?(?:@\S+)?\s*\{\{)(.*)(\}\})"
)


def diagnostic_files() -> list[Path]:
    return sorted(p for p in HERE.rglob("*.mlir") if "--verify-diagnostics" in p.read_text())


def opt_flags(text: str) -> list[str]:
    """The ferrox-opt flags of the file's --verify-diagnostics RUN line (pipeline included)."""
    for line in text.splitlines():
        if "RUN:" in line and "--verify-diagnostics" in line:
            cmd = line.split("RUN:", 1)[1].split("|")[0]
            words = shlex.split(cmd)
            return [w for w in words[1:] if w != "%s"]
    raise AssertionError("no --verify-diagnostics RUN line")


@pytest.mark.parametrize("path", diagnostic_files(), ids=lambda p: str(p.relative_to(HERE)))
def test_altered_expectation_fails(path: Path, tmp_path: Path):
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    annotated = [i for i, line in enumerate(lines) if ANNOTATION.search(line)]
    assert annotated, "a --verify-diagnostics file with no expectations"
    step = max(1, len(annotated) // 5)
    flags = opt_flags(text)
    for index in annotated[::step][:5]:
        mutated = list(lines)
        mutated[index] = ANNOTATION.sub(
            lambda m: m.group(1) + "ZZ-altered " + m.group(2) + m.group(3), lines[index], count=1
        )
        src = tmp_path / path.name
        src.write_text("".join(mutated))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(src), *flags])
        assert code == 1, f"altering line {index + 1} still passed"
        assert "ZZ-altered" in err.getvalue(), err.getvalue()
        assert "Traceback" not in err.getvalue()
