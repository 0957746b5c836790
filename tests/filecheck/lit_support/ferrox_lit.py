"""The lit configuration the filecheck suite shares with the suites its own tests make.

`configure` makes a suite of `.mlir` files run by lit's internal shell with:
- `ferrox-opt`, `ferrox` and `filecheck` substituted by tool.py's command (the tool run in a fork
  of the tool server, an internal error counted as a crash), and `%{tool}` for that command
  alone (`%{tool} module:function ARGS`);
- `python` and the tools' folder first on PATH, then bin/ (its `not` serves lit's
  `not --crash`), then ptxas's folder where one is found, with the `ptxas` feature for
  `// REQUIRES: ptxas`;
- the environment passed on: PATH, HOME, temporary folders, locale, and every FERROX_*,
  PYTHON* and CUDA* variable (the kernel cache the test run chose among them), with
  FERROX_ERROR_FORMAT=short where it is not set or empty (the diagnostics' one-line form);
- scratch files (`%t`) under FERROX_LIT_EXEC_ROOT, else a temporary folder, never the checkout.

The tool server starts once per process that loads a configuration (lit, or each pytest
worker) and ends with it; FERROX_LIT_NO_SERVER=1 runs every tool as a new Python instead.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import lit.formats

HERE = Path(__file__).resolve().parent
TOOL = HERE / "tool.py"
SERVER_ENV = "FERROX_LIT_TOOL_SERVER"
PASSED_ON = re.compile(r"(FERROX_|PYTHON|CUDA|NVIDIA_).*|HOME|TMPDIR|TEMP|TMP|LANG|LC_.*|USER")

_server: str | None = None


def tool_command() -> str:
    return f'"{sys.executable}" -S "{TOOL}"'


def start_server() -> str:
    """The socket of this process's tool server, started on first use."""
    global _server
    if _server is None:
        folder = tempfile.mkdtemp(prefix="ferrox-lit-")
        address = os.path.join(folder, "tools")
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), address, str(os.getpid())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

        def stop() -> None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(stop)
        _server = address
    return _server


def find_ptxas() -> str | None:
    from ferrox.targets.toolchain import find_ptxas as find

    return find()


def configure(config, name: str) -> None:
    config.name = name
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = [".mlir"]
    config.excludes = ["lit_support", "Output"]
    exec_root = os.environ.get("FERROX_LIT_EXEC_ROOT") or os.path.join(
        tempfile.gettempdir(), f"ferrox-lit-{os.getuid()}"
    )
    config.test_exec_root = os.path.join(exec_root, name)

    tool = tool_command()
    # A tool's name as a command word (after the start, a blank, `|`, `;`, `&` or `(`, before a
    # blank or the end): never inside a path, an option, or `ferrox-opt` for `ferrox`.
    for word in ("ferrox-opt", "ferrox", "filecheck"):
        pattern = rf"(?<![^\s|;&(]){re.escape(word)}(?![^\s|;&)])"
        config.substitutions.append((pattern, f"{tool} {word}"))
    config.substitutions.append((r"%\{tool\}", tool))

    path = [str(Path(sys.executable).parent), str(HERE / "bin")]
    ptxas = find_ptxas()
    if ptxas is not None:
        config.available_features.add("ptxas")
        path.append(str(Path(ptxas).parent))
    path.append(os.environ.get("PATH", ""))
    for key, value in os.environ.items():
        if PASSED_ON.fullmatch(key):
            config.environment[key] = value
    config.environment["PATH"] = os.pathsep.join(path)
    config.environment["PYTHONSAFEPATH"] = "1"  # no test's folder first on a tool's sys.path
    # The diagnostics' one-line form, which the RUN lines pin (tests/conftest.py sets it too).
    if not config.environment.get("FERROX_ERROR_FORMAT"):
        config.environment["FERROX_ERROR_FORMAT"] = "short"
    if os.environ.get("FERROX_LIT_NO_SERVER") != "1":
        config.environment[SERVER_ENV] = start_server()
