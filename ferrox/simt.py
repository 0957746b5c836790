"""SIMT kernels written in Python: `@ferrox.simt.kernel`, `@ferrox.simt.device`, and the names
a kernel uses (annotations, witnesses, shared memory, barriers, warp collectives, atomics, math).

    from ferrox import simt
    from ferrox.simt import DisjointSlice, Slice, f32

    @simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
    def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
        w = simt.thread_index_1d()
        i = w.value
        out[w] = a[i] + b[i]          # runs only where w is in bounds of out

    vecadd[blocks, 256](a, b, out)    # compiled at first call, checked, launched

The kernel is compiled at its first call for each set of `Constexpr` values, argument types and
chip, through the on-disk kernel cache (a later process skips even the frontend). A launch goes
through the one launch checker (contract, `requires`, coverage, aliasing) like every ferrox
launch. `k.ir()` is the frontend's IR (with Python locations), `k.ptx()` the PTX; `FERROX_DUMP`
(`ir`, `lowering`, `llvm`, `ptx`, or `all`; comma-separated) prints each stage to stderr at
compile time, or writes it under `FERROX_DUMP_DIR`. Errors are `FrontendError`s at Python lines.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ferrox.frontend.common.errors import FrontendError, install_excepthook
from ferrox.frontend.common.intrinsics import (
    ceil,
    cos,
    erf,
    exp,
    exp2,
    floor,
    fma,
    log,
    pow,
    rsqrt,
    sin,
    sqrt,
    static_range,
    tanh,
    trunc,
    where,
)
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import (
    Constexpr,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
)
from ferrox.frontend.simt.builder import DeviceFunction
from ferrox.frontend.simt.kernel import (
    KernelOptions,
    Parameters,
    build_kernel,
    parameters,
    specialisation,
)
from ferrox.frontend.simt.surface import (
    SPACE_1D,
    SPACE_2D_RUNTIME,
    SPACE_WARP,
    AtomicSlice,
    DisjointSlice,
    Ptr,
    Slice,
    Witness,
    async_commit,
    async_copy,
    async_wait,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_exch,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    ballot,
    block_dim,
    block_id,
    grid_dim,
    index_2d,
    index_2d_runtime,
    lane_id,
    ldmatrix,
    load_chunk,
    mma_sync,
    shared,
    shared_load_vector,
    shuffle_down,
    shuffle_idx,
    shuffle_up,
    shuffle_xor,
    space_2d,
    space_tile,
    sync_threads,
    thread_id,
    thread_index_1d,
    tile_index,
    unsafe,
    vote_all,
    vote_any,
    warp_index,
    witness_value,
)
from ferrox.jit import KernelState, cached_artifact, checked_device, frontend_fingerprint
from ferrox.jit import arg_type as _arg_type
from ferrox.jit import closure as _closure
from ferrox.jit import print_ir as _print
from ferrox.jit import run_frontend as _frontend
from ferrox.jit import target as _target
from ferrox.lowering import knobs

install_excepthook()  # an uncaught FrontendError prints its diagnostics, not a traceback

_KEPT = 256
"""At most this many launchers per kernel view, and ready launches per launcher (a program
that launches over ever new grids starts these memos again rather than grow them)."""


def kernel(
    fn: Callable[..., Any] | None = None,
    *,
    block: int | Sequence[int] | None = None,
    domain: int | None = None,
    requires: str | Sequence[str] = (),
    shared_bytes: int = 0,
    min_cc: int = 0,
    unsafe: bool = False,
    contract: bool = True,
) -> Any:
    """Make a Python function a SIMT kernel. `block` (the exact block shape), `domain` (grid
    dimensions, default the block's rank), `requires` (comparisons over `len(param)`, scalar
    parameters and integers, as strings: `"len(a) >= n * k"`), `shared_bytes` (dynamic shared
    memory), `min_cc` (e.g. 80) make the launch contract; `unsafe=True` makes the whole body an
    unsafe region; `contract=False` gives a kernel with no contract (launched only unsafely)."""
    if isinstance(block, int):
        block = (block,)
    options = KernelOptions(
        tuple(block) if block is not None else None,
        domain,
        (requires,) if isinstance(requires, str) else tuple(requires),
        shared_bytes,
        min_cc,
        unsafe,
        contract,
    )

    def wrap(f: Callable[..., Any]) -> SimtKernel:
        return SimtKernel(f, options)

    return wrap(fn) if fn is not None else wrap


def device(fn: Callable[..., Any] | None = None, *, unsafe: bool = False) -> Any:
    """Make a Python function a device function (`simt.func`), callable from kernels; every
    parameter and the result annotated with element types or slices."""

    def wrap(f: Callable[..., Any]) -> DeviceFunction:
        return DeviceFunction(f, unsafe)

    return wrap(fn) if fn is not None else wrap


class _State(KernelState):
    """What every device view of one SIMT kernel shares: the decorator's options too."""

    def __init__(self, fn: Callable[..., Any], options: KernelOptions):
        super().__init__(fn)
        self.options = options
        self.targets: dict[str, tuple[str, str]] = {}
        self.launchable: dict[tuple[Any, ...], Any] = {}
        """(device, constants, argument types) -> the loaded kernel: a second call with the
        same types skips the key, the cache and the frontend (a changed module global is not
        seen until the process restarts, as with any JIT)."""
        self.views: dict[str, SimtKernel] = {}
        """device -> its view, so `k.on(device)[grid, block](...)` in a loop reuses one view
        and the launchers it keeps."""
        self.plain: int | None = None
        """How many leading parameters are run-time ones (the first Constexpr's position):
        a call with no more positional arguments than this and no keywords has every
        Constexpr at its default, so its argument kinds alone pick the launch."""


class SimtKernel:
    """A `@ferrox.simt.kernel` function: `k[grid, block](*args)` compiles (once per
    specialisation), checks and launches it; `k.on("cpu")` is the same kernel on another
    device; `k.ir(**constants)`, `k.ptx(**constants)` show what it compiles to."""

    def __init__(self, fn: Callable[..., Any], options: KernelOptions, device: str = "auto"):
        self._state = fn if isinstance(fn, _State) else _State(fn, options)
        self.device = device
        self._launches: dict[Any, _Launch] = {}
        """`[grid, block]` -> its launcher (which keeps the launches it dispatched)."""
        functools.update_wrapper(self, self._state.fn)

    # -- reading the function --------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._state.fn.__name__

    def _source(self) -> FunctionSource:
        return self._state.function_source()

    def _params(self) -> Parameters:
        return self._state.parameters(parameters)

    def on(self, device: str) -> SimtKernel:
        """This kernel on `device` ("auto", "gpu" or "cpu"), sharing its compiled forms."""
        view = self._state.views.get(device)
        if view is None:
            view = SimtKernel(self._state, self._state.options, checked_device(device))  # type: ignore[arg-type]
            self._state.views[device] = view
        return view

    @property
    def runs_on(self) -> str:
        """Where a launch of this view runs: `gpu`, or `cpu` (the interpreter; `auto` without
        a usable GPU)."""
        state = self._state
        if self.device not in state.targets:
            state.targets[self.device] = _target(self.device)
        return state.targets[self.device][0]

    def module(self, **constants: Any) -> Any:
        """The frontend's module (xDSL `ModuleOp`) for these `Constexpr` values."""
        _, consts = self._split((), constants, runtime=False)
        return _frontend(lambda: build_kernel(self._source(), self._state.options, consts))

    def ir(self, **constants: Any) -> str:
        """The kernel's IR as the frontend builds it, every op with its Python `loc(...)`."""
        return _print(self.module(**constants))

    def artifact(self, chip: str = "sm_90", _arg_types: Sequence[str] = (), **constants: Any):
        """The compiled `ModuleArtifact` for `chip` (through the disk cache)."""
        _, consts = self._split((), constants, runtime=False)
        return self._compile(chip, consts, tuple(_arg_types))

    def ptx(self, chip: str = "sm_90", **constants: Any) -> str:
        return self.artifact(chip, **constants).ptx

    # -- compiling -------------------------------------------------------------------------

    def _plain(self) -> int:
        """How many leading parameters are run-time ones (see `_State.plain`)."""
        state = self._state
        if state.plain is None:
            params = self._params()
            constexpr = [params.order.index(n) for n in params.constexpr]
            state.plain = min(constexpr, default=len(params.order))
        return state.plain

    def _split(self, args: Sequence[Any], kwargs: Mapping[str, Any], runtime: bool = True):
        params = self._params()
        if not runtime:
            unknown = set(kwargs) - set(params.constexpr)
            if unknown:
                raise TypeError(
                    f"{', '.join(sorted(unknown))}: not Constexpr parameters of {self.name}"
                )
            consts = {
                **{n: params.defaults[n] for n in params.constexpr if n in params.defaults},
                **kwargs,
            }
            missing = [n for n in params.constexpr if n not in consts]
            if missing:
                raise TypeError(f"Constexpr {', '.join(missing)} of {self.name} needs a value")
            return [], consts
        return specialisation(params, args, kwargs)

    def _key_text(self, consts: Mapping[str, Any], arg_types: tuple[str, ...]) -> str:
        source = self._source()
        sources, values = _closure(source)
        return json.dumps(
            {
                "frontend": frontend_fingerprint(),
                "kernel": source.name,
                "sources": sources,
                "globals": values,
                "constants": {k: repr(v) for k, v in sorted(consts.items())},
                "options": repr(self._state.options),
                "arg_types": list(arg_types),
            },
            sort_keys=True,
        )

    def _compile(
        self, chip: str, consts: Mapping[str, Any], arg_types: tuple[str, ...], ptx: bool = True
    ):
        state = self._state
        return cached_artifact(
            self.name,
            self._key_text(consts, arg_types),
            chip,
            lambda: build_kernel(self._source(), state.options, consts),
            "simt-py.json",
            state.artifacts,
            state.dumped,
            ptx,
        )

    # -- launching -------------------------------------------------------------------------

    def __getitem__(self, config: Any) -> _Launch:
        try:
            return self._launches[config]
        except KeyError:
            pass
        except TypeError:  # a grid given as a list: a launcher of its own, not kept
            return self._launcher(config)
        if len(self._launches) >= _KEPT:
            self._launches.clear()
        launch = self._launches[config] = self._launcher(config)
        return launch

    def _launcher(self, config: Any) -> _Launch:
        if isinstance(config, tuple) and len(config) == 2:
            return _Launch(self, config[0], config[1])
        return _Launch(self, config, None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.name} is a SIMT kernel: launch it with its grid, {self.name}[grid, block](...)"
        )

    def _loaded(self, runtime: Sequence[Any], consts: Mapping[str, Any]) -> Any:
        import ferrox.api

        state = self._state
        kinds = tuple((type(a), getattr(a, "dtype", None)) for a in runtime)
        constants = tuple(sorted((k, repr(v)) for k, v in consts.items()))
        fast = (self.device, constants, kinds, knobs.changed())  # a flipped knob: anew
        loaded = state.launchable.get(fast)
        if loaded is not None:
            return loaded
        arg_types = tuple(_arg_type(a) for a in runtime)
        if self.device not in state.targets:
            state.targets[self.device] = _target(self.device)
        device, chip = state.targets[self.device]
        artifact = self._compile(chip, consts, arg_types, ptx=device != "cpu")  # no PTX on the CPU
        key = (device, f"{chip}:{id(artifact)}")
        module = self._state.modules.get(key)
        if module is None:
            module = ferrox.api.load(artifact, device=device)
            self._state.modules[key] = module
        loaded = state.launchable[fast] = module[self.name]
        return loaded

    def __repr__(self) -> str:
        return f"<ferrox SIMT kernel {self.name} on {self.device}>"


class _Launch:
    """`k[grid, block]`: call it with the kernel's arguments (`Constexpr` ones by position or
    keyword) to compile if needed, check and launch."""

    def __init__(self, kernel: SimtKernel, grid: Any, block: Any):
        self.kernel, self.grid, self.block = kernel, grid, block
        self._ready: dict[tuple[Any, ...], Callable[..., Any]] = {}
        """The argument kinds (each argument's type and dtype in turn) of a call with every
        Constexpr at its default -> the loaded kernel's checked launch for this grid and block.
        The kinds determine the compile key's argument types (`jit.arg_type`), so a repeated
        call is one dictionary look-up away from the launch checker, as a `ferrox.load`
        kernel's call is."""
        self._relaunches: dict[tuple[Any, ...], Any] = {}
        """(shared bytes, signature key) -> the `Relaunch` the GPU's checked launch returned
        for such a call: the same look-up and relaunch (aliasing rule included) as a
        `ferrox.load` kernel's repeated call, from this launcher's own dict. The key holds
        every argument's type and dtype, so it also picks the specialisation."""
        self._signature: Any = None  # `driver/checker/signature.signature`, once kept one
        self._hot: Any = None
        """The last `Relaunch` kept or served without shared bytes, written out as one function
        (`Relaunch.hot`), as `ferrox.loaded.Launch` keeps it: a loop repeating one launch is
        served by that call, and any other call falls through to the look-up below."""
        self._knobs: tuple[Any, ...] = ()
        """The lowering knobs (`knobs.changed()`) the kept launches were compiled under: a
        flip forgets them, as it would compile another schedule's kernel."""

    def __call__(
        self, *args: Any, shared_bytes: int | None = None, stream: Any = None, **constants: Any
    ) -> None:
        if not constants:
            if knobs.changed() != self._knobs:  # kept under other knobs: another kernel
                self._ready.clear()
                self._relaunches.clear()
                self._hot = None
                self._knobs = knobs.changed()
            if shared_bytes is None:
                hot = self._hot
                if hot is not None and hot(args, stream):
                    return
            if self._relaunches:
                found = self._signature(args)
                if found is not None:
                    relaunch = self._relaunches.get((shared_bytes, found[0]))
                    if relaunch is not None and relaunch(found[1], stream):
                        if shared_bytes is None:
                            self._hot = relaunch.hot()
                        return
            kinds: list[Any] = []  # a plain loop: cheaper than a comprehension on Python 3.11
            for a in args:
                kinds.append(type(a))
                kinds.append(getattr(a, "dtype", None))
            ready = self._ready.get(tuple(kinds))
            if ready is not None:
                self._keep(shared_bytes, ready(shared_bytes, args, stream))
                return
        self._first(args, shared_bytes, stream, constants)

    def _keep(self, shared_bytes: int | None, relaunch: Any) -> None:
        """Keep the `Relaunch` a GPU launch returned (None: nothing to keep)."""
        if relaunch is not None:
            from ferrox.driver.checker.signature import signature

            self._signature = signature  # what a GPU launch reads the key with
            if len(self._relaunches) >= _KEPT:
                self._relaunches.clear()
            self._relaunches[(shared_bytes, relaunch.key)] = relaunch
            if shared_bytes is None:
                self._hot = relaunch.hot()

    def _first(
        self, args: tuple[Any, ...], shared_bytes: int | None, stream: Any, constants: Any
    ) -> None:
        """A call with argument kinds (or constants) this launcher has not dispatched yet:
        compile or find the kernel, and keep its launch when its kinds alone pick it again."""
        kernel = self.kernel
        runtime, consts = kernel._split(args, constants)
        loaded = kernel._loaded(runtime, consts)
        if not constants and len(args) <= kernel._plain():
            if len(self._ready) >= _KEPT:
                self._ready.clear()
            kinds = tuple(k for a in args for k in (type(a), getattr(a, "dtype", None)))
            # the checked launch itself (the launch checker runs in it), with nothing between
            call = functools.partial(loaded._device.call, loaded.artifact, self.grid, self.block)
            self._ready[kinds] = call
            self._keep(shared_bytes, call(shared_bytes, tuple(runtime), stream))
            return
        loaded[self.grid, self.block](*runtime, shared_bytes=shared_bytes, stream=stream)

    def unsafe(
        self, *args: Any, shared_bytes: int = 0, stream: Any = None, **constants: Any
    ) -> None:
        """Launch with no checks at all (for a kernel without a contract)."""
        runtime, consts = self.kernel._split(args, constants)
        loaded = self.kernel._loaded(runtime, consts)
        loaded.unsafe_launch(
            self.grid, self.block, *runtime, shared_bytes=shared_bytes, stream=stream
        )


__all__ = [
    "SPACE_1D",
    "SPACE_2D_RUNTIME",
    "SPACE_WARP",
    "AtomicSlice",
    "Constexpr",
    "DisjointSlice",
    "FrontendError",
    "Ptr",
    "SimtKernel",
    "Slice",
    "Witness",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_exch",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_sub",
    "atomic_xor",
    "ballot",
    "bf16",
    "block_dim",
    "block_id",
    "ceil",
    "cos",
    "device",
    "erf",
    "exp",
    "exp2",
    "f16",
    "f32",
    "f64",
    "floor",
    "fma",
    "grid_dim",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "index_2d",
    "index_2d_runtime",
    "kernel",
    "lane_id",
    "log",
    "pow",
    "rsqrt",
    "shared",
    "shuffle_down",
    "shuffle_idx",
    "shuffle_up",
    "shuffle_xor",
    "sin",
    "space_2d",
    "space_tile",
    "tile_index",
    "load_chunk",
    "async_copy",
    "async_commit",
    "async_wait",
    "shared_load_vector",
    "ldmatrix",
    "mma_sync",
    "sqrt",
    "static_range",
    "sync_threads",
    "tanh",
    "thread_id",
    "thread_index_1d",
    "trunc",
    "unsafe",
    "vote_all",
    "vote_any",
    "warp_index",
    "where",
    "witness_value",
]
