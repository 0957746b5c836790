"""`# <- NAME` markers in a test file's lines: where a test expects a diagnostic."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path


def marked_lines(path: Path) -> dict[str, int]:
    """Each marker's 1-based line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = ((n, re.search(r"# <- (\w+)", line)) for n, line in enumerate(lines, 1))
    return {m.group(1): n for n, m in found if m}


def locator(path: Path) -> Callable[[str, int], str]:
    """`at(marker, col)`: the `file:line:col` a diagnostic at that marker's line starts with."""
    lines = marked_lines(path)
    return lambda marker, col: f"{path}:{lines[marker]}:{col}"
