"""Collect `.mlir` files with `// RUN:` lines as tests, the way lit runs them.

Each RUN line is a bash pipeline with `set -o pipefail`; `%s` is the file, `%S` its folder, `%t`
a scratch path; `not CMD` inverts an exit status as in lit. `// REQUIRES: ptxas` skips with a
reason where NVIDIA's assembler is missing.

A pipeline's leading `ferrox-opt` and `ferrox` commands run in this process (`main(argv)` with
its standard streams captured), the rest in bash with their output as its input: a new Python
that imports xDSL and the lowering costs about half a second, more than most RUN lines' work.
What runs in process is only the plain form, `[not] TOOL ARGS [2>&1] [> FILE] [< FILE]`; any
other shell syntax sends the whole line to bash, as before. The exit status is bash's under
pipefail (the last stage that failed), and a Python warning the tool raises is written to its
standard error (after its other output), as a new Python would print it.

The suite runs in parallel (pytest-xdist): each worker gets a kernel cache of its own.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Tests import the installed ferrox. `python -m pytest` puts the working directory first on
# sys.path, where the checkout's `ferrox/` folder (the core alone: setup.py maps the other root
# folders into the package) would shadow a non-editable install. Drop it before anything imports
# ferrox; an editable install still resolves to the checkout through its own finder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
# The same for every Python the tests start (`python -m ferrox.driver.tools.opt`, the console
# scripts): no working directory first on their sys.path either.
os.environ["PYTHONSAFEPATH"] = "1"
# The tools' diagnostics in their one-line form (`file:line:col: error[CODE]: ...`), which the
# tests pin; tests of the human form ask for it (`--error-format=human`).
os.environ["FERROX_ERROR_FORMAT"] = "short"
assert "ferrox" not in sys.modules, "ferrox was imported before tests/conftest.py"

_OWN_CACHE = "FERROX_TEST_OWN_CACHE"
"""Set (to the folder) when the run made its kernel cache itself, so it may remove it."""


def pytest_configure(config: pytest.Config) -> None:
    """The whole run (and the tools it starts) uses a kernel cache of its own, never the user's:
    a test must not be answered by PTX a different compiler left behind. Under xdist each
    worker makes its own (a worker inherits the controller's environment, so it replaces a
    folder the controller made rather than share it): the tests that count compiles and hits
    then see only their own worker's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    made = os.environ.get(_OWN_CACHE)
    if "FERROX_CACHE_DIR" not in os.environ or (worker and made == os.environ["FERROX_CACHE_DIR"]):
        import tempfile

        prefix = f"ferrox-test-cache-{worker}-" if worker else "ferrox-test-cache-"
        folder = tempfile.mkdtemp(prefix=prefix)
        os.environ["FERROX_CACHE_DIR"] = os.environ[_OWN_CACHE] = folder
        config._ferrox_cache = folder  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "_ferrox_cache", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


_RUN = re.compile(r"//\s*RUN:\s*(.*)$")
_REQUIRES = re.compile(r"//\s*REQUIRES:\s*(.*)$")


def _tool_path() -> str:
    """Put the running interpreter's scripts (ferrox-opt, filecheck) first on PATH."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def find_ptxas() -> str | None:
    from ferrox.targets.toolchain import find_ptxas as find

    return find()


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix == ".mlir" and "RUN:" in file_path.read_text(errors="replace"):
        return MlirFile.from_parent(parent, path=file_path)
    return None


class MlirFile(pytest.File):
    def collect(self):
        yield MlirTest.from_parent(self, name=self.path.name)


class MlirTest(pytest.Item):
    def runtest(self) -> None:
        text = self.path.read_text()
        runs: list[str] = []
        pending = ""
        for line in text.splitlines():
            if (m := _REQUIRES.search(line)) is not None:
                for feature in (f.strip() for f in m.group(1).split(",")):
                    if feature == "ptxas" and find_ptxas() is None:
                        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
            if (m := _RUN.search(line)) is not None:
                cmd = pending + m.group(1)
                if cmd.endswith("\\"):
                    pending = cmd[:-1] + " "
                    continue
                pending = ""
                runs.append(cmd)
        assert runs, "no RUN lines"
        tmp = Path(self.config._tmp_path_factory.mktemp(self.path.stem))  # type: ignore[attr-defined]
        env = dict(os.environ, PATH=_tool_path())
        for cmd in runs:
            expanded = (
                cmd.replace("%s", str(self.path))
                .replace("%S", str(self.path.parent))
                .replace("%t", str(tmp / "out"))
            )
            code, out, err = run_line(expanded, env)
            if code != 0:
                raise MlirTestFailure(expanded, out, err, code)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MlirTestFailure):
            e = excinfo.value
            return f"RUN: {e.cmd}\nexit {e.code}\n--- stdout ---\n{e.out}\n--- stderr ---\n{e.err}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"mlir: {self.path.relative_to(ROOT)}"


class MlirTestFailure(Exception):
    def __init__(self, cmd: str, out: str, err: str, code: int):
        super().__init__(cmd)
        self.cmd, self.out, self.err, self.code = cmd, out, err, code


# -- running a RUN line ------------------------------------------------------------------------


def run_line(cmd: str, env: dict[str, str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one RUN line: its leading ferrox tools in process, the
    rest (or, for any shell syntax beyond the plain form, all of it) in bash."""
    stages = split_pipeline(cmd)
    statuses: list[int] = []
    data, errors = "", []
    while stages:
        stage = InProcess.parse(stages[0])
        if stage is None:
            break
        stages.pop(0)
        code, data, err = stage.run(data)
        statuses.append(code)
        errors.append(err)
    if stages:
        script = 'set -o pipefail\nnot() { ! "$@"; }\n' + " | ".join(stages)
        proc = subprocess.run(
            ["bash", "-c", script], input=data, capture_output=True, text=True, env=env, cwd=ROOT
        )
        statuses.append(proc.returncode)
        data = proc.stdout
        errors.append(proc.stderr)
    failed = [s for s in statuses if s != 0]
    return (failed[-1] if failed else 0), data, "".join(errors)


def split_pipeline(cmd: str) -> list[str]:
    """The stages of `a | b | c` (a `|` inside quotes is not a separator); a line with `||`
    is one stage, which bash then runs whole."""
    stages, current, quote, i = [], [], "", 0
    while i < len(cmd):
        c = cmd[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(cmd):
                current.append(c)
                i += 1
                c = cmd[i]
        elif c in "'\"":
            quote = c
        elif c == "\\" and i + 1 < len(cmd):
            current.append(c)
            i += 1
            c = cmd[i]
        elif c == "|":
            if cmd[i + 1 : i + 2] == "|":
                return [cmd]
            stages.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    stages.append("".join(current).strip())
    return stages


_TOOLS = {"ferrox-opt": "ferrox.driver.tools.opt", "ferrox": "ferrox.driver.tools.cli"}


@dataclass
class InProcess:
    """`[not] TOOL ARGS [2>&1] [> FILE] [< FILE]`, run by calling the tool's `main(argv)`."""

    invert: bool
    tool: str
    argv: list[str]
    merge_stderr: bool = False
    stdout_to: str | None = None
    stdin_from: str | None = None

    @classmethod
    def parse(cls, stage: str) -> InProcess | None:
        lexer = shlex.shlex(stage, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            return None
        invert = bool(tokens) and tokens[0] == "not"
        tokens = tokens[1:] if invert else tokens
        if not tokens or tokens[0] not in _TOOLS:
            return None
        if re.search(r"[$`*?~]", stage):  # expansions: bash's business
            return None
        found = cls(invert, tokens[0], [])
        rest = tokens[1:]
        while rest:
            if rest[:3] == ["2", ">&", "1"]:
                found.merge_stderr, rest = True, rest[3:]
            elif rest[0] in (">", "<") and len(rest) > 1 and not _punctuation(rest[1]):
                if rest[0] == ">":
                    found.stdout_to = rest[1]
                else:
                    found.stdin_from = rest[1]
                rest = rest[2:]
            elif _punctuation(rest[0]):
                return None
            else:
                found.argv.append(rest[0])
                rest = rest[1:]
        if found.merge_stderr and found.stdout_to is not None:
            return None  # `2>&1 > f` and `> f 2>&1` differ: bash knows the order
        return found

    def run(self, stdin: str) -> tuple[int, str, str]:
        import importlib

        main = importlib.import_module(_TOOLS[self.tool]).main
        if self.stdin_from is not None:
            stdin = Path(self.stdin_from).read_text()
        out = io.StringIO()
        err = out if self.merge_stderr else io.StringIO()
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(err))
            stack.enter_context(_stdin(stdin))
            stack.enter_context(_cwd(ROOT))
            caught = stack.enter_context(warnings.catch_warnings(record=True))
            _python_warning_filters()
            try:
                code = main(self.argv)
            except SystemExit as e:  # argparse's usage errors
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
            for w in caught:
                err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))
        code = int(code or 0)
        if self.invert:
            code = 0 if code != 0 else 1
        text = out.getvalue()
        if self.stdout_to is not None:
            Path(self.stdout_to).write_text(text)
            text = ""
        return code, text, "" if self.merge_stderr else err.getvalue()


def _python_warning_filters() -> None:
    """A new Python's warning filters (no -W options): pytest's show every warning."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__", append=True)
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category, append=True)


def _punctuation(token: str) -> bool:
    return bool(token) and all(c in "();<>|&" for c in token)


@contextlib.contextmanager
def _stdin(text: str):
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


@contextlib.contextmanager
def _cwd(path: Path):
    saved = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(saved)
