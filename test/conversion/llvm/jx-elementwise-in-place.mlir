// RUN: cotangent-opt %s --jx-elementwise-in-place | FileCheck %s
// RUN: cotangent-opt %s --jx-elementwise-in-place --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" | FileCheck %s --check-prefix=BUFFERS

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// The derivative g * (1 - h^2): g comes from the matmul and dies here, so
// the result goes into its buffer; h is read again (by the return), and the
// broadcast scalar is read many times: neither is taken.
// CHECK-LABEL: func.func @derivative
// CHECK:         %[[G:.*]] = linalg.matmul
// CHECK:         math.tanh
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[G]], %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>)
// CHECK-SAME:      outs(%[[G]] : tensor<4x8xf32>)
// BUFFERS-LABEL: func.func @derivative
// BUFFERS-COUNT-2: memref.alloc
// BUFFERS-NOT:     memref.alloc
// BUFFERS:         return
func.func @derivative(%a: tensor<4x4xf32>, %b: tensor<4x8xf32>, %h: tensor<4x8xf32>,
                      %one: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %th = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %th, %one : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%gi: f32, %hi: f32, %c: f32, %o: f32):
    %sq = arith.mulf %hi, %hi : f32
    %s = arith.subf %c, %sq : f32
    %r = arith.mulf %gi, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %d, %th : tensor<4x8xf32>, tensor<4x8xf32>
}

// Arguments are the caller's buffers and constants are read-only: a fresh
// destination stays.
// CHECK-LABEL: func.func @argument_and_constant
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[E]] : tensor<4xf32>)
func.func @argument_and_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A value computed before a loop is read again by the next iteration: the
// op inside the loop keeps its fresh destination.
// CHECK-LABEL: func.func @outside_loop
// CHECK:         scf.for
// CHECK:           %[[E:.*]] = tensor.empty
// CHECK:           linalg.generic
// CHECK-SAME:        outs(%[[E]] : tensor<4xf32>)
func.func @outside_loop(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
        ins(%y, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.addf %a, %b : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
