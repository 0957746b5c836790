// E1009: a warp-specialised kernel's stages handed over outside the ring protocol
//
// `simt.specialize` splits a block into a producer partition (its last warpgroups) and the
// consumers, which run different code and never meet at a block barrier again; shared stages
// pass between them on mbarriers. verify-disjoint accepts one hand-off: the producer writes a
// stage only by TMA, in its round loop, after waiting on the stage's empty barrier (parity
// `((iv / S) % 2) ^ 1`), one thread expecting exactly the loads' bytes on the stage's full
// barrier; the consumers, in a loop over the same rounds, wait on the full barrier (parity
// `(iv / S) % 2`), read the stage, retire every wgmma that reads it and arrive on the empty
// barrier; each barrier is initialised once before a block barrier that precedes the split
// (full: count 1, empty: the consumers' threads). Anything else could let a TMA write land
// while a consumer still reads the stage, or a consumer read it before the bytes arrive, so it
// is refused; so is shared memory in the producer other than the stages and their barriers.
// `simt.setmaxnreg` is the first op of a region and `simt.specialize` the last op before the
// kernel's return. The rule is docs/safety.md#simt-9.
// doc:begin example
simt.kernel @k() contract<domain = 1, block = [256]> {
  %s = simt.shared_alloc : !simt.shared<f32, [128]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.specialize producers(1) {
    simt.unsafe {
      simt.shared_store %z, %s[%c0] : !simt.shared<f32, [128]>
      simt.yield
    }
    simt.yield
  } consumers {
    simt.yield
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E1009]: 'simt.shared_store' touches shared memory in the producer region of a 'simt.specialize': only 'simt.tma_load', 'simt.mbarrier_arrive_expect_tx' and 'simt.mbarrier_wait' may (SIMT 9, docs/safety.md#simt-9)
//  --> E1009.mlir:7:7
//   |
// 7 |       simt.shared_store %z, %s[%c0] : !simt.shared<f32, [128]>
//   |       ^^^^^^^^^^^^^^^^^
//   |
//   = help: fill each stage in the producer's round loop after a wait on its empty barrier (parity ((iv / S) % 2) ^ 1), one thread expecting exactly the loads' bytes; in the consumers' loop over the same rounds wait on its full barrier (parity (iv / S) % 2), read it, retire the wgmma and arrive on its empty barrier
// doc:end
