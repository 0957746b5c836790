// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// Safe kernels pass verify-disjoint unchanged.

// CHECK-LABEL: simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
  // CHECK-NEXT: %w = simt.thread_index_1d
  %w = simt.thread_index_1d
  // Reading the raw index before the move is a borrow.
  // CHECK-NEXT: %i = simt.witness_value %w : !simt.thread_index<1d>
  %i = simt.witness_value %w : !simt.thread_index<1d>
  // CHECK-NEXT: %n = simt.len %out : !simt.disjoint_slice<f32, 1d>
  %n = simt.len %out : !simt.disjoint_slice<f32, 1d>
  // CHECK-NEXT: simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    %y = simt.load %b[%i] : !simt.slice<f32>
    %s = arith.addf %x, %y : f32
    // CHECK: simt.yield %s : f32
    simt.yield %s : f32
  }
  simt.return
}

// Moves in the two branches of one scf.if are alternatives, not a double move.
// CHECK-LABEL: simt.kernel @branches
simt.kernel @branches(%out: !simt.disjoint_slice<f32, 1d>, %c: i1, %v: f32) contract<domain = 1, block = [128]> {
  %w = simt.thread_index_1d
  scf.if %c {
    // CHECK: simt.get_mut %out[%w]
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
  } else {
    // CHECK: simt.get_mut %out[%w]
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %old : f32
    }
  }
  simt.return
}

// A witness made inside a loop body is a fresh witness each iteration.
// CHECK-LABEL: simt.kernel @fresh_per_iteration
simt.kernel @fresh_per_iteration(%out: !simt.disjoint_slice<f32, 1d>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    // CHECK: %w = simt.thread_index_1d
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %s = arith.addf %old, %v : f32
      simt.yield %s : f32
    }
  }
  simt.return
}

// 2-D spaces under a domain-2 contract; the runtime width is a kernel parameter.
// CHECK-LABEL: simt.kernel @two_d
simt.kernel @two_d(%out: !simt.disjoint_slice<f32, 2d<64>>, %rt: !simt.disjoint_slice<f32, 2d_runtime>, %width: index, %v: f32) contract<domain = 2, block = [16, 16]> {
  // CHECK: %w = simt.index_2d : !simt.thread_index<2d<64>>
  %w = simt.index_2d : !simt.thread_index<2d<64>>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<64>> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  // CHECK: %r = simt.index_2d_runtime %width
  %r = simt.index_2d_runtime %width
  simt.get_mut %rt[%r] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// The warp space with a block x that is a multiple of 32; shuffles at the top level converge.
// CHECK-LABEL: simt.kernel @warp
simt.kernel @warp(%out: !simt.disjoint_slice<f32, warp>, %v: f32) contract<domain = 1, block = [64]> {
  %one = arith.constant 1 : i32
  // CHECK: simt.shuffle xor %v, %one : f32
  %s = simt.shuffle xor %v, %one : f32
  %w = simt.warp_index
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, warp>, !simt.thread_index<warp> {
  ^bb0(%old: f32):
    simt.yield %s : f32
  }
  simt.return
}

// Shared memory inside unsafe; a barrier in a loop whose bounds are uniform (constants, a kernel
// parameter, block_dim, arith over them) and atomics on an atomic slice.
// CHECK-LABEL: simt.kernel @uniform_loop
simt.kernel @uniform_loop(%sum: !simt.atomic_slice<f32>, %n: index, %v: f32) contract<domain = 1, block = [256]> {
  %tile = simt.shared_alloc : !simt.shared<f32, [256]>
  %t = simt.thread_id x
  %bd = simt.block_dim x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = arith.addi %n, %bd : index
  scf.for %k = %c0 to %ub step %c1 {
    simt.unsafe {
      simt.shared_store %v, %tile[%t] : !simt.shared<f32, [256]>
      simt.yield
    }
    // CHECK: simt.sync_threads
    simt.sync_threads
  }
  %x = simt.unsafe -> f32 {
    %y = simt.shared_load %tile[%t] : !simt.shared<f32, [256]>
    simt.yield %y : f32
  }
  // CHECK: simt.atomic_add %sum[%c0], %x : !simt.atomic_slice<f32>
  %old = simt.atomic_add %sum[%c0], %x : !simt.atomic_slice<f32>
  simt.return
}

// A disjoint slice may be passed to a device function that takes the same disjoint type; raw
// pointers are fine in an uncontracted unsafe kernel.
simt.func @store_one(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.thread_index_1d
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}
// CHECK-LABEL: simt.kernel @calls
simt.kernel @calls(%out: !simt.disjoint_slice<f32, 1d>, %p: !simt.ptr<f32>, %v: f32) unsafe {
  // CHECK: simt.call @store_one(%out, %v)
  simt.call @store_one(%out, %v) : (!simt.disjoint_slice<f32, 1d>, f32) -> ()
  %c0 = arith.constant 0 : index
  simt.ptr_store %v, %p[%c0] : !simt.ptr<f32>
  simt.return
}
