"""docs/getting-started.md shows, under each `<!-- diagnostic: COMMAND -->` marker, exactly what
COMMAND prints on standard error (run from the repository's root, in the human form): the page's
diagnostics are the tools' own. `python tests/docs/test_getting_started.py` rewrites the blocks."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
_BLOCK = re.compile(r"<!-- diagnostic: (?P<command>[^>]+?) -->\n```text\n(?P<body>.*?)```", re.S)


def tool_stderr(command: str) -> tuple[int, str]:
    """(exit status, standard error) of a `ferrox ...` command, run in this process."""
    from ferrox.driver.tools.cli import main

    argv = shlex.split(command)
    assert argv[0] == "ferrox", command
    err = io.StringIO()
    cwd, form = os.getcwd(), os.environ.get("FERROX_ERROR_FORMAT")
    os.chdir(ROOT)
    os.environ["FERROX_ERROR_FORMAT"] = "human"  # what a user sees (the suite runs with short)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([*argv[1:], "-o", os.devnull])
    finally:
        os.chdir(cwd)
        if form is None:
            del os.environ["FERROX_ERROR_FORMAT"]
        else:
            os.environ["FERROX_ERROR_FORMAT"] = form
    return code, err.getvalue()


def blocks() -> list[re.Match[str]]:
    return list(_BLOCK.finditer(PAGE.read_text()))


def test_the_page_has_diagnostic_blocks():
    assert [m.group("command") for m in blocks()] == [
        "ferrox compile docs/examples/double_write.mlir"
    ]


@pytest.mark.parametrize("found", blocks(), ids=lambda m: m.group("command"))
def test_each_diagnostic_is_what_the_tool_prints(found):
    code, err = tool_stderr(found.group("command"))
    assert code == 1
    assert found.group("body") == err, "stale: run `python tests/docs/test_getting_started.py`"


if __name__ == "__main__":
    text = PAGE.read_text()
    fresh = _BLOCK.sub(
        lambda m: (
            f"<!-- diagnostic: {m.group('command')} -->\n```text\n"
            f"{tool_stderr(m.group('command'))[1]}```"
        ),
        text,
    )
    PAGE.write_text(fresh)
    sys.exit(0)
