// Read by docs/getting-started.md ("Reading a diagnostic"): a kernel that writes its output
// twice through one witness. tests/docs/test_getting_started.py checks that the page shows
// exactly what `ferrox compile` prints for it.
// doc:begin kernel
simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %v = simt.load %x[%i] : !simt.slice<f32>
    simt.yield %v : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%again: f32):
    %two = arith.constant 2.0 : f32
    %d = arith.mulf %again, %two : f32
    simt.yield %d : f32
  }
  simt.return
}
// doc:end
