// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// The TMA and mbarrier ops under verify-disjoint: each touches a shared array, so each belongs
// in unsafe code (docs/safety.md, "TMA loads": the user vouches for the barrier protocol), and
// a TMA load reads a shared slice only (never a disjoint output).

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
