// A host program stays valid while its kernels are lowered: a launch of a function marked
// nvvm.kernel (what convert-simt-to-nvvm leaves) is not re-bound against the lowered ABI.
// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// CHECK: func.func @copy({{.*}}) attributes {{{.*}}nvvm.kernel
// CHECK: host.prepare @copy
// CHECK: host.launch @copy

simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}

func.func @main() {
  %a = host.random uniform(0.0, 1.0) seed 1 : !host.tensor<f32, [256]>
  %c = host.poison : !host.tensor<f32, [256]>
  %s = host.stream
  %g = arith.constant 2 : index
  %b = arith.constant 128 : index
  %p = host.prepare @copy grid(%g) block(%b) args(%a, %c : !host.tensor<f32, [256]>, !host.tensor<f32, [256]>)
  %c2 = host.launch @copy with %p on %s ins(%a : !host.tensor<f32, [256]>) outs(%c : !host.tensor<f32, [256]>) -> !host.tensor<f32, [256]>
  host.sync_on %s
  host.check %c2, "a" (a = %a : !host.tensor<f32, [256]>) : !host.tensor<f32, [256]>
  func.return
}
