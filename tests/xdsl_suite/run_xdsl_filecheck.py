"""Run xDSL's own FileCheck suite through `ferrox-opt` and through `xdsl-opt`, and compare.

`ferrox-opt` claims to be `xdsl-opt` plus ferrox: every test `xdsl-opt` passes must pass with
`ferrox-opt` standing in for it. The suite is not ours and is not committed: take it from the
xDSL sources of the pinned release (`tests/filecheck` of a checkout), and pass its path:

    python tests/xdsl_suite/run_xdsl_filecheck.py PATH/TO/xdsl/tests/filecheck [SUBDIR ...] [-j N]

Each tool runs the same test files under lit with xDSL's own `lit.cfg`; for `ferrox-opt` a
folder first on PATH holds an `xdsl-opt` that starts `ferrox-opt` instead. Only files whose RUN
lines call `xdsl-opt` are run (the others never reach either tool). Without SUBDIRs the folders
issue 15 measured are run: builtin, arith, func, scf, cf, llvm, math, memref, index and
parser-printer (`all` runs the whole suite). The exit status is 1 when a test passes with
`xdsl-opt` but not with `ferrox-opt` (each such test is listed with its lit output), else 0.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_DIRS = (
    "dialects/builtin",
    "dialects/arith",
    "dialects/func",
    "dialects/scf",
    "dialects/cf",
    "dialects/llvm",
    "dialects/math",
    "dialects/memref",
    "dialects/index",
    "parser-printer",
)

_RESULT = re.compile(
    r"^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED|TIMEOUT): [^:]+ :: (\S+) \(\d+ of \d+\)"
)


def test_files(suite: Path, dirs: list[str]) -> list[Path]:
    """The suite's `.mlir` files under `dirs` (folders or files) whose RUN lines call `xdsl-opt`."""
    roots = [suite] if dirs == ["all"] else [suite / d for d in dirs]
    found: list[Path] = []
    for root in roots:
        if not root.exists():  # the suite's layout changes between releases
            print(f"run_xdsl_filecheck: no folder {root}, skipped", file=sys.stderr)
            continue
        for path in [root] if root.is_file() else sorted(root.rglob("*.mlir")):
            text = path.read_text(errors="replace")
            if any("RUN:" in line and "xdsl-opt" in line for line in text.splitlines()):
                found.append(path)
    return found


def run_lit(files: list[Path], path_dirs: list[str], jobs: int) -> tuple[dict[str, str], str]:
    """lit's verdict on each file (by its path in the suite), and lit's whole output."""
    env = dict(os.environ, PATH=os.pathsep.join([*path_dirs, os.environ.get("PATH", "")]))
    cmd = [str(Path(sys.executable).parent / "lit"), "-v", "--no-progress-bar", f"-j{jobs}"]
    proc = subprocess.run(
        cmd + [str(f) for f in files], env=env, capture_output=True, text=True, check=False
    )
    results = {}
    for line in proc.stdout.splitlines():
        if (m := _RESULT.match(line)) is not None:
            results[m.group(2)] = m.group(1)
    return results, proc.stdout + proc.stderr


def failure_text(log: str, name: str) -> str:
    """lit's block for one failed test (`-v` prints the commands and their output)."""
    start = log.find(f" :: {name} ")
    if start < 0:
        return ""
    end = log.find("\n********************\n", log.find("\n", start) + 1)
    return log[start : end if end > 0 else None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="xDSL's tests/filecheck folder")
    parser.add_argument(
        "dirs", nargs="*", help="folders or files of the suite to run (default: issue 15's)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--quiet", action="store_true", help="no lit output for regressions")
    args = parser.parse_args(argv)
    suite = args.suite.resolve()
    if not (suite / "lit.cfg").exists():
        raise SystemExit(f"run_xdsl_filecheck: {suite} has no lit.cfg (not xDSL's tests/filecheck)")
    files = test_files(suite, args.dirs or list(DEFAULT_DIRS))
    bindir = str(Path(sys.executable).parent)
    xdsl, _ = run_lit(files, [bindir], args.jobs)
    with tempfile.TemporaryDirectory() as shim:
        stand_in = Path(shim) / "xdsl-opt"
        stand_in.write_text(f'#!/bin/sh\nexec "{bindir}/ferrox-opt" "$@"\n')
        stand_in.chmod(0o755)
        ferrox, log = run_lit(files, [shim, bindir], args.jobs)

    def passed(results: dict[str, str]) -> set[str]:
        return {name for name, verdict in results.items() if verdict in ("PASS", "XFAIL")}

    both, x_only, f_only = passed(xdsl) & passed(ferrox), passed(xdsl) - passed(ferrox), set()
    f_only = passed(ferrox) - passed(xdsl)
    print(f"{len(files)} test files (RUN lines calling xdsl-opt) under {suite}")
    print(f"xdsl-opt passes   {len(passed(xdsl))}")
    print(f"ferrox-opt passes {len(passed(ferrox))} ({len(both)} of xdsl-opt's)")
    for name in sorted(f_only):
        print(f"  passes only with ferrox-opt: {name}")
    for name in sorted(x_only):
        print(f"REGRESSION: passes with xdsl-opt, not ferrox-opt: {name}")
        if not args.quiet:
            print(failure_text(log, name))
    return 1 if x_only else 0


if __name__ == "__main__":
    sys.exit(main())
