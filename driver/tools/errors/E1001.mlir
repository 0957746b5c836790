// E1001: a witness not made by a trusted index op
//
// A kernel writes a disjoint slice only through a witness, a value of type
// `!simt.thread_index<space>` that proves that this thread, and no other, owns one index. Only
// the trusted index ops make witnesses (`simt.thread_index_1d`, `simt.index_2d`,
// `simt.index_2d_runtime`, `simt.warp_index`, `simt.tile_index`); a witness from a parameter, a
// call or a branch result proves nothing, and a plain `index` is not a witness at all. The
// rule is docs/safety.md#simt-1.
//
// Make the witness in the kernel with a trusted op and pass it to `simt.get_mut` itself.
// doc:begin example
simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%i] : !simt.disjoint_slice<f32, 1d>, index {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E1001]: `simt.get_mut` needs a witness (`!simt.thread_index<...>`) as its index, found `index`
//  --> E1001.mlir:4:21
//   |
// 4 |   simt.get_mut %out[%i] : !simt.disjoint_slice<f32, 1d>, index {
//   |                     ^^ expected a witness, found `index`
//   |
//   = help: pass the witness `%w` itself: `%i` is its plain index, read by `simt.witness_value`
// doc:end
