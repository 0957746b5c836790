// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The warpgroup tensor-core ops (dialects/simt/wgmma.py) round-trip and pass verify-disjoint
// inside `simt.unsafe`: a fence, two chained m64n16k16 products (K = 0 and 16 of one 64-wide
// swizzled row), a commit, a wait, and the fragment stored to shared memory.

builtin.module {
  // doc:begin wgmma
  simt.kernel @mma(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], shared_bytes = 10240> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %r:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      %e:8 = simt.wgmma %as[%c16], %bs[%c16], acc(%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %f:8 = simt.wgmma_wait %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 {pending = 0}
      simt.wgmma_store %cs[%c0], %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 {n = 16, stride = 16} : !simt.shared<f32, [1024]>
      simt.yield %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.wgmma_fence
  // CHECK-NEXT: %d, %d_1, %d_2, %d_3, %d_4, %d_5, %d_6, %d_7 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
  // CHECK-NEXT: %e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7 = simt.wgmma %as[%c16], %bs[%c16], acc(%d, %d_1, %d_2, %d_3, %d_4, %d_5, %d_6, %d_7) {n = 16}
  // CHECK-NEXT: simt.wgmma_commit
  // CHECK-NEXT: %f, %f_1, %f_2, %f_3, %f_4, %f_5, %f_6, %f_7 = simt.wgmma_wait %e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7 {pending = 0}
  // CHECK-NEXT: simt.wgmma_store %cs[%c0], %f, %f_1, %f_2, %f_3, %f_4, %f_5, %f_6, %f_7 {n = 16 : i64, stride = 16 : i64} : !simt.shared<f32, [1024]>

  // A copy into another array (the next stage) may be issued while the wgmma runs.
  // doc:begin wgmma_overlap
  simt.kernel @overlap(%x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 12288> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %next = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    simt.unsafe {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.async_copy %x[%c0], %c8, %next[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
      simt.async_commit
      simt.wgmma_commit
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.async_copy %x[%c0], %c8, %next[%c0] {width = 8 : i64} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
  // CHECK-NEXT: simt.async_commit
  // CHECK-NEXT: simt.wgmma_commit

  // The pipelined K loop (SIMT 8 with groups in flight across iterations): two stages, each its
  // own allocation; each step multiplies one stage, commits, and waits until at most one group
  // is pending, which retires the group of the step before, so the copy that follows may refill
  // the stage that step read while this step's group still runs. The accumulators stay in
  // flight through the loop and are retired by the wait after it.
  // doc:begin wgmma_pipeline
  simt.kernel @pipeline(%x: !simt.slice<bf16>, %pairs: index) contract<domain = 1, block = [128], shared_bytes = 20480> {
    %a0 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %b0 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %a1 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %b1 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    %acc:8 = scf.for %i = %c0 to %pairs step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.async_wait {pending = 0}
        simt.sync_threads
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %w:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
        simt.async_copy %x[%c0], %c8, %b1[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
        simt.async_commit
        simt.yield %w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      %q:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.async_wait {pending = 0}
        simt.sync_threads
        simt.wgmma_fence
        %d:8 = simt.wgmma %a1[%c0], %b1[%c0], acc(%p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %w:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
        simt.async_copy %x[%c0], %c8, %b0[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
        simt.async_commit
        simt.yield %w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %q#0, %q#1, %q#2, %q#3, %q#4, %q#5, %q#6, %q#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    %f:8 = simt.wgmma_wait %acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7 {pending = 0}
    simt.return
  }
  // doc:end
  // CHECK:      simt.kernel @pipeline
  // CHECK:      simt.wgmma_wait %{{.*}} {pending = 1}
  // CHECK:      simt.wgmma_wait %acc, %acc_1, %acc_2, %acc_3, %acc_4, %acc_5, %acc_6, %acc_7 {pending = 0}

  // A partial wait that retires the older group (FlashAttention-3's overlap): the scores'
  // group is committed before the output's, so `pending = 1` retires the scores (`retired = 8`,
  // its first 8 operands: free to read) while the output's group stays in flight. The second
  // fence orders registers only (its tiles' writers fenced the proxy).
  simt.kernel @partial_wait(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], shared_bytes = 10240> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %a = arith.constant 0 : i32
    simt.unsafe {
      simt.wgmma_fence
      %s:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      simt.wgmma_fence {registers}
      %o:8 = simt.wgmma_reg_a (%a, %a, %a, %a), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %w:16 = simt.wgmma_wait %s#0, %s#1, %s#2, %s#3, %s#4, %s#5, %s#6, %s#7, %o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7 {pending = 1, retired = 8}
      %sum = arith.addf %w#0, %w#7 : f32
      %f:8 = simt.wgmma_wait %w#8, %w#9, %w#10, %w#11, %w#12, %w#13, %w#14, %w#15 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // CHECK:      simt.kernel @partial_wait
  // CHECK:      simt.wgmma_fence {registers}
  // CHECK:      simt.wgmma_wait %{{.*}} {pending = 1, retired = 8}

  // A store into an allocation no wgmma in flight reads is fine.
  simt.kernel @store_beside(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], shared_bytes = 10240> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    simt.unsafe {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      simt.shared_store %z, %cs[%c0] : !simt.shared<f32, [1024]>
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // CHECK:      simt.kernel @store_beside
  // CHECK:      simt.wgmma_commit
  // CHECK-NEXT: simt.shared_store %z, %cs[%c0] : !simt.shared<f32, [1024]>
  // An MN-major B (`b_mn_stride`: a [K, N] tile with N contiguous, blocks of 64 columns 2048
  // elements apart): two 64-column blocks of 32 k-rows each, the product at k = 0.
  simt.kernel @mn_major() contract<domain = 1, block = [128], shared_bytes = 16384> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    simt.unsafe {
      simt.wgmma_fence
      %d:32 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 2048} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
      simt.wgmma_commit
      %e:32 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // CHECK:      simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 2048}

  // The register-A form (`simt.wgmma_reg_a`: A's 64 x 16 tile in the warpgroup's registers, four
  // i32 a thread): chained from and into `simt.wgmma` of the same shape (PTX orders accumulator
  // accesses across wgmma ops of one shape), then with an MN-major B.
  // doc:begin wgmma_reg_a
  simt.kernel @reg_a(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %t = simt.thread_id x
    %a0 = simt.load %q[%t] : !simt.slice<i32>
    %a1 = simt.load %q[%t] : !simt.slice<i32>
    %a2 = simt.load %q[%t] : !simt.slice<i32>
    %a3 = simt.load %q[%t] : !simt.slice<i32>
    simt.unsafe {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
      %e:8 = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c16], acc(%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>
      %f:8 = simt.wgmma %as[%c16], %bs[%c0], acc(%e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [4096]>
      %g:32 = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 2048} : !simt.shared<bf16, [4096]>
      simt.wgmma_commit
      %w:8 = simt.wgmma_wait %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 {pending = 0}
      %x:32 = simt.wgmma_wait %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9, %g#10, %g#11, %g#12, %g#13, %g#14, %g#15, %g#16, %g#17, %g#18, %g#19, %g#20, %g#21, %g#22, %g#23, %g#24, %g#25, %g#26, %g#27, %g#28, %g#29, %g#30, %g#31 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.kernel @reg_a
  // CHECK:      %e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7 = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c16], acc(%d, %d_1, %d_2, %d_3, %d_4, %d_5, %d_6, %d_7) {n = 16} : !simt.shared<bf16, [4096]>
  // CHECK-NEXT: simt.wgmma %as[%c16], %bs[%c0], acc(%e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7) {n = 16}
  // CHECK-NEXT: simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) {n = 64, b_mn_stride = 2048} : !simt.shared<bf16, [4096]>

  // A wgmma_reg_a reads no A array: writing another allocation (here the A tile an earlier
  // simt.wgmma read and whose group is retired) while its group runs is fine.
  simt.kernel @reg_a_store_beside(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 16384> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %y = arith.constant 1.0 : bf16
    %r = simt.load %q[%c0] : !simt.slice<i32>
    simt.unsafe {
      simt.wgmma_fence
      %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
      simt.wgmma_commit
      simt.shared_store %y, %as[%c0] : !simt.shared<bf16, [4096]>
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // CHECK:      simt.kernel @reg_a_store_beside
  // CHECK:      simt.wgmma_commit
  // CHECK-NEXT: simt.shared_store %y, %as[%c0] : !simt.shared<bf16, [4096]>
}
