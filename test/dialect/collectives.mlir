// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// The collectives round-trip: the axis, the axis size where a shape depends
// on it, the dimension, tiled, ppermute's pairs.

// CHECK-LABEL: func.func @spmd
// CHECK: jx.psum %{{.*}}, axis = "data" : tensor<4x3xf32>
// CHECK: jx.pmean %{{.*}}, axis = "data" : tensor<4x3xf32>
// CHECK: jx.all_gather %{{.*}}, axis = "data"(4), dimension = 1 : tensor<4x3xf32> -> tensor<4x4x3xf32>
// CHECK: jx.all_gather %{{.*}}, axis = "data"(4), dimension = 0 tiled : tensor<4x3xf32> -> tensor<16x3xf32>
// CHECK: jx.psum_scatter %{{.*}}, axis = "data"(4), dimension = 0 : tensor<4x3xf32> -> tensor<3xf32>
// CHECK: jx.psum_scatter %{{.*}}, axis = "data"(4), dimension = 0 tiled : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK: jx.ppermute %{{.*}}, axis = "data", perm = [0, 1, 1, 0] : tensor<4x3xf32>
// CHECK: jx.axis_index axis = "data" : tensor<i32>
func.func @spmd(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x4x3xf32>,
    tensor<16x3xf32>, tensor<3xf32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<i32>) {
  %0 = jx.psum %x, axis = "data" : tensor<4x3xf32>
  %1 = jx.pmean %x, axis = "data" : tensor<4x3xf32>
  %2 = jx.all_gather %x, axis = "data"(4), dimension = 1 : tensor<4x3xf32> -> tensor<4x4x3xf32>
  %3 = jx.all_gather %x, axis = "data"(4), dimension = 0 tiled : tensor<4x3xf32> -> tensor<16x3xf32>
  %4 = jx.psum_scatter %x, axis = "data"(4), dimension = 0 : tensor<4x3xf32> -> tensor<3xf32>
  %5 = jx.psum_scatter %x, axis = "data"(4), dimension = 0 tiled : tensor<4x3xf32> -> tensor<1x3xf32>
  %6 = jx.ppermute %x, axis = "data", perm = [0, 1, 1, 0] : tensor<4x3xf32>
  %7 = jx.axis_index axis = "data" : tensor<i32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x4x3xf32>,
    tensor<16x3xf32>, tensor<3xf32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<i32>
}
