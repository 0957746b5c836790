"""The frontend's shared core: what every Python surface (SIMT, tile) builds on.

Interfaces (kept stable; the tile track builds on them):

- `source.FunctionSource.of(fn)`: a function's AST (`.tree`), file, `.position(node)` (file line,
  1-based column), `.loc(node)` (the `FileLineColLoc` every op gets), `.lookup(name)` (closure,
  globals, builtins; KeyError when none), `.evaluate(expr)` (an annotation, in the function's
  namespace).
- `errors`: `UserError(message)` (raise it while building a node; the builder adds the node's
  location), `FrontendError` (a `DiagnosticError` whose `str()` is the tools' rendering:
  rustc's shape with the Python line, or `file.py:line:col: error[CODE]: ...` under
  FERROX_ERROR_FORMAT=short), `error_at(source, node, message, notes)`,
  `located(DiagnosticError)` (a verifier's diagnostics on frontend IR, shown the same way),
  `render(diagnostic, fmt=None)`.
- `types`: `DType` objects `f16 bf16 f32 f64 i1 i8 i16 i32 i64 index` (`.ir`, `.kind`, `.bits`),
  `dtype_of(ir_type)`, `as_dtype(annotation)` (`float` is f32, `int` index, `bool` i1) and the
  `Constexpr` marker.
- `values.Emitter(block, location)`: `.emit(op)` (located, appended), `.result(op)`,
  `.into(block)` (a context), `.const`, `.materialize`, `.binop(op, a, b)`, `.compare`,
  `.unary`, `.cast(v, dtype)`, `.select`, `.minmax`, `.abs`, `.math(name, *args)`, `.condition`.
  Values are `SSAValue`s or Python constants; Python-on-Python folds at compile time.
- `intrinsics.Intrinsic(name, surface, doc)`: a kernel-only name; the shared ones are the math
  functions (`MATH`), `where` and `static_range`.
- `builder.FunctionBuilder(source, block)`: statements and expressions, scopes (`bind`,
  `local`, `lookup`, `bind_arg`), regions (`region(stmts, arg_types, names, build)`), `if`,
  `for ... in range`/`static_range`, `while` onto scf with the rebound names carried,
  `fail(node, message)` for an error at a node, and the hooks a surface overrides:
  `call_intrinsic`, `load_item`, `assign_item`, `ir_attribute`, `python_attribute`, `with_`,
  `return_`. `assigned_names(stmts)` lists what statements bind (and `name.field` for fields).
  A `Cell(fields, types)` bound to a name makes `name.field` a tracked value (read, rebound,
  carried through `if` and loops like a name; a Python number stored there takes the field's
  type): the SIMT guarded write's `slot.value`. Statement and expression wrappers turn a
  `UserError` or an xDSL `VerifyException` (an attribute built from the user's values) into a
  diagnostic at the node.
- `printing.print_located(op)`: IR text with every op's `loc(...)`, which `ferrox-opt` and the
  CPU interpreter read back (kernel and function parameters located too).
- `errors.install_excepthook()`: an uncaught `FrontendError` prints its diagnostics, no
  traceback (the decorator modules install it).
"""

from ferrox.frontend.common.builder import Cell, FunctionBuilder, assigned_names
from ferrox.frontend.common.errors import (
    FrontendError,
    UserError,
    error_at,
    install_excepthook,
    located,
    render,
)
from ferrox.frontend.common.intrinsics import Intrinsic
from ferrox.frontend.common.printing import print_located
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import DTYPES, Constexpr, DType, as_dtype, dtype_of
from ferrox.frontend.common.values import Emitter

__all__ = [
    "DTYPES",
    "Cell",
    "Constexpr",
    "DType",
    "Emitter",
    "FrontendError",
    "FunctionBuilder",
    "FunctionSource",
    "Intrinsic",
    "UserError",
    "as_dtype",
    "assigned_names",
    "dtype_of",
    "error_at",
    "install_excepthook",
    "located",
    "print_located",
    "render",
]
