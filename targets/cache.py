"""Compiled kernels, kept in memory and on disk so each is compiled once per machine.

`compile_cached(source, chip=...)` is the compiler's entry point for everyone who launches: it
returns the `ModuleArtifact`, from the cache when the key matches, else parsing, verifying and
compiling the source (only on a miss) and storing the artifact's JSON.

The key is a sha256 over everything that can change the result: the source text (by its hash),
the chip and every target option, the artifact's `SCHEMA_VERSION`, a fingerprint of the compiler
itself (a sha256 over the installed ferrox package's `.py` files), and the versions of xDSL,
llvmlite (LLVM's PTX changes between releases) and ptxas, and any lowering knob flipped from its
default (`lowering/knobs.py`: a benchmark's A/B gets each schedule's artifact). An entry that
does not decode (damaged, or of another schema) is a miss: it is compiled again and replaced.
The disk folder is `$FERROX_CACHE_DIR`, else `$XDG_CACHE_HOME/ferrox`, else `~/.cache/ferrox`.

A hit costs a hash of the text and a file read: nothing is parsed, and nothing of xDSL, the
dialects or the lowering is imported (they load on a miss). Hashing every compiler source,
asking importlib for xDSL's version and running `ptxas --version` cost tens of milliseconds,
so a new process reads them from a memo in the cache folder, keyed by what would change them:
each compiler file's size and modification time, the xDSL and llvmlite distributions' folder
names, ptxas's path, size and modification time (`toolchain_versions`).

Several processes may compile the same kernel at once (pytest-xdist, a parallel build). Each
entry is compiled under an exclusive lock on its own lock file, so one process compiles and the
others wait and read its result; the entry is written to a temporary file in the same folder and
renamed into place (`os.replace`), so a reader sees the whole entry or none of it. A folder that
cannot be written degrades to an in-memory cache with one warning, never to a failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ferrox.artifact import SCHEMA_VERSION, ModuleArtifact
from ferrox.targets.timing import Timings, stage
from ferrox.targets.toolchain import find_ptxas

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

SUBPACKAGES = ("dialects", "passes", "lowering", "targets", "driver", "frontend")
"""The root folders setup.py maps onto `ferrox.*` (keep the two lists alike)."""

CACHE_ENV = "FERROX_CACHE_DIR"
LAYOUT = "v1"  # bump when the on-disk layout changes


def default_cache_dir() -> Path:
    """Where compiled kernels live, read from the environment at each call."""
    if configured := os.environ.get(CACHE_ENV):
        return Path(configured).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "ferrox"
    return Path.home() / ".cache" / "ferrox"


COMPILER_PACKAGES = ("ferrox", *(f"ferrox.{sub}" for sub in SUBPACKAGES))


def compiler_sources() -> list[tuple[str, Path]]:
    """Every `.py` file of the installed ferrox package, as (a stable name, its path).

    The package's root folders are mapped onto `ferrox.*` (setup.py), so each is found through
    its own import spec (without importing it) rather than under one folder."""
    files: list[tuple[str, str]] = []
    for package in COMPILER_PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec is not None else []:
            files.extend(_py_files(package, root, hidden=package == "ferrox"))
    return [(name, Path(path)) for name, path in sorted(files)]


def _py_files(package: str, root: str, hidden: bool) -> list[tuple[str, str]]:
    """(`package/relative/path.py`, its path) of every `.py` file under `root`, at any depth;
    `hidden=False` leaves out what sits under a top-level name starting with a dot. A cache
    hit in a new process walks every compiler folder (`toolchain_signature`): os.scandir's walk
    is about 4x cheaper than pathlib's `rglob` and `relative_to`."""
    found: list[tuple[str, str]] = []
    stack = [(root, f"{package}/")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        top = prefix == f"{package}/"
        for entry in entries:
            if top and not hidden and entry.name.startswith("."):
                continue
            if entry.is_dir():
                stack.append((entry.path, f"{prefix}{entry.name}/"))
            elif entry.name.endswith(".py"):
                found.append((prefix + entry.name, entry.path))
    return found


def fingerprint(sources: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for name, path in sources:
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def compiler_fingerprint() -> str:
    """The compiler's own fingerprint, computed once per process (a change to any module of
    the package, a lowering most of all, gives another key)."""
    return fingerprint(compiler_sources())


PLUGIN_GROUPS = ("ferrox.dialects", "ferrox.passes", "ferrox.lowerings", "ferrox.interpreter")
"""ferrox/registry.py's entry-point groups: what an installed plugin adds to the compiler."""


def plugin_modules() -> list[tuple[str, str]]:
    """(distribution folder, top-level module) of every installed ferrox plugin, read from the
    distributions' `entry_points.txt` on sys.path without importing importlib.metadata (whose
    import would cost a cache hit more than the rest of its work)."""
    found: set[tuple[str, str]] = set()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                text = Path(folder or ".", name, "entry_points.txt").read_text()
            except (OSError, UnicodeDecodeError):
                continue
            group = ""
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("[") and line.endswith("]"):
                    group = line[1:-1].strip()
                elif group in PLUGIN_GROUPS and "=" in line:
                    target = line.split("=", 1)[1].split(":", 1)[0].strip()
                    found.add((name, target.split(".", 1)[0]))
    return sorted(found)


@functools.cache
def plugins_fingerprint() -> str:
    """The installed plugins and their sources: a plugin's lowering, verifier or dialect decides
    a kernel's bytes as much as the compiler's own modules, and an editable plugin changes
    without a new version. "" when no plugin is installed (the common case costs a listing of
    sys.path's folders). Never memoised on disk: installing a plugin changes no toolchain file."""
    plugins = plugin_modules()
    if not plugins:
        return ""
    sources: list[tuple[str, Path]] = []
    for dist, module in plugins:
        sources.append((f"dist:{dist}", Path(os.devnull)))
        spec = importlib.util.find_spec(module)
        roots = (spec.submodule_search_locations or []) if spec is not None else []
        if spec is not None and spec.origin and not roots:
            sources.append((f"{module}.py", Path(spec.origin)))
        for root in roots:
            for path in sorted(Path(root).rglob("*.py")):
                sources.append((f"{module}/{path.relative_to(root).as_posix()}", path))
    return fingerprint(sources)


@functools.cache
def ptxas_version() -> str:
    """`ptxas --version`'s last line (`absent` where there is none), once per process."""
    ptxas = find_ptxas()
    if ptxas is None:
        return "absent"
    try:
        out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return f"unusable: {e}"
    lines = out.stdout.strip().splitlines()
    return lines[-1] if lines else f"exit status {out.returncode}"


def _measured_versions() -> dict[str, str]:
    import llvmlite
    import xdsl

    return {
        "compiler": compiler_fingerprint(),
        "xdsl": str(xdsl.__version__),
        "llvmlite": str(llvmlite.__version__),
        "ptxas": ptxas_version(),
    }


def _distribution(package: str) -> str:
    """The installed distribution's metadata folder name (it carries the version), found
    without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return "absent"
    site = Path(spec.origin).parent.parent
    found = sorted(p.name for p in site.glob(f"{package}-*.dist-info"))
    return ",".join(found) or f"{package} at {site}"


def _stat(path: str | Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


@functools.cache
def toolchain_signature() -> str:
    """What would change `toolchain_versions()`, read from file metadata alone (a millisecond):
    every compiler source's size and mtime, the xDSL and llvmlite distributions, ptxas's path
    and stat, and this Python. Once per process."""
    digest = hashlib.sha256()
    for name, path in compiler_sources():
        digest.update(f"{name}\0{_stat(path)}\0".encode())
    ptxas = find_ptxas()
    for part in (
        _distribution("xdsl"),
        _distribution("llvmlite"),
        f"{ptxas}:{_stat(ptxas) if ptxas else ''}",
        sys.version,
    ):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


_versions: dict[str, str] | None = None
_memos: set[Path] = set()  # the folders this process knows to hold its memo


def _memo_path(folder: Path) -> Path:
    return folder / f"toolchain-{toolchain_signature()[:32]}.json"


def toolchain_versions() -> dict[str, str]:
    """What besides the source and the options decides a compiled kernel's bytes; once per
    process, from the cache folder's memo when its signature matches."""
    global _versions
    if _versions is None:
        folder = default_cache_dir()
        memo = _memo_path(folder)
        try:
            found = json.loads(memo.read_text())
            if not isinstance(found, dict) or set(found) != {
                "compiler",
                "xdsl",
                "llvmlite",
                "ptxas",
            }:
                raise ValueError(memo)
            _versions = {str(k): str(v) for k, v in found.items()}
            _memos.add(folder)
        except (OSError, ValueError):
            _versions = _measured_versions()  # the memo is written with the first entry
    return _versions


def remember_versions(folder: Path) -> None:
    """Leave this process's versions in the cache folder `folder` too, beside its layout
    folders (an entry was just written there): a new process that hits the entry then need
    not measure them."""
    if _versions is not None and folder not in _memos:
        _memos.add(folder)
        memo = _memo_path(folder)
        if not memo.exists():
            _write_memo(memo, json.dumps(_versions))


def _write_memo(path: Path, text: str) -> None:
    """Write a memo atomically; a folder that cannot be written only costs the next process
    the measurement again."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)


def _canonical_options(options: Any) -> Any:
    """A JSON-stable form of compile options: a mapping, a frozen dataclass, a sequence, a str."""
    if dataclasses.is_dataclass(options) and not isinstance(options, type):
        options = dataclasses.asdict(options)
    if isinstance(options, Mapping):
        return {
            str(k): _canonical_options(v)
            for k, v in sorted(options.items(), key=lambda kv: str(kv[0]))
        }
    if isinstance(options, (list, tuple)):
        return [_canonical_options(v) for v in options]
    if options is None or isinstance(options, (bool, int, float, str)):
        return options
    return repr(options)


def flipped_knobs() -> tuple[tuple[str, Any], ...]:
    """The lowering knobs not at their defaults (`lowering/knobs.py`). Where the lowering was
    never imported (a cache hit in a new process) none can have moved, and it is not imported."""
    knobs = sys.modules.get("ferrox.lowering.knobs")
    return knobs.changed() if knobs is not None else ()


@dataclass(frozen=True)
class KernelKey:
    """What a compiled kernel depends on. `artifact` names what compile_fn returns (ptx, cubin)."""

    ir: str
    chip: str
    options: Any = ()
    artifact: str = "ptx"

    def parts(self) -> dict[str, Any]:
        """The canonical parts hashed into the key (the IR by its own sha256)."""
        return {
            "ir_sha256": hashlib.sha256(self.ir.encode()).hexdigest(),
            "chip": self.chip,
            "options": _canonical_options(self.options),
            "artifact": self.artifact,
            **toolchain_versions(),
            **({"plugins": plugged} if (plugged := plugins_fingerprint()) else {}),
            **({"knobs": moved} if (moved := flipped_knobs()) else {}),
        }

    def digest(self) -> str:
        text = json.dumps(self.parts(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _as_key(key_parts: KernelKey | Mapping[str, Any]) -> KernelKey:
    if isinstance(key_parts, KernelKey):
        return key_parts
    if isinstance(key_parts, Mapping):
        unknown = set(key_parts) - {f.name for f in dataclasses.fields(KernelKey)}
        if unknown:
            raise TypeError(f"unknown kernel key parts: {', '.join(sorted(unknown))}")
        return KernelKey(**key_parts)
    raise TypeError(f"key_parts must be a KernelKey or a mapping, not {type(key_parts).__name__}")


class KernelCache:
    """`get_or_compile(key_parts, compile_fn)`: bytes from memory, else disk, else compile_fn()."""

    def __init__(self, directory: str | os.PathLike[str] | None = None, *, disk: bool = True):
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.disk = disk
        self._memory: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._warned = False
        self.memory_hits = 0
        self.disk_hits = 0
        self.compiles = 0

    @property
    def folder(self) -> Path:
        """The folder entries are written to (the layout version keeps old layouts apart)."""
        return self.directory / LAYOUT

    def path_for(self, key_parts: KernelKey | Mapping[str, Any]) -> Path:
        key = _as_key(key_parts)
        return self.folder / f"{key.digest()}.{key.artifact}"

    def get_or_compile(
        self,
        key_parts: KernelKey | Mapping[str, Any],
        compile_fn: Callable[[], bytes],
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """The entry's bytes (or, with `decode`, what it makes of them): from memory, else
        disk, else `compile_fn()`. An entry `decode` refuses (ValueError) is a miss."""
        key = _as_key(key_parts)
        digest = key.digest()
        with self._lock:
            if digest in self._memory:
                self.memory_hits += 1
                return self._memory[digest]
        path = self.folder / f"{digest}.{key.artifact}"
        value = self._load(path, decode)
        if value is not None:
            self.disk_hits += 1
        else:
            with self._exclusive(digest):
                value = self._load(path, decode)  # another process may have finished meanwhile
                if value is not None:
                    self.disk_hits += 1
                else:
                    data = compile_fn()
                    if isinstance(data, str):
                        data = data.encode()
                    if not isinstance(data, (bytes, bytearray)):
                        raise TypeError(f"compile_fn must return bytes, not {type(data).__name__}")
                    data = bytes(data)
                    value = decode(data) if decode is not None else data
                    self.compiles += 1
                    self._write(path, data)
                    if self.disk:
                        remember_versions(self.directory)
        with self._lock:
            self._memory[digest] = value
        return value

    def lookup(
        self,
        key_parts: KernelKey | Mapping[str, Any],
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """The entry (decoded) from memory or disk, else None; compiles nothing."""
        key = _as_key(key_parts)
        digest = key.digest()
        with self._lock:
            if digest in self._memory:
                self.memory_hits += 1
                return self._memory[digest]
        value = self._load(self.folder / f"{digest}.{key.artifact}", decode)
        if value is not None:
            self.disk_hits += 1
            with self._lock:
                self._memory[digest] = value
        return value

    def _load(self, path: Path, decode: Callable[[bytes], Any] | None) -> Any:
        data = self._read(path)
        if data is None or decode is None:
            return data
        try:
            return decode(data)
        except ValueError:
            return None  # damaged, or written by another schema: compile it again

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()

    # -- disk
    def _read(self, path: Path) -> bytes | None:
        if not self.disk:
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    def _write(self, path: Path, data: bytes) -> None:
        if not self.disk:
            return
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            self._warn(f"cannot write to the kernel cache {self.folder}: {exc}")
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    @contextlib.contextmanager
    def _exclusive(self, digest: str) -> Iterator[None]:
        """Hold the entry's lock file, so concurrent processes compile it once between them."""
        if not self.disk:
            yield
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / f"{digest}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            self._warn(f"cannot use the kernel cache {self.folder}: {exc}")
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"{message}; kernels are cached in memory only", RuntimeWarning, stacklevel=3
            )


def cache_usage(directory: str | os.PathLike[str] | None = None) -> tuple[int, int]:
    """(entries, bytes) in a cache folder; (0, 0) when it does not exist yet."""
    folder = (Path(directory) if directory is not None else default_cache_dir()) / LAYOUT
    entries = size = 0
    try:
        for item in folder.iterdir():
            if item.is_file() and not item.name.startswith(".") and item.suffix != ".lock":
                entries += 1
                size += item.stat().st_size
    except OSError:
        pass
    return entries, size


_shared: dict[Path, KernelCache] = {}
_shared_lock = threading.Lock()


def default_cache() -> KernelCache:
    """The process-wide cache for the folder the environment names now."""
    directory = default_cache_dir()
    with _shared_lock:
        if (cache := _shared.get(directory)) is None:
            cache = _shared[directory] = KernelCache(directory)
        return cache


# -- the compiler, through the cache ------------------------------------------------------


def compile_module(module: ModuleOp, **options: Any) -> ModuleArtifact:
    """`ferrox.targets.compile.compile_module`, imported on the first miss (with it, xDSL and
    the whole lowering)."""
    from ferrox.targets.compile import compile_module as compile

    return compile(module, **options)


def artifact_key(
    text: str, chip: str | None, features: str | None, opt: int, **more: Any
) -> KernelKey:
    """The cache key of the artifact of `text` for these options (`more`: what else the
    caller's compile depends on, such as `ferrox compile`'s whole-program checks)."""
    options = {"features": features, "opt": opt, "schema": SCHEMA_VERSION, **more}
    return KernelKey(text, chip or "", options, artifact="artifact.json")


def compile_cached(
    source: str | os.PathLike[str] | ModuleOp,
    *,
    chip: str | None = "sm_90",
    features: str | None = None,
    opt: int = 3,
    cache: bool = True,
    filename: str | None = None,
    timings: Timings | None = None,
    ptx: bool = True,
    portable: str = "",
) -> ModuleArtifact:
    """The `ModuleArtifact` of `source`: a path (`Path`, or a `str` naming an `.mlir` file),
    MLIR text, or a parsed module. On a miss it is parsed and verified (op verifiers, then
    `verify-disjoint` as the compiler's first stage; a located `DiagnosticError` for anything
    wrong) and compiled by `compile_module`; a hit does neither, and imports neither.
    `chip=None`: the module's `ferrox.chip` attribute, else sm_90. `filename` names text in
    diagnostics; `timings` gets each stage's time (`key`, `cache` for the lookup, `parse`,
    `verify`, the compile's stages, `store`). `ptx=False`: the CPU interpreter's artifact
    (`compile_module`'s, without NVPTX and ptxas), under a key of its own. `portable`: the
    artifact of that tile kernel's portable twin alone (`portable_artifact`), under a key of
    its own; its source is `source`'s with the module's `"ferrox.portable"` naming the kernel."""
    with stage(timings, "read"):
        text, name, module = _source_text(source, filename)
    with stage(timings, "key"):
        more: dict[str, Any] = {} if ptx else {"ptx": False}
        if portable:
            more["portable"] = portable
        key = artifact_key(text, chip, features, opt, **more)
        key.digest()  # the toolchain's versions, once per process

    built: list[ModuleArtifact] = []  # what `build` made: its JSON's own decoding

    def make() -> ModuleArtifact:
        parsed, ctx, rest = module, None, None
        if portable and parsed is not None:
            parsed = parsed.clone()  # (the caller's module keeps its attributes)
        if ptx:  # (an experiment, off by default: `llvm_worker.WARM_UP`)
            from ferrox.targets.llvm_worker import warm_up

            warm_up()
        if parsed is None:
            with stage(timings, "parse"):
                parsed, ctx, rest = _parse(text, name)
        if portable:
            _request_twin(parsed, portable)
        # The op verifiers run inside the compile, while ptxas works (`verified=False`): a
        # module that fails them gets their errors all the same, and no artifact. The parse's
        # context serves the lowering.
        # Likewise the parse of its host code (`rest`), while LLVM works. A module given
        # parsed was printed for the key already: that text is the artifact's source.
        options = {"ctx": ctx, "verified": False, "rest": rest, "ptx": ptx, **_timed(timings)}
        if module is not None and not portable:
            options["source"] = text
        else:  # (parsed here: `verify-disjoint` may check it as it is, while LLVM works)
            options["fresh"] = True
        return compile_module(parsed, chip=chip, features=features, opt=opt, **options)

    def build() -> bytes:
        artifact = make()
        built.append(artifact)
        with stage(timings, "store"):
            return artifact.to_json().encode()

    def decode(data: bytes) -> ModuleArtifact:
        """The artifact `build` just made (equal to its JSON's decoding, which the test of
        every example's round trip holds), else the stored one's."""
        return built.pop() if built else ModuleArtifact.from_json(data)

    if not cache:
        return make()
    with stage(timings, "cache"):
        found = default_cache().lookup(key, ModuleArtifact.from_json)
    if found is not None:
        return found
    return default_cache().get_or_compile(key, build, decode)


def portable_artifact(artifact: ModuleArtifact, kernel: str) -> ModuleArtifact:
    """The artifact of the portable twin of tile kernel `kernel` of `artifact` (the kernel
    named `artifact[kernel].tile.portable`, lowered without TMA: `cp.async` + `mma.sync`),
    compiled the first time a launch needs it, for the tensors no TMA map can describe: the
    compile of the kernel itself leaves it out (it was a third to a half of the compile of the
    tile GEMMs and attention). The same source, target and options, with the module's
    `"ferrox.portable"` naming `kernel`, under a key of its own in the same cache; the twin
    goes through the whole compile (the verifiers, `verify-disjoint` on what the lowering
    made, the artifact's facts), and a twin that cannot be made is its `DiagnosticError`."""
    return compile_cached(
        artifact.source,
        chip=artifact.chip,
        features=artifact.features,
        opt=artifact.opt,
        filename="<artifact>",
        portable=kernel,
    )


def _request_twin(module: ModuleOp, kernel: str) -> None:
    """Mark `module` to be lowered to `kernel`'s portable twin alone."""
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    from ferrox.lowering.tile_to_simt.kernel import PORTABLE_ATTR

    module.attributes[PORTABLE_ATTR] = ArrayAttr([StringAttr(kernel)])


def _timed(timings: Timings | None) -> dict[str, Any]:
    return {} if timings is None else {"timings": timings}


def _source_text(
    source: str | os.PathLike[str] | ModuleOp, filename: str | None
) -> tuple[str, str, ModuleOp | None]:
    if not isinstance(source, (str, os.PathLike)):  # a parsed module (xDSL's ModuleOp)
        return str(source), filename or "<module>", source
    if isinstance(source, str) and not (source.endswith(".mlir") and "\n" not in source):
        return source, filename or "<source>", None
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8"), filename or str(path), None
    except OSError as e:
        from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc

        raise DiagnosticError(
            [Diagnostic("error", f"cannot read {path}: {e.strerror}", SourceLoc(str(path), 0, 0))]
        ) from None


def _parse(text: str, name: str) -> tuple[ModuleOp, Context, Callable[[], None] | None]:
    """The module, the context it was parsed in (made once per compile: about 1 ms), and the
    parse of its host code still to do (`ferrox.parse_deferred`; None when it is whole)."""
    from xdsl.utils.exceptions import ParseError

    from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc
    from ferrox.parse_deferred import parse_split
    from ferrox.registry import make_context

    def located(e: ParseError) -> DiagnosticError:
        where = e.span.get_location()
        return DiagnosticError([Diagnostic("error", e.msg, SourceLoc(name, where.line, where.col))])

    ctx = make_context()
    try:
        module, host = parse_split(ctx, text, name)
    except ParseError as e:
        raise located(e) from None
    if host is None:
        return module, ctx, None
    parse_host = host

    def rest() -> None:
        try:
            parse_host()
        except ParseError as e:
            raise located(e) from None

    return module, ctx, rest
