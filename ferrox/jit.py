"""What every Python kernel decorator shares (`ferrox.simt`, `ferrox.tile`): the cache key's
parts, compiling through the on-disk kernel cache, the target a launch compiles for, located
errors, and the `FERROX_DUMP` stages.

A decorated kernel is compiled at its first call for each set of compile-time constants,
argument types and chip. The key holds the kernel's source and the sources it reaches, the plain
constants it reads from its globals, a hash of the frontend's own files, the constants and the
argument types, so a later process skips even the frontend. `FERROX_DUMP` (`ir`, `lowering`,
`llvm`, `ptx`, or `all`; comma-separated) prints each stage to stderr when a kernel is compiled,
or writes `NAME.STAGE.txt` under `FERROX_DUMP_DIR`.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import os
import sys
from collections.abc import Callable, MutableMapping, MutableSet, Sequence
from pathlib import Path
from typing import Any

from ferrox.diagnostics import DiagnosticError
from ferrox.frontend.common.errors import located
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.simt.builder import DeviceFunction

DUMP_ENV = "FERROX_DUMP"
DUMP_DIR_ENV = "FERROX_DUMP_DIR"
DUMP_STAGES = ("ir", "lowering", "llvm", "ptx")

_DECORATORS = ("jit.py", "simt.py", "tile.py")
"""The top-level modules whose code shapes a kernel's IR or artifact (hashed into every key)."""


class KernelState:
    """What every device view of one decorated kernel shares (either track): the function, its
    source (read once), its parameters, compiled artifacts, loaded modules and dumped stages."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.source: FunctionSource | None = None
        self.params: Any = None
        self.artifacts: dict[str, Any] = {}
        self.modules: dict[tuple[str, str], Any] = {}
        self.dumped: set[str] = set()

    def function_source(self) -> FunctionSource:
        if self.source is None:
            self.source = FunctionSource.of(self.fn)
        return self.source

    def parameters(self, read: Callable[[FunctionSource], Any]) -> Any:
        """The kernel's parameters as the track's `read` finds them, read once."""
        if self.params is None:
            self.params = run_frontend(lambda: read(self.function_source()))
        return self.params


def checked_device(device: str) -> str:
    """`device` if the API knows it ("auto", "gpu", "cpu"), else a ValueError naming them."""
    from ferrox.api import DEVICES

    if device not in DEVICES:
        raise ValueError(f"unknown device '{device}' (expected {', '.join(DEVICES)})")
    return device


@functools.cache
def frontend_fingerprint() -> str:
    """A sha256 over the frontend's own files: a change to them changes every kernel's key."""
    import ferrox.frontend

    digest = hashlib.sha256()
    roots = [Path(p) for p in ferrox.frontend.__path__]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    here = Path(__file__).parent
    for name in _DECORATORS:
        path = here / name
        if path.exists():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run_frontend(build: Callable[[], Any]) -> Any:
    """Run a frontend or compiler step; a diagnostic comes out at the Python lines, with the
    traceback cut to the caller (the diagnostic is the message, not ferrox's frames)."""
    try:
        return build()
    except DiagnosticError as e:
        error = located(e)
    raise error.with_traceback(None)


def print_ir(module: Any) -> str:
    """A module's text with every op's `loc(...)`."""
    from ferrox.frontend.common.printing import print_located

    return print_located(module)


def target(device: str) -> tuple[str, str]:
    """(device, chip) a launch compiles for: the GPU's own chip, else the interpreter's sm_90."""
    if device in ("auto", "gpu"):
        from ferrox.driver.runtime.device import device_limits, unavailable_reason

        reason = unavailable_reason(0)
        if reason is None:
            return "gpu", device_limits(0).chip
        if device == "gpu":
            from ferrox.driver.host_runner.errors import BackendUnavailable

            raise BackendUnavailable(reason)
    return "cpu", "sm_90"


def arg_type(value: Any) -> str:
    """An argument's type as the cache key spells it (`numpy:float32`, `float`)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return f"{type(value).__module__.split('.')[0]}:{dtype}"
    return type(value).__name__


def closure(source: FunctionSource) -> tuple[dict[str, str], dict[str, str]]:
    """The sources of the kernel and every device function it reaches, and the values of the
    plain constants they read from their globals: what the IR depends on besides the call."""
    sources: dict[str, str] = {}
    values: dict[str, str] = {}
    todo = [source]
    while todo:
        src = todo.pop()
        label = f"{src.file}:{src.first_line}:{src.name}"
        if label in sources:
            continue
        sources[label] = src.text
        for node in ast.walk(src.tree):
            if not isinstance(node, ast.Name):
                continue
            try:
                value = src.lookup(node.id)
            except KeyError:
                continue
            if isinstance(value, DeviceFunction):
                todo.append(value.source)
            elif isinstance(value, (int, float, str, bool, tuple)):
                values[f"{label}:{node.id}"] = repr(value)
    return sources, values


def cached_artifact(
    name: str,
    key_text: str,
    chip: str,
    build_module: Callable[[], Any],
    artifact_file: str,
    memo: MutableMapping[str, Any],
    dumped: MutableSet[str],
    ptx: bool = True,
) -> Any:
    """The `ModuleArtifact` of a kernel for `chip`: from `memo` (this process), else the disk
    cache under `key_text`, else built (`build_module()`, run only on a miss or for a dump)
    and compiled. Dumps the `FERROX_DUMP` stages once per specialisation. `ptx=False`: the CPU
    interpreter's artifact (no NVPTX, no ptxas; `targets.compile.compile_module`)."""
    from ferrox.artifact import SCHEMA_VERSION, ModuleArtifact
    from ferrox.lowering import knobs
    from ferrox.targets.cache import KernelKey, default_cache

    moved = repr(knobs.changed())  # a flipped lowering knob compiles anew (lowering/knobs.py)
    key_hash = hashlib.sha256(f"{chip}\0{ptx}\0{moved}\0{key_text}".encode()).hexdigest()
    if key_hash in memo:
        return memo[key_hash]
    stages = dump_stages()
    built: list[Any] = []

    def module() -> Any:
        if not built:
            built.append(run_frontend(build_module))
        return built[0]

    def compile_it() -> bytes:
        import ferrox.api

        artifact = run_frontend(lambda: ferrox.api.compile(module(), chip, cache=False, ptx=ptx))
        # The interpreter runs `source`: with the Python locations kept, a trap names the line.
        artifact = dataclasses.replace(artifact, source=print_ir(module()))
        return artifact.to_json().encode()

    options = {"opt": 3, "schema": SCHEMA_VERSION, **({} if ptx else {"ptx": False})}
    key = KernelKey(key_text, chip, options, artifact=artifact_file)
    artifact = default_cache().get_or_compile(key, compile_it, ModuleArtifact.from_json)
    if stages and key_hash not in dumped:
        dumped.add(key_hash)
        dump(name, stages, module(), artifact)
    memo[key_hash] = artifact
    return artifact


def dump_stages() -> tuple[str, ...]:
    raw = os.environ.get(DUMP_ENV, "").strip()
    if not raw:
        return ()
    asked = {s.strip() for s in raw.split(",") if s.strip()}
    if "all" in asked:
        return DUMP_STAGES
    return tuple(s for s in DUMP_STAGES if s in asked)


def dump(name: str, stages: Sequence[str], module: Any, artifact: Any) -> None:
    folder = os.environ.get(DUMP_DIR_ENV)

    def write(stage: str, text: str) -> None:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            (Path(folder) / f"{name}.{stage}.txt").write_text(text, encoding="utf-8")
        else:
            print(f"// ----- {name}: {stage} -----\n{text}", file=sys.stderr)

    if "ir" in stages:
        write("ir", print_ir(module))
    if "lowering" in stages or "llvm" in stages:
        from ferrox.lowering.pipeline import lower_to_llvm
        from ferrox.targets.llvm_export import to_llvm_ir

        lowered = module.clone()
        steps: list[str] = []

        def snapshot(previous: Any, current: Any, _next: Any) -> None:
            if previous is not None:
                steps.append(f"// after {previous.name}\n{print_ir(current)}")

        lower_to_llvm(lowered, None, snapshot)
        if "lowering" in stages:
            write("lowering", "\n".join(steps))
        if "llvm" in stages:
            write("llvm", to_llvm_ir(lowered))
    if "ptx" in stages:
        # a CPU run's artifact has none (the interpreter needs no NVPTX): made here, for the dump
        if not artifact.ptx:
            import ferrox.api

            artifact = ferrox.api.compile(module, artifact.chip, cache=False)
        write("ptx", artifact.ptx)


__all__ = [
    "DUMP_DIR_ENV",
    "DUMP_ENV",
    "DUMP_STAGES",
    "arg_type",
    "cached_artifact",
    "closure",
    "dump",
    "dump_stages",
    "frontend_fingerprint",
    "print_ir",
    "run_frontend",
    "target",
]
