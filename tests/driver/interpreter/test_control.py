"""Control flow inside kernels: xDSL's scf and cf implementations, device functions and calls."""

from __future__ import annotations

import numpy as np

from ferrox.driver.interpreter import run_simt_kernel


def test_scf_while_and_index_switch(kernel):
    # Collatz steps of t + 1, then a switch on t mod 3.
    text = """
  simt.kernel @steps(%out: !simt.ptr<i32>, %kind: !simt.ptr<i32>) unsafe {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c0 = arith.constant 0 : i32
    %i3 = arith.constant 3 : index
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    %start = arith.addi %t32, %c1 : i32
    %r:2 = scf.while (%x = %start, %n = %c0) : (i32, i32) -> (i32, i32) {
      %more = arith.cmpi ne, %x, %c1 : i32
      scf.condition(%more) %x, %n : i32, i32
    } do {
    ^bb0(%x: i32, %n: i32):
      %bit = arith.andi %x, %c1 : i32
      %odd = arith.cmpi eq, %bit, %c1 : i32
      %next = scf.if %odd -> (i32) {
        %x3 = arith.muli %x, %c3 : i32
        %y = arith.addi %x3, %c1 : i32
        scf.yield %y : i32
      } else {
        %y = arith.divui %x, %c2 : i32
        scf.yield %y : i32
      }
      %n1 = arith.addi %n, %c1 : i32
      scf.yield %next, %n1 : i32, i32
    }
    simt.ptr_store %r#1, %out[%t] : !simt.ptr<i32>
    %m = arith.remui %t, %i3 : index
    %k = scf.index_switch %m -> i32
    case 0 {
      scf.yield %c3 : i32
    }
    case 1 {
      scf.yield %c2 : i32
    }
    default {
      scf.yield %c0 : i32
    }
    simt.ptr_store %k, %kind[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out, kind = np.zeros(16, np.int32), np.zeros(16, np.int32)
    run_simt_kernel(kernel(text), "steps", (1, 1, 1), (16, 1, 1), [out, kind])

    def collatz(x):
        n = 0
        while x != 1:
            x, n = (3 * x + 1 if x & 1 else x // 2), n + 1
        return n

    assert out.tolist() == [collatz(t + 1) for t in range(16)]
    assert kind.tolist() == [[3, 2, 0][t % 3] for t in range(16)]


def test_unstructured_control_flow(kernel):
    text = """
  simt.kernel @branches(%out: !simt.ptr<i32>) unsafe {
    %c4 = arith.constant 4 : index
    %t = simt.thread_id x
    %small = arith.cmpi ult, %t, %c4 : index
    cf.cond_br %small, ^low(%t : index), ^high
  ^low(%v: index):
    %v32 = arith.index_cast %v : index to i32
    simt.ptr_store %v32, %out[%t] : !simt.ptr<i32>
    cf.br ^end
  ^high:
    %m = arith.constant -1 : i32
    simt.ptr_store %m, %out[%t] : !simt.ptr<i32>
    cf.br ^end
  ^end:
    simt.return
  }
"""
    out = np.zeros(8, np.int32)
    run_simt_kernel(kernel(text), "branches", (1, 1, 1), (8, 1, 1), [out])
    assert out.tolist() == [0, 1, 2, 3, -1, -1, -1, -1]


def test_barrier_inside_a_device_function(kernel):
    # The launcher must see the barrier through the call and run the block cooperatively.
    text = """
  simt.func @exchange(%tile: !simt.shared<f32, [32]>, %t: index, %v: f32) -> f32 unsafe {
    %c31 = arith.constant 31 : index
    simt.shared_store %v, %tile[%t] : !simt.shared<f32, [32]>
    simt.sync_threads
    %r = arith.subi %c31, %t : index
    %x = simt.shared_load %tile[%r] : !simt.shared<f32, [32]>
    simt.return %x : f32
  }
  simt.kernel @mirror(%out: !simt.ptr<f32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<f32, [32]>
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    %v = arith.sitofp %t32 : i32 to f32
    %x = simt.call @exchange(%tile, %t, %v) : (!simt.shared<f32, [32]>, index, f32) -> f32
    simt.ptr_store %x, %out[%t] : !simt.ptr<f32>
    simt.return
  }
"""
    out = np.zeros(32, np.float32)
    run_simt_kernel(kernel(text), "mirror", (1, 1, 1), (32, 1, 1), [out])
    assert out.tolist() == [float(31 - t) for t in range(32)]


def test_recursive_device_function_gets_its_own_frame(kernel):
    text = """
  simt.func @fact(%n: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %done = arith.cmpi ule, %n, %c1 : i32
    %r = scf.if %done -> (i32) {
      scf.yield %c1 : i32
    } else {
      %m = arith.subi %n, %c1 : i32
      %f = simt.call @fact(%m) : (i32) -> i32
      %p = arith.muli %n, %f : i32
      scf.yield %p : i32
    }
    simt.return %r : i32
  }
  simt.kernel @facts(%out: !simt.ptr<i32>) unsafe {
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    %f = simt.call @fact(%t32) : (i32) -> i32
    simt.ptr_store %f, %out[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(10, np.int32)
    run_simt_kernel(kernel(text), "facts", (1, 1, 1), (10, 1, 1), [out])
    assert out.tolist() == [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880]
