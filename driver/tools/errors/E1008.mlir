// E1008: a wgmma's tiles or accumulators touched while it is in flight
//
// `simt.wgmma` (PTX `wgmma.mma_async`, sm_90a) only issues the multiply: the tensor cores read
// its shared tiles and write its accumulator registers later, until the `simt.wgmma_wait` that
// retires its group. A store to shared memory in between may change a tile the hardware is still
// reading, a use of a result reads a register not yet written, and a dropped result frees
// registers the hardware still writes. So each wgmma sits in a window: a `simt.wgmma_fence`
// before it and `simt.wgmma_commit` then `simt.wgmma_wait {pending = 0}` after it in its block,
// with only wgmma ops, arith ops and `cp.async` copies into arrays no wgmma of the window reads
// between; each result goes to the next wgmma as its accumulator or to the wait, once. The
// kernel's block is whole warpgroups (a 1-D multiple of 128 threads). The rule is
// docs/safety.md#simt-8.
// doc:begin example
simt.kernel @k() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %y = arith.constant 1.0 : bf16
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.shared_store %y, %bs[%c0] : !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E1008]: 'simt.wgmma' reads shared memory and writes its results until a 'simt.wgmma_wait' with pending = 0 retires it: only wgmma ops, arith ops and copies may come between, found 'simt.shared_store'
//  --> E1008.mlir:9:5
//   |
// 9 |     %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
//   |            ^^^^^^^^^^
//   |
//   = help: keep each wgmma between a `simt.wgmma_fence` and a `simt.wgmma_commit` then `simt.wgmma_wait {pending = 0}` in its block, with only wgmma, arith and `simt.async_copy` ops into other arrays between, and feed each result only to the next wgmma or the wait
// doc:end
