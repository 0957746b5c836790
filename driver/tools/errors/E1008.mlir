// E1008: a wgmma's tiles or accumulators touched while it is in flight
//
// `simt.wgmma` (PTX `wgmma.mma_async`, sm_90a) only issues the multiply: the tensor cores read
// its shared tiles and write its accumulator registers later, until the `simt.wgmma_wait` that
// retires its group (`simt.wgmma_commit` closes a group; a wait with pending = N leaves the
// newest N groups running). A write to a tile in between may change what the hardware reads, a
// use of a result reads a register not yet written, and a dropped result frees registers the
// hardware still writes. So each wgmma has a `simt.wgmma_fence` before it in its block; no
// shared allocation that a group in flight reads is written (verify-disjoint follows the groups
// through loops: a group may stay in flight across a K step while the copies refill another
// stage); each result goes, once, to a later wgmma as its accumulator, to a wait, or through a
// yield or loop that carries it on, until a wait with pending = 0; and nothing is in flight when
// the kernel returns. The kernel's block is whole warpgroups (a 1-D multiple of 128 threads).
// The rule is docs/safety.md#simt-8.
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
// error[E1008]: 'simt.shared_store' writes %bs while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation
//   --> E1008.mlir:10:5
//    |
// 10 |     simt.shared_store %y, %bs[%c0] : !simt.shared<bf16, [1024]>
//    |                           ^^^
//    |
//    = help: put a `simt.wgmma_fence` before each wgmma; write a shared tile only once the `simt.wgmma_wait` that retires every group reading it has run (or write another allocation); feed each result only to the next wgmma, a wait or a yield that carries it, and retire everything with `simt.wgmma_wait {pending = 0}` before other code reads it
// doc:end
