// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// SIMT 9 (passes/disjoint/specialize.py): verify-disjoint accepts one hand-off of shared stages
// between the partitions of a `simt.specialize` (tests/filecheck/dialects/simt/specialize.mlir
// is the accepted kernel) and refuses each variation below of it that could race or misread a
// stage.

// The producer waits on the empty barrier with the consumers' parity: round 0 would wait for a
// phase nothing completes, and round r for the wrong one.
simt.kernel @flip(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        // expected-error@+1 {{the producer's wait on an empty barrier must have parity '((iv / S) % 2) ^ 1' of its loop (round r waits for the consumers' round r - 1) (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_wait %empty[%c0], %par : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The consumers wait on the full barrier with a constant parity: from round 1 on they would read a
// stage being refilled.
simt.kernel @cpar(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        // expected-error@+1 {{the consumers' wait on a full barrier must have parity '(iv / S) % 2' of their loop (round r waits for round r's fill) (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_wait %full[%c0], %c0 : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The consumers free the stage before the wgmma that reads it has retired: the producer could
// refill it under the multiply.
simt.kernel @early(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        // expected-error@+1 {{'simt.mbarrier_arrive' frees stage %a0, %b0 while a wgmma that reads it may be in flight: retire it first ('simt.wgmma_wait' with pending = 0 before the arrive) (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The bytes are expected by a consumer thread's id (thread 0): no producer thread, or as many as the predicate holds on, would arrive.
simt.kernel @elected(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.mbarrier_arrive_expect_tx' on a full barrier must be predicated on one producer thread ('thread_id x == c', c a constant of the producer partition): the barrier expects one arrival (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %first : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %first {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %first {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// Fewer bytes expected than the loads write: the phase could complete before the last box lands.
simt.kernel @tx(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.mbarrier_arrive_expect_tx' expects 128 bytes but the loads on its barrier write 10240: the phase must complete exactly when they have landed (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_arrive_expect_tx %full[%c0], %c128 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The empty barrier completes after one arrival, not after every consumer's.
simt.kernel @ecount(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      // expected-error@+1 {{a stage's empty barrier must be initialised with count 128 (the consumer threads) (SIMT 9, docs/safety.md#simt-9)}}
      simt.mbarrier_init %empty[%c0], %c1 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The full barrier waits for 128 arrivals where one thread arrives.
simt.kernel @fcount(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      // expected-error@+1 {{a stage's full barrier must be initialised with count 1 (the producer thread) (SIMT 9, docs/safety.md#simt-9)}}
      simt.mbarrier_init %full[%c0], %c128 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// No block barrier between the initialisation and the split: a producer could wait on a barrier not
// yet initialised.
simt.kernel @nosync(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  %end = arith.muli %rounds, %c1 : index
  // expected-error@+1 {{'simt.specialize' needs a 'simt.sync_threads' of the whole block between the stage barriers' initialisation and the split (SIMT 9, docs/safety.md#simt-9)}}
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The consumers' loop runs to another bound than the producer's: round r's use need not meet round
// r's fill.
simt.kernel @ub(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    // expected-error@+1 {{the consumer loop must have the producer loop's bounds (from 0, the same upper bound value, the same constant step): round r's use must meet round r's fill (SIMT 9, docs/safety.md#simt-9)}}
    %acc:8 = scf.for %t = %c0 to %rounds step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The producer writes a stage with a plain store: only TMA may write there.
simt.kernel @pstore(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.shared_store' touches shared memory in the producer region of a 'simt.specialize': only 'simt.tma_load', 'simt.mbarrier_arrive_expect_tx' and 'simt.mbarrier_wait' may (SIMT 9, docs/safety.md#simt-9)}}
        simt.shared_store %zb, %a0[%c0] : !simt.shared<bf16, [4096]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The consumers arrive on the empty barrier twice a round: the second arrival would count towards
// the next round's phase.
simt.kernel @twice(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.mbarrier_arrive' frees a stage the consumers do not hold: wait on its full barrier first, and arrive once a round (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The producer refills the stage without waiting for the consumers to free it.
simt.kernel @nowait(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        // expected-error@+1 {{the producer must wait on the stage's empty barrier before it expects the stage's bytes (SIMT 9, docs/safety.md#simt-9)}}
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// A consumer writes a stage the producer fills.
simt.kernel @cwrite(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.shared_store' writes stage %a0 in the consumers (SIMT 9, docs/safety.md#simt-9)}}
        simt.shared_store %zb, %a0[%c0] : !simt.shared<bf16, [4096]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// Every thread initialises the barriers: concurrent writes of one barrier.
simt.kernel @allinit(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
      // expected-error@+1 {{a stage barrier must be initialised by one thread (under 'scf.if' on 'thread_id x == c'): two would write it at once (SIMT 9, docs/safety.md#simt-9)}}
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      // expected-error@+1 {{a stage barrier must be initialised by one thread (under 'scf.if' on 'thread_id x == c'): two would write it at once (SIMT 9, docs/safety.md#simt-9)}}
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// A consumer reads a stage with a plain load (the generic proxy), which the TMA refill would not be
// ordered after without a proxy fence.
simt.kernel @genload(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.shared_load' reads stage %a0 through the generic proxy: only a wgmma may read a stage (its reads and the TMA writes that refill it are both the async proxy's, which the barriers order) (SIMT 9, docs/safety.md#simt-9)}}
        %ld = simt.shared_load %a0[%c0] : !simt.shared<bf16, [4096]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// A consumer makes a 1-D witness, whose coverage the launch would count over the whole block.
simt.kernel @cwitness(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.thread_index_1d' makes a witness in the consumer region: only 'simt.tile_index' may (the launch checks the coverage of other spaces over the whole block, whose producers write nothing) (SIMT 9, docs/safety.md#simt-9)}}
        %cw = simt.thread_index_1d
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}

// -----

// The producer makes a witness.
simt.kernel @witness(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
  %a0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [4096]>
  %b0 = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [1024]>
  %full = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %empty = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c10240 = arith.constant 10240 : index
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %tid = simt.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  simt.unsafe {
    scf.if %first {
      simt.mbarrier_init %full[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_init %empty[%c0], %c128 : !simt.shared<i64, [2]>
    }
    simt.yield
  }
  simt.sync_threads
  %end = arith.muli %rounds, %c1 : index
  simt.specialize producers(1) {
    simt.setmaxnreg dec 24
    %elected = arith.cmpi eq, %tid, %c128 : index
    scf.for %t = %c0 to %end step %c1 {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %flip = arith.xori %par, %c1 : index
      simt.unsafe {
        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
        simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %a0[%c0], %full[%c0] if %elected {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
        simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %b0[%c0], %full[%c0] if %elected {box = array<i64: 16, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [2]>
        // expected-error@+1 {{'simt.thread_index_1d' makes a witness in the producer region (SIMT 9, docs/safety.md#simt-9)}}
        %w = simt.thread_index_1d
        simt.yield
      }
    }
    simt.yield
  } consumers {
    simt.setmaxnreg inc 240
    %acc:8 = scf.for %t = %c0 to %end step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
      %r = arith.divui %t, %c1 : index
      %par = arith.remui %r, %c2 : index
      %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
        simt.mbarrier_wait %full[%c0], %par : !simt.shared<i64, [2]>
        simt.wgmma_fence
        %d:8 = simt.wgmma %a0[%c0], %b0[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
        simt.wgmma_commit
        %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
        simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.yield
  }
  simt.return
}
