// RUN: ferrox-opt %s -t ptx --split-input-file --verify-diagnostics

// LLVM turns an intrinsic it does not know into a call to an external function; ferrox stops.
llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {nvvm.kernel} {
  // expected-error@+1 {{unknown intrinsic 'llvm.nvvm.bogus': LLVM's NVPTX backend does not know it and would call an external function of that name}}
  %y = llvm.call_intrinsic "llvm.nvvm.bogus"(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}

// -----

// What would make LLVM abort is caught first, at the op, all at once.
llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {nvvm.kernel} {
  // expected-error@+1 {{NVPTX has no lowering for 'llvm.intr.exp'; math.exp: use exp2(x * log2(e))}}
  %a = llvm.intr.exp(%x) : (f32) -> f32
  // expected-error@+1 {{NVPTX lowers 'llvm.intr.sin' only as the approximation sin.approx.f32; say so with fastmathFlags = #llvm.fastmath<afn>}}
  %b = llvm.intr.sin(%a) : (f32) -> f32
  // expected-error@+1 {{syncscope("warp") is not an NVPTX scope; use "block", "cluster", "device", "singlethread", or none for the whole system}}
  %c = llvm.atomicrmw fadd %p, %b syncscope("warp") monotonic : !llvm.ptr<1>, f32
  llvm.return
}

// -----

// With the approximation asked for, sin compiles.
llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {nvvm.kernel} {
  %b = llvm.intr.sin(%x) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
  llvm.store %b, %p : f32, !llvm.ptr<1>
  llvm.return
}

// -----

// expected-error@+1 {{module attribute "ferrox.chip" must be a string such as "sm_90", got 90 : i64}}
builtin.module attributes {"ferrox.chip" = 90} {
}

// -----

// expected-error@+1 {{unknown chip 'sm_91'; LLVM's NVPTX backend knows sm_20, sm_21}}
builtin.module attributes {"ferrox.chip" = "sm_91"} {
}

// -----

// expected-error@+1 {{sm_100 needs PTX ISA 8.6 or newer, but the features ask for 8.0; use features=+ptx86 or drop them}}
builtin.module attributes {"ferrox.chip" = "sm_100", "ferrox.features" = "+ptx80"} {
}

// -----

// expected-error@+1 {{unknown NVPTX feature '+sm_90'; expected +ptxNN with NN one of 32, 40}}
builtin.module attributes {"ferrox.features" = "+sm_90"} {
}
