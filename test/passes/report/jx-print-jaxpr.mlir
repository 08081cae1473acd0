// RUN: cotangent-opt %s --jx-print-jaxpr -o /dev/null | FileCheck %s
// RUN: not cotangent-opt %s --jx-print-jaxpr=function=nope 2>&1 | FileCheck %s --check-prefix=MISSING

func.func @g(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  %1 = jx.sin %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}
// CHECK: @g:
// CHECK-NEXT: { lambda ; a:f32[5,4] b:f32[4]. let c:f32[5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b; d:f32[5] = sin c in (d,) }
// MISSING: error: --jx-print-jaxpr: no function named 'nope'
