// RUN: cotangent-opt %s --jx-to-linalg=low-float-matmul-operands=true | FileCheck %s
// RUN: cotangent-opt %s --jx-to-linalg | FileCheck %s --check-prefix=DEFAULT

// low-float-matmul-operands (the GPU's): a bf16 dot_general multiplies its
// bf16 operands as they are into a zeroed f32 product, then rounds it to bf16
// once. By default (the CPU) the operands are converted to f32 first.
// CHECK-LABEL: func.func @dot
// CHECK-NOT:     arith.extf
// CHECK:         %[[P:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x8xbf16>, tensor<1x8x3xbf16>) outs(%{{.*}} : tensor<1x4x3xf32>)
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// DEFAULT-LABEL: func.func @dot
// DEFAULT:         arith.extf %{{.*}} : bf16 to f32
// DEFAULT:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x8xf32>, tensor<1x8x3xf32>)
func.func @dot(%a: tensor<4x8xbf16>, %b: tensor<8x3xbf16>) -> tensor<4x3xbf16> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xbf16>, tensor<8x3xbf16> -> tensor<4x3xbf16>
  return %0 : tensor<4x3xbf16>
}

// An f32 dot_general is the same either way.
// CHECK-LABEL: func.func @f32
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x8xf32>, tensor<1x8x3xf32>)
func.func @f32(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
