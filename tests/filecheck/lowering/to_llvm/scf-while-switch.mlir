// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// scf.while, scf.index_switch and scf.execute_region go to cf (lowering/to_llvm/scf.py),
// cf.switch to a chain of compares (lowering/to_llvm/cf.py), all to llvm branches.
// GONE-NOT: scf.
// GONE-NOT: cf.
// GONE-NOT: unrealized_conversion_cast

// The before-region is the loop's header: scf.condition branches to the after-region with the
// forwarded values, or leaves with them; the after-region's yield goes back to the header.
// CHECK-LABEL: llvm.func @gcd(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: i32, [[B:%[a-z0-9_]+]]: i32) -> i32 {
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.br ^[[HEAD:[a-z0-9_]+]]([[A]], [[B]] : i32, i32)
// CHECK-NEXT: ^[[HEAD]]([[P:%[a-z0-9_]+]]: i32, [[Q:%[a-z0-9_]+]]: i32):
// CHECK-NEXT: [[MORE:%.+]] = llvm.icmp "ne" [[Q]], [[ZERO]] : i32
// CHECK-NEXT: llvm.cond_br [[MORE]], ^[[BODY:[a-z0-9_]+]]([[P]], [[Q]] : i32, i32), ^[[EXIT:[a-z0-9_]+]]([[P]], [[Q]] : i32, i32)
// CHECK-NEXT: ^[[BODY]]([[P1:%[a-z0-9_]+]]: i32, [[Q1:%[a-z0-9_]+]]: i32):
// CHECK-NEXT: [[R:%.+]] = llvm.urem [[P1]], [[Q1]] : i32
// CHECK-NEXT: llvm.br ^[[HEAD]]([[Q1]], [[R]] : i32, i32)
// CHECK-NEXT: ^[[EXIT]]([[G:%[a-z0-9_]+]]: i32, {{%[a-z0-9_]+}}: i32):
// CHECK-NEXT: llvm.br ^[[CONT:[a-z0-9_]+]]
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT: llvm.return [[G]] : i32
func.func @gcd(%a: i32, %b: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %g:2 = scf.while (%p = %a, %q = %b) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %q, %zero : i32
    scf.condition(%more) %p, %q : i32, i32
  } do {
  ^bb0(%p1: i32, %q1: i32):
    %r = arith.remui %p1, %q1 : i32
    scf.yield %q1, %r : i32, i32
  }
  func.return %g#0 : i32
}

// A do-while (the body in the before-region) with index values: they become i64 on every edge.
// CHECK-LABEL: llvm.func @halvings(
// CHECK-SAME: [[N:%[a-z0-9_]+]]: i64) -> i64 {
// CHECK: llvm.br ^[[HEAD:[a-z0-9_]+]]([[N]], {{%.+}} : i64, i64)
// CHECK-NEXT: ^[[HEAD]]([[X:%[a-z0-9_]+]]: i64, [[K:%[a-z0-9_]+]]: i64):
// CHECK: [[HALF:%.+]] = llvm.lshr [[X]], {{%.+}} : i64
// CHECK: [[K1:%.+]] = llvm.add [[K]], {{%.+}} : i64
// CHECK: [[MORE:%.+]] = llvm.icmp "ne" [[HALF]], {{%.+}} : i64
// CHECK-NEXT: llvm.cond_br [[MORE]], ^[[BODY:[a-z0-9_]+]]([[HALF]], [[K1]] : i64, i64), ^[[EXIT:[a-z0-9_]+]]([[HALF]], [[K1]] : i64, i64)
// CHECK-NEXT: ^[[BODY]]([[H:%[a-z0-9_]+]]: i64, [[K2:%[a-z0-9_]+]]: i64):
// CHECK-NEXT: llvm.br ^[[HEAD]]([[H]], [[K2]] : i64, i64)
// CHECK-NEXT: ^[[EXIT]]({{%[a-z0-9_]+}}: i64, [[R:%[a-z0-9_]+]]: i64):
// CHECK-NEXT: llvm.br ^[[CONT:[a-z0-9_]+]]
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT: llvm.return [[R]] : i64
func.func @halvings(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%x = %n, %k = %c0) : (index, index) -> (index, index) {
    %half = arith.shrui %x, %c1 : index
    %k1 = arith.addi %k, %c1 : index
    %more = arith.cmpi ne, %half, %c0 : index
    scf.condition(%more) %half, %k1 : index, index
  } do {
  ^bb0(%h: index, %k2: index):
    scf.yield %h, %k2 : index, index
  }
  func.return %r#1 : index
}

// scf.index_switch compares all 64 bits of its index: 4294967296 is not case 0 (xDSL's own
// pattern truncates the index to i32 first).
// CHECK-LABEL: llvm.func @pick(
// CHECK-SAME: [[I:%[a-z0-9_]+]]: i64) -> f32 {
// CHECK: [[C0:%.+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[EQ0:%.+]] = llvm.icmp "eq" [[I]], [[C0]] : i64
// CHECK-NEXT: llvm.cond_br [[EQ0]], ^[[CASE0:[a-z0-9_]+]], ^[[TEST1:[a-z0-9_]+]]
// CHECK-NEXT: ^[[TEST1]]:
// CHECK-NEXT: [[C7:%.+]] = llvm.mlir.constant(7) : i64
// CHECK-NEXT: [[EQ7:%.+]] = llvm.icmp "eq" [[I]], [[C7]] : i64
// CHECK-NEXT: llvm.cond_br [[EQ7]], ^[[CASE7:[a-z0-9_]+]], ^[[TEST2:[a-z0-9_]+]]
// CHECK-NEXT: ^[[TEST2]]:
// CHECK-NEXT: [[CBIG:%.+]] = llvm.mlir.constant(8589934592) : i64
// CHECK-NEXT: [[EQBIG:%.+]] = llvm.icmp "eq" [[I]], [[CBIG]] : i64
// CHECK-NEXT: llvm.cond_br [[EQBIG]], ^[[CASEBIG:[a-z0-9_]+]], ^[[DEFAULT:[a-z0-9_]+]]
// CHECK-NEXT: ^[[CASE0]]:
// CHECK-NEXT: llvm.br ^[[JOIN:[a-z0-9_]+]]({{%.+}} : f32)
// CHECK-NEXT: ^[[CASE7]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]({{%.+}} : f32)
// CHECK-NEXT: ^[[CASEBIG]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]({{%.+}} : f32)
// CHECK-NEXT: ^[[DEFAULT]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]({{%.+}} : f32)
// CHECK-NEXT: ^[[JOIN]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @pick(%i: index) -> f32 {
  %a = arith.constant 1.0 : f32
  %b = arith.constant 2.0 : f32
  %c = arith.constant 3.0 : f32
  %d = arith.constant 4.0 : f32
  %r = scf.index_switch %i -> f32
  case 0 {
    scf.yield %a : f32
  }
  case 7 {
    scf.yield %b : f32
  }
  case 8589934592 {
    scf.yield %c : f32
  }
  default {
    scf.yield %d : f32
  }
  func.return %r : f32
}

// A switch with only a default branches there.
// CHECK-LABEL: llvm.func @only_default(
// CHECK-NEXT: llvm.br ^[[D:[a-z0-9_]+]]
// CHECK-NEXT: ^[[D]]:
// CHECK-NEXT: llvm.br ^[[J:[a-z0-9_]+]]
// CHECK-NEXT: ^[[J]]:
// CHECK-NEXT: llvm.return
func.func @only_default(%i: index) {
  scf.index_switch %i
  default {
    scf.yield
  }
  func.return
}

// cf.switch: one test per case in source order, with each case's block arguments; the last
// test goes to the default. Here case 5 and the default both enter ^join, with different
// values: LLVM's phi takes one value per predecessor block, so the default edge goes through
// a block of its own.
// CHECK-LABEL: llvm.func @dispatch(
// CHECK-SAME: [[K:%[a-z0-9_]+]]: i32, [[V:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: [[Z:%.+]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT: [[C0:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[E0:%.+]] = llvm.icmp "eq" [[K]], [[C0]] : i32
// CHECK-NEXT: llvm.cond_br [[E0]], ^[[SQ:[a-z0-9_]+]], ^[[T1:[a-z0-9_]+]]
// CHECK-NEXT: ^[[T1]]:
// CHECK-NEXT: [[CM1:%.+]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: [[E1:%.+]] = llvm.icmp "eq" [[K]], [[CM1]] : i32
// CHECK-NEXT: llvm.cond_br [[E1]], ^[[SQ]], ^[[T2:[a-z0-9_]+]]
// CHECK-NEXT: ^[[T2]]:
// CHECK-NEXT: [[C5:%.+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT: [[E5:%.+]] = llvm.icmp "eq" [[K]], [[C5]] : i32
// CHECK-NEXT: llvm.cond_br [[E5]], ^[[JOIN:[a-z0-9_]+]]([[V]] : f32), ^[[DETOUR:[a-z0-9_]+]]
// CHECK-NEXT: ^[[DETOUR]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]([[Z]] : f32)
// CHECK-NEXT: ^[[SQ]]:
// CHECK-NEXT: [[S:%.+]] = llvm.fmul [[V]], [[V]] : f32
// CHECK-NEXT: llvm.br ^[[JOIN]]([[S]] : f32)
// CHECK-NEXT: ^[[JOIN]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.return [[R]] : f32
// doc:begin cf-switch
func.func @dispatch(%k: i32, %v: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  cf.switch %k : i32, [
    default: ^join(%zero : f32),
    0: ^square,
    -1: ^square,
    5: ^join(%v : f32)
  ]
^square:
  %s = arith.mulf %v, %v : f32
  cf.br ^join(%s : f32)
^join(%r: f32):
  func.return %r : f32
}
// doc:end

// The same detour for a cf.cond_br whose two edges enter one block.
// CHECK-LABEL: llvm.func @choose(
// CHECK-SAME: [[C:%[a-z0-9_]+]]: i1, [[X:%[a-z0-9_]+]]: f32, [[Y:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: llvm.cond_br [[C]], ^[[J:[a-z0-9_]+]]([[X]] : f32), ^[[D:[a-z0-9_]+]]
// CHECK-NEXT: ^[[D]]:
// CHECK-NEXT: llvm.br ^[[J]]([[Y]] : f32)
// CHECK-NEXT: ^[[J]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @choose(%c: i1, %x: f32, %y: f32) -> f32 {
  cf.cond_br %c, ^join(%x : f32), ^join(%y : f32)
^join(%r: f32):
  func.return %r : f32
}

// scf.execute_region runs its blocks once: they are inlined, each scf.yield a branch to the
// rest of the enclosing block with the results.
// CHECK-LABEL: llvm.func @early(
// CHECK-SAME: [[C:%[a-z0-9_]+]]: i1, [[X:%[a-z0-9_]+]]: f32) -> f32 {
// CHECK-NEXT: llvm.br ^[[FIRST:[a-z0-9_]+]]
// CHECK-NEXT: ^[[FIRST]]:
// CHECK-NEXT: llvm.cond_br [[C]], ^[[NEG:[a-z0-9_]+]], ^[[POS:[a-z0-9_]+]]
// CHECK-NEXT: ^[[NEG]]:
// CHECK-NEXT: [[N:%.+]] = llvm.fneg [[X]] : f32
// CHECK-NEXT: llvm.br ^[[REST:[a-z0-9_]+]]([[N]] : f32)
// CHECK-NEXT: ^[[POS]]:
// CHECK-NEXT: llvm.br ^[[REST]]([[X]] : f32)
// CHECK-NEXT: ^[[REST]]([[R:%[a-z0-9_]+]]: f32):
// CHECK-NEXT: llvm.return [[R]] : f32
func.func @early(%c: i1, %x: f32) -> f32 {
  %r = scf.execute_region -> f32 {
    cf.cond_br %c, ^neg, ^pos
  ^neg:
    %n = arith.negf %x : f32
    scf.yield %n : f32
  ^pos:
    scf.yield %x : f32
  }
  func.return %r : f32
}
