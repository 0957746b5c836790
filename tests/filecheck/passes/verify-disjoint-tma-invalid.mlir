// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// The TMA and mbarrier ops under verify-disjoint: each touches a shared array, so each belongs
// in unsafe code (docs/safety.md, "TMA loads": the user vouches for the barrier protocol), and
// a TMA load writes its tile as far as SIMT 8's in-flight rule is concerned.

simt.kernel @outside_unsafe(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128]> {
  %tile = simt.shared_alloc : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.mbarrier_init %bar[%c0], %c1 : !simt.shared<i64, [1]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.mbarrier_arrive_expect_tx %bar[%c0], %c1 : !simt.shared<i64, [1]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [1]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.mbarrier_arrive %bar[%c0] : !simt.shared<i64, [1]>
  simt.return
}

// -----

// A TMA load writes its tile (SIMT 8's flow half): not one a wgmma in flight may read; another
// allocation, or the same once the group has retired, is fine.
simt.kernel @refill_in_flight(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128], shared_bytes = 18448> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %other = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [1]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
    // expected-error@+1 {{'simt.tma_load' writes %as while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %as[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %other[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    %f:8 = simt.wgmma_wait %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 {pending = 0}
    simt.tma_load %x[%c0, %c0] shape(%rows, %cols), %as[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
    simt.yield
  }
  simt.return
}
