// A SIMT kernel using sat.clamp, and a host program that launches it and checks the result.
// `ferrox compile` lowers the op through this package's lowering (lower-to-llvm runs it) to PTX;
// `ferrox run --device cpu` runs it on the reference interpreter (this package's definition).
// RUN: ferrox compile %s --no-cache -o %t.ptx
// RUN: filecheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: ferrox run %s --device cpu --param n=1000 | filecheck %s --check-prefix=CPU

// PTX: .entry relu6
// PTX: max.NaN.f32
// PTX: min.NaN.f32
// CPU: kernel.mlir: 1 check passed on the CPU reference interpreter

// doc:begin kernel
builtin.module {
  simt.kernel @relu6(%x: !simt.slice<f32>, %y: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %y[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %xi = simt.load %x[%i] : !simt.slice<f32>
      %r = sat.clamp %xi to [0.000000e+00 : f32, 6.000000e+00 : f32] : f32
      simt.yield %r : f32
    }
    simt.return
  }

  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 4096 : index
    %x = host.random uniform(-10.0, 10.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %y = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @relu6 grid(%blocks) block(%threads) args(%x, %y : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %y2 = host.launch @relu6 with %p on %s ins(%x : !host.tensor<f32, [?]>) outs(%y : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %y2, "np.clip(x, 0, 6)" (x = %x : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %y2 : !host.tensor<f32, [?]>
  }
}
// doc:end
