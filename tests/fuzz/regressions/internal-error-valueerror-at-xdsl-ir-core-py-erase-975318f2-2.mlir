// fuzz-signature: internal error ValueError at xdsl/ir/core.py:erase
// fuzz-config: compile
// fuzz-status: fixed
// found by campaign 3 (seed 23), mutating tests/filecheck/lowering/simt_to_nvvm/unsafe.mlir (line, name): %a used one region down in the op that defines it
builtin.module {
  simt.kernel @raw(%a: !simt.ptr<f32>, %out: !simt.ptr<f32>, %i: index) {
    %y = simt.unsafe -> f32 {
      %x = simt.ptr_load %a[%i] : !simt.ptr<f32>
      %two = arith.constant 2.0 : f32
      %m = arith.mulf %x, %two : f32
      simt.yield %m : f32
    }
    simt.unsafe {
      simt.yield
    }
    simt.return
  }

  simt.kernel @nested(%p: !simt.ptr<i32>) unsafe {
    %a, %b = simt.unsafe -> i32, i32 {
      %one = arith.constant 1 : i32
      %two = simt.unsafe -> i32 {
        %t = arith.constant 2 : i32
        simt.yield %t : i32
      }
      simt.yield %a, %two : i32, i32
    }
    %s = arith.addi %a, %b : i32
    %c0 = arith.constant 0 : index
    simt.unsafe {
      simt.ptr_store %s, %p[%c0] : !simt.ptr<i32>
      simt.yield
    }
    simt.return
  }
}
