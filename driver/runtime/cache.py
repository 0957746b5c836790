"""Compiled kernels, kept in memory and on disk so each is compiled once per machine.

The key is a sha256 over everything that can change the bytes: the IR text (by its hash), the
chip, the compile options, and the versions of ferrox and llvmlite (LLVM's PTX changes between
releases). The disk folder is `$FERROX_CACHE_DIR`, else `$XDG_CACHE_HOME/ferrox`, else
`~/.cache/ferrox`.

Several processes may compile the same kernel at once (pytest-xdist, a parallel build). Each
entry is compiled under an exclusive lock on its own lock file, so one process compiles and the
others wait and read its result; the entry is written to a temporary file in the same folder and
renamed into place (`os.replace`), so a reader sees the whole entry or none of it. A folder that
cannot be written degrades to an in-memory cache with one warning, never to a failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: atomic renames still keep entries whole
    fcntl = None  # type: ignore[assignment]

CACHE_ENV = "FERROX_CACHE_DIR"
LAYOUT = "v1"  # bump when the on-disk layout changes


def default_cache_dir() -> Path:
    """Where compiled kernels live, read from the environment at each call."""
    if configured := os.environ.get(CACHE_ENV):
        return Path(configured).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "ferrox"
    return Path.home() / ".cache" / "ferrox"


def toolchain_versions() -> dict[str, str]:
    import ferrox

    try:
        import llvmlite

        llvmlite_version = llvmlite.__version__
    except ImportError:  # pragma: no cover
        llvmlite_version = "absent"
    return {"ferrox": ferrox.__version__, "llvmlite": llvmlite_version}


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
        self._memory: dict[str, bytes] = {}
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
        self, key_parts: KernelKey | Mapping[str, Any], compile_fn: Callable[[], bytes]
    ) -> bytes:
        key = _as_key(key_parts)
        digest = key.digest()
        with self._lock:
            if (hit := self._memory.get(digest)) is not None:
                self.memory_hits += 1
                return hit
        path = self.folder / f"{digest}.{key.artifact}"
        data = self._read(path)
        if data is not None:
            self.disk_hits += 1
        else:
            with self._exclusive(digest):
                data = self._read(path)  # another process may have finished while we waited
                if data is not None:
                    self.disk_hits += 1
                else:
                    data = compile_fn()
                    if isinstance(data, str):
                        data = data.encode()
                    if not isinstance(data, (bytes, bytearray)):
                        raise TypeError(f"compile_fn must return bytes, not {type(data).__name__}")
                    data = bytes(data)
                    self.compiles += 1
                    self._write(path, data)
        with self._lock:
            self._memory[digest] = data
        return data

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
        if not self.disk or fcntl is None:
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
