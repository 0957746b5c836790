// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// Warp specialisation (dialects/simt/specialize.py): `simt.specialize` splits the block into a
// producer warpgroup (the last) and the consumers, `simt.setmaxnreg` moves registers between
// them, and the kernel passes verify-disjoint's stage rule (SIMT 9): one stage (A and B tiles on
// one full and one empty barrier), the producer waiting on the empty barrier with parity
// `((t / S) % 2) ^ 1` and one thread expecting the bytes and loading, the consumers waiting on
// the full barrier with parity `(t / S) % 2`, multiplying, retiring the wgmma and arriving on the
// empty barrier, both loops over the same rounds.

builtin.module {
  // doc:begin specialize
  simt.kernel @ws(%x: !simt.slice<bf16>, %rows: index, %cols: index, %rounds: index) contract<domain = 1, block = [256], shared_bytes = 32768> {
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
          simt.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : f32, f32, f32, f32, f32, f32, f32, f32
        }
        scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
      }
      simt.yield
    }
    simt.return
  }
  // doc:end
}

// CHECK:      simt.specialize producers(1) {
// CHECK-NEXT:   simt.setmaxnreg dec 24
// CHECK:        simt.mbarrier_wait %empty[%c0], %flip : !simt.shared<i64, [2]>
// CHECK-NEXT:   simt.mbarrier_arrive_expect_tx %full[%c0], %c10240 if %elected : !simt.shared<i64, [2]>
// CHECK:      } consumers {
// CHECK-NEXT:   simt.setmaxnreg inc 240
// CHECK:        simt.mbarrier_wait %full[%c0], %{{.*}} : !simt.shared<i64, [2]>
// CHECK:        simt.mbarrier_arrive %empty[%c0] : !simt.shared<i64, [2]>
// CHECK:      simt.return
