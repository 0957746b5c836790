// RUN: ferrox-opt %s --no-safety-checks | ferrox-opt --no-safety-checks | filecheck %s
// RUN: ferrox-opt %s --no-safety-checks --print-op-generic | ferrox-opt --no-safety-checks | filecheck %s
// RUN: ferrox-opt %s --no-safety-checks --print-op-generic | ferrox-opt --no-safety-checks --print-op-generic | ferrox-opt --no-safety-checks | filecheck %s
// The syntax tests print every op, not safe kernels: the safety rules (on by default) are off.

// Every simt op and type round-trips: custom -> custom, and through the generic form.

// CHECK: builtin.module {
builtin.module {
  // CHECK: simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256], min_cc = 70, requires = [len(arg0) >= arg3, len(arg2) == (arg3 + 1) * 2]> {
  simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256], min_cc = 70, requires = [len(arg0) >= arg3, len(arg2) == (arg3 + 1) * 2]> {
    // CHECK: %w = simt.thread_index_1d
    %w = simt.thread_index_1d
    // CHECK: %i = simt.witness_value %w : !simt.thread_index<1d>
    %i = simt.witness_value %w : !simt.thread_index<1d>
    // CHECK: %x = simt.load %a[%i] : !simt.slice<f32>
    %x = simt.load %a[%i] : !simt.slice<f32>
    // CHECK: %l = simt.len %out : !simt.disjoint_slice<f32, 1d>
    %l = simt.len %out : !simt.disjoint_slice<f32, 1d>
    // CHECK: simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    // CHECK: ^bb0(%old: f32):
    ^bb0(%old: f32):
      // CHECK: simt.yield %x : f32
      simt.yield %x : f32
    }
    // CHECK: %w2 = simt.index_2d : !simt.thread_index<2d<32>>
    %w2 = simt.index_2d : !simt.thread_index<2d<32>>
    // CHECK: %w3 = simt.index_2d_runtime %n
    %w3 = simt.index_2d_runtime %n
    // CHECK: %w4 = simt.warp_index
    %w4 = simt.warp_index
    // CHECK: %t = simt.thread_id x
    %t = simt.thread_id x
    // CHECK: %bd = simt.block_dim y
    %bd = simt.block_dim y
    // CHECK: %lane = simt.lane_id
    %lane = simt.lane_id
    // CHECK: %s = simt.shared_alloc : !simt.shared<f32, [16, 16]>
    %s = simt.shared_alloc : !simt.shared<f32, [16, 16]>
    // CHECK: %r = simt.unsafe -> f32 {
    %r = simt.unsafe -> f32 {
      // CHECK: simt.shared_store %x, %s[%i, %i] : !simt.shared<f32, [16, 16]>
      simt.shared_store %x, %s[%i, %i] : !simt.shared<f32, [16, 16]>
      // CHECK: %y = simt.shared_load %s[%i, %i] : !simt.shared<f32, [16, 16]>
      %y = simt.shared_load %s[%i, %i] : !simt.shared<f32, [16, 16]>
      // CHECK: simt.yield %y : f32
      simt.yield %y : f32
    }
    // CHECK: simt.unsafe {
    simt.unsafe {
      // CHECK: simt.yield
      simt.yield
    }
    // CHECK: simt.sync_threads
    simt.sync_threads
    // CHECK: %c = arith.constant 1 : i32
    %c = arith.constant 1 : i32
    // CHECK: %sh = simt.shuffle xor %x, %c : f32
    %sh = simt.shuffle xor %x, %c : f32
    // CHECK: %p = arith.constant true
    %p = arith.constant true
    // CHECK: %va = simt.vote_all %p
    %va = simt.vote_all %p
    // CHECK: %bl = simt.ballot %p
    %bl = simt.ballot %p
    // CHECK: simt.return
    simt.return
  }
  // CHECK: simt.kernel @hist(%bins: !simt.atomic_slice<i32>, %p: !simt.ptr<f32>) unsafe {
  simt.kernel @hist(%bins: !simt.atomic_slice<i32>, %p: !simt.ptr<f32>) unsafe {
    // CHECK: %i = arith.constant 0 : index
    %i = arith.constant 0 : index
    // CHECK: %one = arith.constant 1 : i32
    %one = arith.constant 1 : i32
    // CHECK: %o = simt.atomic_add %bins[%i], %one : !simt.atomic_slice<i32>
    %o = simt.atomic_add %bins[%i], %one : !simt.atomic_slice<i32>
    // CHECK: %o2 = simt.atomic_max %bins[%i], %one scope sys ordering seq_cst : !simt.atomic_slice<i32>
    %o2 = simt.atomic_max %bins[%i], %one scope sys ordering seq_cst : !simt.atomic_slice<i32>
    // CHECK: %o3 = simt.atomic_cas %bins[%i], %one, %o scope cta : !simt.atomic_slice<i32>
    %o3 = simt.atomic_cas %bins[%i], %one, %o scope cta : !simt.atomic_slice<i32>
    // CHECK: %v = simt.ptr_load %p[%i] : !simt.ptr<f32>
    %v = simt.ptr_load %p[%i] : !simt.ptr<f32>
    // CHECK: simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
    simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
    // CHECK: %q = arith.constant true
    %q = arith.constant true
    // CHECK: simt.named_barrier {id = 1 : i64, threads = 256 : i64}
    simt.named_barrier {id = 1, threads = 256}
    // CHECK: simt.named_barrier if %q {id = 2 : i64, threads = 256 : i64, arrive}
    simt.named_barrier if %q {id = 2, threads = 256, arrive}
    // CHECK: simt.return
    simt.return
  }
  // CHECK: simt.func @f(%x: f32) -> f32 {
  simt.func @f(%x: f32) -> f32 {
    // CHECK: simt.return %x : f32
    simt.return %x : f32
  }
  // CHECK: simt.kernel @k(%x: f32) {
  simt.kernel @k(%x: f32) {
    // CHECK: %y = simt.call @f(%x) : (f32) -> f32
    %y = simt.call @f(%x) : (f32) -> f32
    // CHECK: simt.return
    simt.return
  }

  // CHECK: simt.kernel @more(%v: f32, %n: i32, %q: i1, %bins: !simt.atomic_slice<i32>, %fs: !simt.atomic_slice<f32>) unsafe contract<domain = 3, block = [8, 8, 4], shared_bytes = 1024> {
  simt.kernel @more(%v: f32, %n: i32, %q: i1, %bins: !simt.atomic_slice<i32>, %fs: !simt.atomic_slice<f32>) unsafe contract<domain = 3, block = [8, 8, 4], shared_bytes = 1024> {
    // CHECK: %bx = simt.block_id z
    %bx = simt.block_id z
    // CHECK: %gx = simt.grid_dim x
    %gx = simt.grid_dim x
    // CHECK: %s1 = simt.shuffle idx %v, %n : f32
    %s1 = simt.shuffle idx %v, %n : f32
    // CHECK: %s2 = simt.shuffle up %n, %n : i32
    %s2 = simt.shuffle up %n, %n : i32
    // CHECK: %s3 = simt.shuffle down %v, %n : f32
    %s3 = simt.shuffle down %v, %n : f32
    // CHECK: %any = simt.vote_any %q
    %any = simt.vote_any %q
    %z = arith.constant 0 : index
    // CHECK: %a1 = simt.atomic_sub %bins[%z], %n ordering acquire : !simt.atomic_slice<i32>
    %a1 = simt.atomic_sub %bins[%z], %n ordering acquire : !simt.atomic_slice<i32>
    // CHECK: %a2 = simt.atomic_min %bins[%z], %n ordering release : !simt.atomic_slice<i32>
    %a2 = simt.atomic_min %bins[%z], %n ordering release : !simt.atomic_slice<i32>
    // CHECK: %a3 = simt.atomic_and %bins[%z], %n ordering acq_rel : !simt.atomic_slice<i32>
    %a3 = simt.atomic_and %bins[%z], %n ordering acq_rel : !simt.atomic_slice<i32>
    // CHECK: %a4 = simt.atomic_or %bins[%z], %n : !simt.atomic_slice<i32>
    %a4 = simt.atomic_or %bins[%z], %n scope gpu ordering relaxed : !simt.atomic_slice<i32>
    // CHECK: %a5 = simt.atomic_xor %bins[%z], %n : !simt.atomic_slice<i32>
    %a5 = simt.atomic_xor %bins[%z], %n : !simt.atomic_slice<i32>
    // CHECK: %a6 = simt.atomic_exch %fs[%z], %v : !simt.atomic_slice<f32>
    %a6 = simt.atomic_exch %fs[%z], %v : !simt.atomic_slice<f32>
    // CHECK: %a7 = simt.atomic_add %fs[%z], %v scope cta : !simt.atomic_slice<f32>
    %a7 = simt.atomic_add %fs[%z], %v scope cta : !simt.atomic_slice<f32>
    // CHECK: %sm = simt.shared_alloc : !simt.shared<i32, [64]>
    %sm = simt.shared_alloc : !simt.shared<i32, [64]>
    // CHECK: %a8 = simt.atomic_add %sm[%z], %n scope cta : !simt.shared<i32, [64]>
    %a8 = simt.atomic_add %sm[%z], %n scope cta : !simt.shared<i32, [64]>
    // CHECK: simt.return
    simt.return
  }
  // CHECK: simt.func @pair(%x: f32, %y: i32) -> (f32, i32) unsafe {
  simt.func @pair(%x: f32, %y: i32) -> (f32, i32) unsafe {
    // CHECK: simt.return %x, %y : f32, i32
    simt.return %x, %y : f32, i32
  }
  // Shared arrays asking for an alignment: static and dynamic (a 16-byte array, then one at
  // offset 1024: the contract counts the padding).
  // CHECK: simt.kernel @aligned() contract<domain = 1, block = [32], shared_bytes = 1088> {
  simt.kernel @aligned() contract<domain = 1, block = [32], shared_bytes = 1088> {
    // CHECK-NEXT: %st = simt.shared_alloc {align = 1024 : i64} : !simt.shared<f32, [16]>
    %st = simt.shared_alloc {align = 1024} : !simt.shared<f32, [16]>
    // CHECK-NEXT: %small = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>
    %small = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>
    // CHECK-NEXT: %stage = simt.shared_alloc {dynamic, align = 1024 : i64} : !simt.shared<bf16, [32]>
    %stage = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [32]>
    // CHECK-NEXT: simt.return
    simt.return
  }
  // The attributes also print on their own.
  // CHECK: simt.func @attrs() attributes {space = #simt.space<2d<32>>, runtime = #simt.space<2d_runtime>, expr = #simt.size_expr<len(arg0) - (arg1 + 2) * arg2>, rel = #simt.requires<arg0 < 4>, mode = #simt<shuffle_mode down>, scope = #simt<scope sys>, ordering = #simt<ordering seq_cst>, dim = #simt<dim z>} {
  simt.func @attrs() attributes {space = #simt.space<2d<32>>, runtime = #simt.space<2d_runtime>, expr = #simt.size_expr<len(arg0) - (arg1 + 2) * arg2>, rel = #simt.requires<arg0 < 4>, mode = #simt<shuffle_mode down>, scope = #simt<scope sys>, ordering = #simt<ordering seq_cst>, dim = #simt<dim z>} {
    simt.return
  }
}
