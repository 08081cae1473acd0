// RUN: cotangent-opt %s --split-input-file --jx-donate-arguments | FileCheck %s
// RUN: cotangent-opt %s --split-input-file --jx-donate-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s --check-prefix=BUF

// An update step as jx-to-linalg and fusion leave it: the new parameter and
// state are computed into fresh tensors. Donated, each is computed into the
// buffer of its argument: bufferization then writes them in place and
// allocates only the loss.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[P:[^:]*]]: tensor<8xf32> {bufferization.writable = true, jx.donated_to = 0 : i64},
// CHECK-SAME:    %[[M:[^:]*]]: tensor<8xf32> {bufferization.writable = true, jx.donated_to = 1 : i64},
// CHECK-SAME:    %[[G:[^:]*]]: tensor<8xf32> {bufferization.writable = false})
// CHECK:         %[[U:.*]]:2 = linalg.generic {{.*}} ins(%[[P]], %[[M]], %[[G]] : {{.*}}) outs(%[[P]], %[[M]] :
// CHECK:         %[[NP:.*]] = bufferization.materialize_in_destination %[[U]]#0 in %[[P]]
// CHECK:         %[[NM:.*]] = bufferization.materialize_in_destination %[[U]]#1 in %[[M]]
// CHECK:         return %[[NP]], %[[NM]], %{{.*}} :
// BUF-LABEL:     func.func @step(
// BUF-SAME:        %[[P:[^:]*]]: memref<8xf32> {jx.donated_to = 0 : i64}, %[[M:[^:]*]]: memref<8xf32> {jx.donated_to = 1 : i64}, %{{[^:]*}}: memref<8xf32>)
// BUF-NOT:         memref.alloc
// BUF:             linalg.generic {{.*}} outs(%[[P]], %[[M]] :
// BUF:             %[[L:.*]] = memref.alloc() {{.*}} : memref<f32>
// BUF-NOT:         memref.copy
// BUF:             return %[[P]], %[[M]], %[[L]] :
func.func @step(%p: tensor<8xf32> {bufferization.writable = false, jx.donated_to = 0 : i64},
                %m: tensor<8xf32> {bufferization.writable = false, jx.donated_to = 1 : i64},
                %g: tensor<8xf32> {bufferization.writable = false})
    -> (tensor<8xf32>, tensor<8xf32>, tensor<f32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %u:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %m, %g : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e0, %e1 : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o0: f32, %o1: f32):
    %n = arith.addf %b, %c : f32
    %q = arith.subf %a, %n : f32
    linalg.yield %q, %n : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %e2 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce { arith.addf } ins(%g : tensor<8xf32>) outs(%f : tensor<f32>) dimensions = [0]
  return %u#0, %u#1, %l : tensor<8xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// The old value is read after the new one is computed: writing in place
// would change what the later op reads, so bufferization computes the
// result in a fresh buffer and copies it over the argument at the end.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @read_after(
// CHECK:         bufferization.materialize_in_destination
// BUF-LABEL:     func.func @read_after(
// BUF-SAME:        %[[P:[^:]*]]: memref<8xf32>
// BUF:             %[[NEW:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// BUF:             linalg.generic {{.*}} ins(%[[P]] : memref<8xf32>) outs(%[[NEW]] :
// BUF:             linalg.generic {{.*}} ins(%[[P]], %[[NEW]] :
// BUF:             memref.copy %[[NEW]], %[[P]]
// BUF:             return %[[P]],
func.func @read_after(%p: tensor<8xf32> {jx.donated_to = 0 : i64}) -> (tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %n : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %n, %d : tensor<8xf32>, tensor<8xf32>
}

// -----

// Returned unchanged: its buffer is the result already, nothing to write.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT:     materialize_in_destination
// CHECK:         return %arg0
func.func @unchanged(%p: tensor<8xf32> {jx.donated_to = 0 : i64}) -> tensor<8xf32> {
  return %p : tensor<8xf32>
}

// -----

// Nothing donated: nothing changes.
// CHECK-LABEL: func.func @kept(
// CHECK-SAME:    {bufferization.writable = false}
// CHECK-NOT:     materialize_in_destination
func.func @kept(%p: tensor<8xf32> {bufferization.writable = false}) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %n : tensor<8xf32>
}
