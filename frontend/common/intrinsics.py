"""Functions that exist only inside kernels: each is an `Intrinsic` object that a surface maps
to the IR it builds. Called in plain Python they explain that they need a kernel.

The ones here are shared by every surface: math, `where`, and `static_range` (a loop unrolled
at compile time); the dtypes (`f32(x)`) and the builtins `min`, `max`, `abs` are handled too.
"""

from __future__ import annotations

from typing import Any


class Intrinsic:
    """A name a kernel may call; `surface` says which decorator's kernels know it."""

    def __init__(self, name: str, surface: str = "kernel", doc: str = ""):
        self.name = name
        self.surface = surface
        self.__doc__ = doc or f"`{name}(...)`: only inside a ferrox {surface}."

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.name}(...) can only be used inside a ferrox {self.surface}")

    def __repr__(self) -> str:
        return f"<ferrox intrinsic {self.name}>"


exp = Intrinsic("exp", doc="e**x (f16, bf16, f32, f64)")
exp2 = Intrinsic("exp2", doc="2**x")
log = Intrinsic("log", doc="natural logarithm")
sqrt = Intrinsic("sqrt", doc="square root, correctly rounded")
rsqrt = Intrinsic("rsqrt", doc="1 / sqrt(x)")
tanh = Intrinsic("tanh", doc="hyperbolic tangent")
sin = Intrinsic("sin", doc="sine")
cos = Intrinsic("cos", doc="cosine")
erf = Intrinsic("erf", doc="the error function")
floor = Intrinsic("floor", doc="round down")
ceil = Intrinsic("ceil", doc="round up")
trunc = Intrinsic("trunc", doc="round toward zero")
fma = Intrinsic("fma", doc="fma(a, b, c) = a * b + c rounded once")
pow = Intrinsic("pow", doc="pow(x, y) = x**y on floats")
where = Intrinsic("where", doc="where(cond, a, b): a where cond holds, else b; both computed")
static_range = Intrinsic(
    "static_range", doc="`for i in static_range(n)`: a loop unrolled at compile time"
)

MATH = (exp, exp2, log, sqrt, rsqrt, tanh, sin, cos, erf, floor, ceil, trunc, fma, pow)
