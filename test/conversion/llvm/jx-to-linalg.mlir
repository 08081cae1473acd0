// RUN: cotangent-opt %s --jx-to-linalg | FileCheck %s

// The barrier of @structure is declared first, as an external function.
// CHECK: func.func private @__jx_optimization_barrier_0(tensor<3xf32> {bufferization.access = "read"}) -> tensor<3xf32>

// Elementwise ops become one linalg.generic each; public functions get the C
// interface and read-only arguments.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: bufferization.writable = false
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<5xf32>)
// CHECK: math.sin
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @elementwise(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = jx.sin %x : tensor<5xf32>
  %1 = jx.mul %0, %x : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// Integer division follows XLA: x / 0 = -1.
// CHECK-LABEL: func.func @int_div
// CHECK: arith.cmpi eq
// CHECK: arith.divsi
// CHECK: arith.select
func.func @int_div(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = jx.div %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// dot_general: a batched matmul of (batch, free, contracting) x (batch,
// contracting, free). An operand laid out as the transpose of that (here
// a^T b, the weight-gradient shape, and a b^T) is read through the matmul's
// indexing map, not copied.
// CHECK-LABEL: func.func @dot
// CHECK-NOT: linalg.transpose
// CHECK: tensor.expand_shape {{.*}} into tensor<1x4x5xf32>
// CHECK: linalg.fill
// CHECK: linalg.batch_matmul indexing_maps = [#[[$AT:.*]], #{{.*}}, #{{.*}}] ins({{.*}} : tensor<1x4x5xf32>, tensor<1x4x3xf32>)
// CHECK: tensor.collapse_shape {{.*}} {{\[}}[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
func.func @dot(%a: tensor<4x5xf32>, %b: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [0] x [0], batch_dims = [] x []
         : tensor<4x5xf32>, tensor<4x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
// CHECK-LABEL: func.func @dot_rhs_transposed
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#{{.*}}, #[[$BT:.*]], #{{.*}}] ins({{.*}} : tensor<1x5x4xf32>, tensor<1x3x4xf32>)
func.func @dot_rhs_transposed(%a: tensor<5x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x3xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [1], batch_dims = [] x []
         : tensor<5x4xf32>, tensor<3x4xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
// Dims in neither order are still transposed into place.
// CHECK-LABEL: func.func @dot_middle
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) {{.*}} permutation = [0, 2, 1]
// CHECK: linalg.batch_matmul ins(
func.func @dot_middle(%a: tensor<2x3x4xf32>, %b: tensor<3x5xf32>) -> tensor<2x4x5xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<2x3x4xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.reduce { arith.maximumf } ins(%arg0 : tensor<2x3xf32>) {{.*}} dimensions = [1]
func.func @reduce(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = jx.reduce_max %x, axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A float sum may be reassociated (LLVM vectorizes it); a product and an
// integer sum are left as they are.
// CHECK-LABEL: func.func @reduce_sum
// CHECK: linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%arg0
// CHECK: linalg.reduce { arith.mulf } ins(%arg0
// CHECK: linalg.reduce { arith.addi {overflowFlags = #arith.overflow<none>} } ins(%arg1
// CHECK: return
func.func @reduce_sum(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>)
    -> (tensor<f32>, tensor<2xf32>, tensor<3xi32>) {
  %0 = jx.reduce_sum %x, axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %1 = jx.reduce_prod %x, axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = jx.reduce_sum %i, axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  return %0, %1, %2 : tensor<f32>, tensor<2xf32>, tensor<3xi32>
}

// scan: an scf.for whose iter_args are the carry and the stacked ys.
// CHECK-LABEL: func.func @scan
// CHECK: %[[YS:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C:.*]] = %arg0, %[[S:.*]] = %[[YS]])
// CHECK: tensor.extract_slice %arg1[%[[I]], 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<2xf32>
// CHECK: arith.addf
// CHECK: tensor.insert_slice %{{.*}} into %[[S]][%[[I]], 0] [1, 2] [1, 1]
// CHECK: scf.yield
func.func @scan(%h: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %c, %ys = jx.scan (%h, %xs) length = 3, consts = 0, carry = 1
      : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %x: tensor<2xf32>):
    %0 = jx.add %a, %x : tensor<2xf32>
    jx.yield %0, %0 : tensor<2xf32>, tensor<2xf32>
  }
  return %c, %ys : tensor<2xf32>, tensor<3x2xf32>
}

// cond with a boolean index: scf.if whose then-branch is branch 1.
// CHECK-LABEL: func.func @cond
// CHECK: %[[P:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[P]] -> (tensor<2xf32>)
// CHECK-NOT: arith.negf
// CHECK: } else {
// CHECK: arith.negf
func.func @cond(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.neg %a : tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>):
    jx.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @while
// CHECK: scf.while (%[[A:.*]] = %arg0) : (tensor<i32>) -> tensor<i32>
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: } do {
// CHECK: arith.addi
// CHECK: scf.yield
func.func @while(%i0: tensor<i32>) -> tensor<i32> {
  %r = jx.while (%i0) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%i: tensor<i32>):
    %n = jx.constant dense<10> : tensor<i32>
    %c = jx.lt %i, %n : tensor<i32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %one = jx.constant dense<1> : tensor<i32>
    %j = jx.add %i, %one : tensor<i32>
    jx.yield %j : tensor<i32>
  }
  return %r : tensor<i32>
}

// remat is inlined, checkpoint_name is the identity, the barrier is a call
// to an external function with read-only arguments.
// CHECK-LABEL: func.func @structure
// CHECK-NOT: jx.
// CHECK: math.cos
// CHECK: %[[B:.*]] = call @__jx_optimization_barrier_0(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: math.sin
func.func @structure(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = jx.remat (%x) : (tensor<3xf32>) -> tensor<3xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<3xf32>):
    %0 = jx.cos %a : tensor<3xf32>
    %1 = jx.checkpoint_name %0, "c" : tensor<3xf32>
    jx.yield %1 : tensor<3xf32>
  }
  %b = jx.optimization_barrier %r : tensor<3xf32>
  %s = jx.sin %b : tensor<3xf32>
  return %s : tensor<3xf32>
}

// take: one parallel generic over the result, the indices an input indexed
// by the axis' loop, the operand read at the clamped index.
// CHECK-LABEL: func.func @take
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : tensor<6xi32>) outs(%{{.*}} : tensor<6x4xf32>)
// CHECK:           arith.index_cast
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           tensor.extract %{{.*}} : tensor<10x4xf32>
func.func @take(%table: tensor<10x4xf32>, %ids: tensor<6xi32>) -> tensor<6x4xf32> {
  %0 = jx.take %table[%ids], axis = 0 : tensor<10x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// scatter_add: an scf.for over the indices that adds each update row into
// the row at its clamped index (repeated indices accumulate in order).
// CHECK-LABEL: func.func @scatter_add
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<10x4xf32>)
// CHECK:           tensor.extract %{{.*}}[%[[K]]] : tensor<6xi32>
// CHECK:           %[[ROW:.*]] = arith.minsi
// CHECK:           tensor.extract_slice %{{.*}}[%[[K]], 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
// CHECK:           tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 4] [1, 1] : tensor<10x4xf32> to tensor<4xf32>
// CHECK:           arith.addf
// CHECK:           tensor.insert_slice %{{.*}} into %[[ACC]][%[[ROW]], 0] [1, 4] [1, 1]
func.func @scatter_add(%x: tensor<10x4xf32>, %ids: tensor<6xi32>, %u: tensor<6x4xf32>) -> tensor<10x4xf32> {
  %0 = jx.scatter_add %x[%ids], %u, axis = 0 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x4xf32>
  return %0 : tensor<10x4xf32>
}
