// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The TMA and mbarrier ops (dialects/simt/tma.py) round-trip and pass verify-disjoint inside
// `simt.unsafe`: a barrier initialised, a 64 x 64 bf16 box loaded swizzled into a tile, the
// bytes expected, the phase waited on, an arrival; the expect, the load and an arrival
// predicated (`if %p`); a box of one plane of a 3-D tensor (`plane %p of %planes`).

builtin.module {
  simt.kernel @load(%x: !simt.slice<bf16>, %rows: index, %cols: index) contract<domain = 1, block = [128], shared_bytes = 8208> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 8192 : index
    simt.unsafe {
      simt.mbarrier_init %bar[%c1], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_arrive_expect_tx %bar[%c1], %n : !simt.shared<i64, [2]>
      simt.tma_load %x[%c0, %c1] shape(%rows, %cols), %tile[%c0], %bar[%c1] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
      simt.mbarrier_wait %bar[%c1], %c0 : !simt.shared<i64, [2]>
      simt.mbarrier_arrive %bar[%c0] : !simt.shared<i64, [2]>
      %t = simt.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      simt.mbarrier_arrive_expect_tx %bar[%c1], %n if %first : !simt.shared<i64, [2]>
      simt.tma_load %x[%c0, %c1] shape(%rows, %cols), %tile[%c0], %bar[%c1] if %first {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
      simt.mbarrier_arrive %bar[%c0] if %first : !simt.shared<i64, [2]>
      simt.yield
    }
    simt.return
  }
  simt.kernel @load3(%x: !simt.slice<bf16>, %planes: index, %rows: index, %cols: index) contract<domain = 1, block = [128], shared_bytes = 8208> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 8192 : index
    simt.unsafe {
      simt.mbarrier_init %bar[%c0], %c1 : !simt.shared<i64, [2]>
      simt.mbarrier_arrive_expect_tx %bar[%c0], %n : !simt.shared<i64, [2]>
      simt.tma_load %x[%c1, %c0] plane %c1 of %planes shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
      simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [2]>
      simt.yield
    }
    simt.return
  }
}

// CHECK:      simt.mbarrier_init %{{.*}}[%{{.*}}], %{{.*}} : !simt.shared<i64, [2]>
// CHECK-NEXT: simt.mbarrier_arrive_expect_tx %{{.*}}[%{{.*}}], %{{.*}} : !simt.shared<i64, [2]>
// CHECK-NEXT: simt.tma_load %x[%{{.*}}, %{{.*}}] shape(%rows, %cols), %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {box = array<i64: 64, 64>, swizzle = 128 : i64} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
// CHECK-NEXT: simt.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} : !simt.shared<i64, [2]>
// CHECK-NEXT: simt.mbarrier_arrive %{{.*}}[%{{.*}}] : !simt.shared<i64, [2]>
// CHECK:      simt.mbarrier_arrive_expect_tx %{{.*}}[%{{.*}}], %{{.*}} if %{{.*}} : !simt.shared<i64, [2]>
// CHECK-NEXT: simt.tma_load %x[%{{.*}}, %{{.*}}] shape(%rows, %cols), %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] if %{{.*}} {box = array<i64: 64, 64>, swizzle = 128 : i64}
// CHECK-NEXT: simt.mbarrier_arrive %{{.*}}[%{{.*}}] if %{{.*}} : !simt.shared<i64, [2]>
// CHECK:      simt.kernel @load3
// CHECK:      simt.tma_load %x[%{{.*}}, %{{.*}}] plane %{{.*}} of %planes shape(%rows, %cols), %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {box = array<i64: 64, 64>, swizzle = 128 : i64} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [2]>
