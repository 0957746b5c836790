// RUN: ferrox-opt %s -t 'ptx{chip=sm_90 features=ptx80 opt=3}' | filecheck %s
// RUN: ferrox-opt %s -t ptx | filecheck %s

// vecadd written directly in the llvm dialect: global (addrspace 1) GEPs, a contracted block
// shape, and inputs that are noalias + readonly, so LLVM may use the read-only data path.

// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .address_size 64

// CHECK-LABEL: .visible .entry vecadd(
// CHECK-NEXT: .param .u64 .ptr .global .align 16 vecadd_param_0,
// CHECK-NEXT: .param .u64 .ptr .global .align 16 vecadd_param_1,
// CHECK-NEXT: .param .u64 .ptr .global .align 16 vecadd_param_2,
// CHECK-NEXT: .param .u32 vecadd_param_3
// CHECK-NEXT: )
// CHECK-NEXT: .reqntid 256, 1, 1
// CHECK-NOT: .maxntid
// CHECK: mov.u32 {{.*}}%tid.x;
// CHECK: mov.u32 {{.*}}%ctaid.x;
// CHECK: ld.global.nc.b32
// CHECK: ld.global.nc.b32
// CHECK: add.rn.f32
// CHECK-NOT: ld.global.nc
// CHECK: st.global.b32
// CHECK: ret;
llvm.func @vecadd(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64},
                  %b: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64},
                  %c: !llvm.ptr<1> {llvm.noalias, llvm.align = 16 : i64}, %n: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %bid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  %ntid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
  %base = llvm.mul %bid, %ntid : i32
  %i = llvm.add %base, %tid : i32
  %in = llvm.icmp "slt" %i, %n : i32
  llvm.cond_br %in, ^body, ^exit
^body:
  %pa = llvm.getelementptr inbounds %a[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %pb = llvm.getelementptr inbounds %b[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %pc = llvm.getelementptr inbounds %c[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %pa {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %y = llvm.load %pb {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %s = llvm.fadd %x, %y : f32
  llvm.store %s, %pc {alignment = 4 : i64} : f32, !llvm.ptr<1>
  llvm.br ^exit
^exit:
  llvm.return
}
