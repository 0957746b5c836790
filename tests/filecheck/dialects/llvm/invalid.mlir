// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

llvm.func @cast_to_same_space(%p: !llvm.ptr<1>) {
  // expected-error@+1 {{addrspacecast from !llvm.ptr<1> to the same address space; drop the cast}}
  %0 = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @fadd_on_integer(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{'fadd' expects a floating point value, got i32}}
  %0 = llvm.atomicrmw fadd %p, %i monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @add_on_float(%p: !llvm.ptr<1>, %f: f32) {
  // expected-error@+1 {{'add' expects an i8, i16, i32 or i64 value, got f32}}
  %0 = llvm.atomicrmw add %p, %f monotonic : !llvm.ptr<1>, f32
  llvm.return
}

// -----

llvm.func @add_on_i1(%p: !llvm.ptr<1>, %b: i1) {
  // expected-error@+1 {{'umin' expects an i8, i16, i32 or i64 value, got i1}}
  %0 = llvm.atomicrmw umin %p, %b monotonic : !llvm.ptr<1>, i1
  llvm.return
}

// -----

llvm.func @rmw_unordered(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{atomicrmw ordering must be at least 'monotonic', got 'unordered'}}
  %0 = llvm.atomicrmw add %p, %i unordered : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @rmw_bad_ordering_value(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{atomicrmw ordering must be at least 'monotonic', got '<invalid ordering 3>'}}
  %0 = "llvm.atomicrmw"(%p, %i) <{bin_op = 1 : i64, ordering = 3 : i64}> : (!llvm.ptr<1>, i32) -> i32
  llvm.return
}

// -----

llvm.func @rmw_bad_bin_op_value(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{<invalid bin_op 99>}}
  %0 = "llvm.atomicrmw"(%p, %i) <{bin_op = 99 : i64, ordering = 2 : i64}> : (!llvm.ptr<1>, i32) -> i32
  llvm.return
}

// -----

llvm.func @rmw_unknown_keyword(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{expected an atomicrmw operation, one of 'xchg', 'add', 'sub', '_and', 'nand', '_or', '_xor', 'max', 'min', 'umax', 'umin', 'fadd', 'fsub', 'fmax', 'fmin', 'uinc_wrap', 'udec_wrap', 'usub_cond', 'usub_sat', 'fmaximum', 'fminimum'}}
  %0 = llvm.atomicrmw and %p, %i monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @cmpxchg_failure_release(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{cmpxchg failure ordering cannot be 'release'}}
  %0 = llvm.cmpxchg %p, %i, %i acq_rel release : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @cmpxchg_not_atomic(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{cmpxchg orderings must be at least 'monotonic', got 'not_atomic' and 'monotonic'}}
  %0 = llvm.cmpxchg %p, %i, %i not_atomic monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @cmpxchg_i1(%p: !llvm.ptr<1>, %b: i1) {
  // expected-error@+1 {{cmpxchg expects an i8, i16, i32, i64 or pointer value, got i1}}
  %0 = llvm.cmpxchg %p, %b, %b monotonic monotonic : !llvm.ptr<1>, i1
  llvm.return
}

// -----

llvm.func @cmpxchg_wrong_result(%p: !llvm.ptr<1>, %i: i32) {
  // expected-error@+1 {{result 'res' at position 0 does not verify:}}
  %0 = "llvm.cmpxchg"(%p, %i, %i) <{success_ordering = 7 : i64, failure_ordering = 7 : i64}> : (!llvm.ptr<1>, i32, i32) -> !llvm.struct<(i64, i1)>
  llvm.return
}

// -----

llvm.func @fence_monotonic() {
  // expected-error@+1 {{fence ordering must be acquire, release, acq_rel or seq_cst, got 'monotonic'}}
  llvm.fence monotonic
  llvm.return
}

// -----

llvm.func @fptosi_from_int(%i: i32) {
  // expected-error@+1 {{operand 'arg' at position 0 does not verify:}}
  %0 = "llvm.fptosi"(%i) : (i32) -> i32
  llvm.return
}

// -----

// expected-error@+1 {{Unknown calling convention}}
llvm.func @bad_cconv() attributes {CConv = #llvm.cconv<ptx_kernal>} {
  llvm.return
}
