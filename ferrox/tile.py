"""Tile kernels written in Python: `@ferrox.tile.kernel` and the names a tile kernel uses.

    from ferrox import tile
    from ferrox.tile import Partition, Tensor, f32

    @tile.kernel
    def vector_add(z: Partition[f32, 1024], x: Tensor[f32, None], y: Tensor[f32, None]):
        tile.store(tile.load_like(x, z) + tile.load_like(y, z), z)

    vector_add(z, x, y)       # compiled at first call, checked, launched: one block per tile of z

A tile kernel runs once per tile of its first output partition, as one logical thread over whole
tiles. It is compiled at its first call for each set of `Constexpr` values and chip, through
the on-disk kernel cache, and launched through the one launch checker (tensor shapes, the tile
grid, aliasing) like every ferrox launch. `k.ir()` is the frontend's IR (with Python locations),
`k.ptx()` the PTX, `FERROX_DUMP` prints each stage (`ferrox.jit`). Errors are `FrontendError`s
at Python lines.

For host programs (`host.tile_launch @k ins(...) outs(...)`): `k.kernel_op(**constants)` is a
fresh `tile.kernel` op to put in the host module, `k.signature(**constants)` the run-time
parameters in order with their kinds (partitions are the launch's `outs`, the rest its `ins`),
`k.artifact(chip, **constants)` the compiled `ModuleArtifact` (its `TileLaunch` maps the tile
arguments onto the lowered kernel's).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from ferrox.frontend.common.errors import FrontendError
from ferrox.frontend.common.intrinsics import (
    exp,
    exp2,
    fma,
    log,
    rsqrt,
    sqrt,
    static_range,
    tanh,
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
from ferrox.frontend.tile.kernel import (
    Parameters,
    TileParam,
    build_kernel,
    parameters,
    signature,
    specialisation,
)
from ferrox.frontend.tile.surface import (
    Partition,
    Tensor,
    astype,
    block_id,
    broadcast,
    cdiv,
    dim,
    extract,
    full,
    grid_order,
    iota,
    load,
    load_like,
    max,
    maximum,
    min,
    minimum,
    mma,
    num_blocks,
    permute,
    prod,
    reshape,
    store,
    sum,
    transpose,
    zeros,
)
from ferrox.jit import (
    KernelState,
    cached_artifact,
    checked_device,
    closure,
    frontend_fingerprint,
    print_ir,
    run_frontend,
)
from ferrox.jit import target as jit_target
from ferrox.lowering import knobs

_TARGETS: dict[str, tuple[str, str]] = {}
"""(device, chip) per requested device, found once per process (asking the driver each call
would cost more than a launch)."""


def kernel(fn: Callable[..., Any] | None = None) -> Any:
    """Make a Python function a tile kernel (`@tile.kernel` or `@tile.kernel()`): parameters
    annotated `Partition[...]` (outputs; the first fixes the grid), `Tensor[...]` (inputs),
    scalar types, or `Constexpr` (compile-time; annotations may use them as tile sizes)."""

    def wrap(f: Callable[..., Any]) -> TileKernel:
        return TileKernel(f)

    return wrap(fn) if fn is not None else wrap


_UNBOUND = object()


class _State(KernelState):
    """What every device view of one tile kernel shares: the globals it reads, quick calls."""

    def __init__(self, fn: Callable[..., Any]):
        super().__init__(fn)
        self.global_names: list[tuple[str, str]] | None = None
        self.quick: dict[tuple[str, bool, tuple[Any, ...], str, str], Any] = {}


class TileKernel:
    """A `@ferrox.tile.kernel` function: `k(*args)` compiles (once per specialisation), checks
    and launches it over its output partition's tile grid; `k.on("cpu")` is the same kernel on
    another device; `k.ir()`, `k.ptx()`, `k.module()`, `k.kernel_op()`, `k.signature()`,
    `k.artifact()` show what it compiles to (each takes the `Constexpr` values by keyword)."""

    def __init__(self, fn: Callable[..., Any] | _State, device: str = "auto"):
        self._state = fn if isinstance(fn, _State) else _State(fn)
        self.device = device
        self._ready: (
            tuple[int, tuple[tuple[str, Any], ...], Callable[..., None], tuple[Any, ...]] | None
        ) = None
        """For a call with every Constexpr at its default: (its number of arguments, the
        globals the kernel read with the objects they held, the loaded kernel's checked launch
        over its tile grid (`loaded[None, None]`, a `ferrox.loaded.Launch`: its memo of passed
        launches and its written-out relaunch), the lowering knobs it was compiled under,
        `knobs.changed()`). A repeated call whose globals still hold those objects, under the
        same knobs, goes straight to the launch; the key holds nothing else (argument types do
        not shape a tile kernel's IR, and the launch checker checks the arguments)."""
        functools.update_wrapper(self, self._state.fn)

    @property
    def name(self) -> str:
        """The kernel's symbol: the function's name."""
        return self._state.fn.__name__

    def _source(self) -> FunctionSource:
        return self._state.function_source()

    def _params(self) -> Parameters:
        return self._state.parameters(parameters)

    def on(self, device: str) -> TileKernel:
        """This kernel on `device` ("auto", "gpu" or "cpu"), sharing its compiled forms."""
        return TileKernel(self._state, checked_device(device))

    @property
    def runs_on(self) -> str:
        """Where a launch of this view runs: `gpu`, or `cpu` (the interpreter; `auto` without
        a usable GPU), as for a SIMT kernel."""
        return self._target()[0]

    def _target(self) -> tuple[str, str]:
        found = _TARGETS.get(self.device)
        if found is None:
            found = _TARGETS[self.device] = jit_target(self.device)
        return found

    # -- what it compiles to ---------------------------------------------------------------

    def _constants(self, constants: Mapping[str, Any]) -> dict[str, Any]:
        params = self._params()
        unknown = set(constants) - set(params.constexpr)
        if unknown:
            raise TypeError(
                f"{', '.join(sorted(unknown))}: not Constexpr parameters of {self.name}"
            )
        consts = {n: params.defaults[n] for n in params.constexpr if n in params.defaults}
        consts.update(constants)
        missing = [n for n in params.constexpr if n not in consts]
        if missing:
            raise TypeError(f"Constexpr {', '.join(missing)} of {self.name} needs a value")
        return consts

    def module(self, **constants: Any) -> Any:
        """The frontend's module (an xDSL `ModuleOp` holding the `tile.kernel`), verified."""
        consts = self._constants(constants)
        return run_frontend(lambda: build_kernel(self._source(), consts))

    def kernel_op(self, **constants: Any) -> Any:
        """A fresh, detached `tile.kernel` op (for a host program's module)."""
        module = self.module(**constants)
        op = module.body.block.first_op
        op.detach()
        return op

    def signature(self, **constants: Any) -> list[TileParam]:
        """The run-time parameters in order: name, kind ("partition", "tensor", "scalar"), IR
        type. A `host.tile_launch` passes the partitions as `outs`, the rest as `ins`."""
        consts = self._constants(constants)
        return run_frontend(lambda: signature(self._source(), consts))

    def ir(self, **constants: Any) -> str:
        """The kernel's IR as the frontend builds it, every op with its Python `loc(...)`."""
        return print_ir(self.module(**constants))

    def artifact(self, chip: str = "sm_90", **constants: Any) -> Any:
        """The compiled `ModuleArtifact` for `chip` (through the disk cache)."""
        return self._compile(chip, self._constants(constants))

    def ptx(self, chip: str = "sm_90", **constants: Any) -> str:
        return self.artifact(chip, **constants).ptx

    def _globals(self) -> dict[str, str]:
        """The current values of the plain constants the kernel reads from its globals (the
        names are found once; their values are read again at every call, as the key holds
        them)."""
        state = self._state
        source = self._source()
        if state.global_names is None:
            _, values = closure(source)
            state.global_names = [(label, label.rpartition(":")[2]) for label in values]
        return {label: repr(source.lookup(name)) for label, name in state.global_names}

    def _key_text(self, consts: Mapping[str, Any], values: Mapping[str, str]) -> str:
        source = self._source()
        sources = {f"{source.file}:{source.first_line}:{source.name}": source.text}
        return json.dumps(
            {
                "frontend": frontend_fingerprint(),
                "surface": "tile",
                "kernel": source.name,
                "sources": sources,
                "globals": values,
                "constants": {k: repr(v) for k, v in sorted(consts.items())},
            },
            sort_keys=True,
        )

    def _compile(self, chip: str, consts: Mapping[str, Any], ptx: bool = True) -> Any:
        """The artifact for `chip` and `consts`: a dictionary look-up on a repeated call (the
        sha256 key, the disk cache and the compiler only on the first)."""
        state = self._state
        values = self._globals()
        moved = knobs.changed()  # a flipped lowering knob compiles anew
        quick = (chip, ptx, moved, repr(sorted(consts.items())), repr(sorted(values.items())))
        artifact = state.quick.get(quick)
        if artifact is None:
            artifact = cached_artifact(
                self.name,
                self._key_text(consts, values),
                chip,
                lambda: build_kernel(self._source(), consts),
                "tile-py.json",
                state.artifacts,
                state.dumped,
                ptx,
            )
            state.quick[quick] = artifact
        return artifact

    # -- launching -------------------------------------------------------------------------

    def _loaded(self, consts: Mapping[str, Any]) -> Any:
        import ferrox.api

        device, chip = self._target()
        artifact = self._compile(chip, consts, ptx=device != "cpu")  # the interpreter: no PTX
        key = (device, f"{chip}:{id(artifact)}")
        module = self._state.modules.get(key)
        if module is None:
            module = ferrox.api.load(artifact, device=device)
            self._state.modules[key] = module
        return module[self.name]

    def __call__(self, *args: Any, stream: Any = None, **constants: Any) -> None:
        """Compile if needed, check (shapes, the tile grid, aliasing) and launch: one tile block
        per tile of the first output partition. `Constexpr` values by position or keyword."""
        ready = self._ready
        if (
            ready is not None
            and not constants
            and len(args) == ready[0]
            and knobs.changed() == ready[3]  # a flipped knob: another schedule's kernel
        ):
            scope = self._state.fn.__globals__
            for name, value in ready[1]:
                if scope.get(name, _UNBOUND) is not value:
                    break
            else:
                ready[2](*args, stream=stream)
                return
        params = self._params()
        runtime, consts = specialisation(params, self.name, args, constants)
        moved = knobs.changed()
        loaded = self._loaded(consts)
        firsts = [params.order.index(n) for n in params.constexpr]
        plain = sorted(firsts)[0] if firsts else len(params.order)  # (`min` is the surface's)
        if not constants and len(args) <= plain:  # every Constexpr at its default
            self._ready = (
                len(args),
                self._global_objects(),
                loaded[None, None],
                moved,
            )
        loaded(*runtime, stream=stream)

    def _global_objects(self) -> tuple[tuple[str, Any], ...]:
        """The kernel's global names (not its closure's) and the objects they hold now (a
        name not bound in the module's globals: `_UNBOUND`, so binding it later is seen)."""
        source = self._source()
        self._globals()  # finds the names once
        names = self._state.global_names or []
        scope = getattr(self._state.fn, "__globals__", {})
        return tuple(
            (name, scope.get(name, _UNBOUND)) for _, name in names if name not in source.closure
        )

    def check(self, *args: Any, **constants: Any) -> Any:
        """What the launch checker makes of this launch (a `CheckedLaunch`), launching nothing."""
        runtime, consts = specialisation(self._params(), self.name, args, constants)
        return self._loaded(consts).check(None, None, *runtime)

    def __getitem__(self, config: Any) -> Any:
        raise TypeError(
            f"{self.name} is a tile kernel: its grid is its output partition's tile grid, so it "
            f"is called directly, {self.name}(...)"
        )

    def __repr__(self) -> str:
        return f"<ferrox tile kernel {self.name} on {self.device}>"


__all__ = [
    "Constexpr",
    "FrontendError",
    "Partition",
    "Tensor",
    "TileKernel",
    "TileParam",
    "astype",
    "bf16",
    "block_id",
    "broadcast",
    "cdiv",
    "dim",
    "exp",
    "exp2",
    "extract",
    "f16",
    "f32",
    "f64",
    "fma",
    "full",
    "grid_order",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "iota",
    "kernel",
    "load",
    "load_like",
    "log",
    "max",
    "maximum",
    "min",
    "minimum",
    "mma",
    "num_blocks",
    "permute",
    "prod",
    "reshape",
    "rsqrt",
    "sqrt",
    "static_range",
    "store",
    "sum",
    "tanh",
    "transpose",
    "where",
    "zeros",
]
