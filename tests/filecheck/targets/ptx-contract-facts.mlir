// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s --check-prefix=NVVM
// RUN: ferrox-opt %s -p lower-to-llvm -t ptx | filecheck %s

// A contract's `requires` relations reach LLVM as `llvm.assume` (lowering/simt_to_nvvm/facts.py),
// so a bounds check they make dead leaves no trap in the PTX; a check they do not prove stays.

builtin.module {
  // Both loads are proven: i < len(out) (the get_mut guard) and len(a), len(b) >= len(out).
  // NVVM-LABEL: func.func @proven(
  // NVVM: %requires = arith.cmpi uge, %a_len, %out_len : i64
  // NVVM-NEXT: llvm.call_intrinsic "llvm.assume"(%requires) : (i1) -> ()
  // NVVM: arith.cmpi uge, %b_len, %out_len : i64
  // NVVM-NEXT: llvm.call_intrinsic "llvm.assume"
  // NVVM: llvm.call_intrinsic "llvm.trap"
  // CHECK-LABEL: .visible .entry proven(
  // CHECK: ld.global.nc.b32
  // CHECK: ld.global.nc.b32
  // CHECK: st.global.b32
  // CHECK-NOT: trap;
  // CHECK-LABEL: .visible .entry half_proven(
  simt.kernel @proven(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }

  // Only `a` is covered: the load of `b` keeps its trap (one, not two).
  // CHECK: trap;
  // CHECK-NOT: trap;
  // CHECK-LABEL: .visible .entry index_param(
  simt.kernel @half_proven(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }

  // An `index` parameter is a signed i64 to the checker; `len(out) == n` makes it non-negative,
  // so `len(a) >= n` is stated unsigned and `i < n` (unsigned) proves the load in range.
  // NVVM-LABEL: func.func @index_param(
  // NVVM: %[[N:.*]] = arith.index_cast %n : index to i64
  // NVVM-NEXT: arith.cmpi uge, %a_len, %[[N]] : i64
  // NVVM: arith.cmpi eq, %out_len, %{{.*}} : i64
  // NVVM-LABEL: func.func @signed_index(
  // NVVM: arith.cmpi sge, %a_len, %{{.*}} : i64
  // CHECK-NOT: trap;
  // CHECK-LABEL: .visible .entry signed_index(
  simt.kernel @index_param(%a: !simt.slice<f32>, %n: index, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= arg1, len(arg2) == arg1]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %inside = arith.cmpi ult, %i, %n : index
    scf.if %inside {
      simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
      ^bb0(%old: f32):
        %x = simt.load %a[%i] : !simt.slice<f32>
        simt.yield %x : f32
      }
    }
    simt.return
  }

  // Without `len(out) == n`, a negative n would pass `i < n` (unsigned) with any i: the relation
  // is stated signed and the trap stays.
  // CHECK: trap;
  // CHECK-LABEL: .visible .entry i32_param(
  simt.kernel @signed_index(%a: !simt.slice<f32>, %n: index, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= arg1]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %inside = arith.cmpi ult, %i, %n : index
    scf.if %inside {
      simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
      ^bb0(%old: f32):
        %x = simt.load %a[%i] : !simt.slice<f32>
        simt.yield %x : f32
      }
    }
    simt.return
  }

  // A signless i32 parameter may have been given either signedness's value, so its relation is
  // not stated, and the load keeps its trap.
  // NVVM-LABEL: func.func @i32_param(
  // NVVM-NOT: llvm.assume
  // NVVM: func.return
  // CHECK: trap;
  simt.kernel @i32_param(%a: !simt.slice<f32>, %n: i32, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= arg1]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %ni = arith.index_cast %n : i32 to index
    %inside = arith.cmpi ult, %i, %ni : index
    scf.if %inside {
      simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
      ^bb0(%old: f32):
        %x = simt.load %a[%i] : !simt.slice<f32>
        simt.yield %x : f32
      }
    }
    simt.return
  }
}
