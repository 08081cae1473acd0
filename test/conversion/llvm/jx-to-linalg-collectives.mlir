// RUN: cotangent-opt %s --split-input-file --jx-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s
// RUN: not cotangent-opt %s --split-input-file --jx-to-linalg=collectives=false 2>&1 | FileCheck %s --check-prefix=REFUSED
// jx-to-linalg keeps the collectives; one-shot bufferization gives each a
// result buffer (psum and pmean: their operand's, reduced in place; here a
// copy, as arguments are read-only) and two calls into the runtime
// (runtime/comm/Collectives.h): @cotangent_collective_start(kind, element
// kind, element bytes, in, out, outer, inner, pairs, pair count), whose
// ticket @cotangent_collective_wait takes (--jx-defer-collective-waits moves
// it later). Where collectives are not compiled (the GPU pipeline's
// collectives=false), a located error.

// CHECK-LABEL: func.func @psum
// CHECK-SAME: (%[[X:.*]]: memref<2x6xf32>)
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<2x6xf32>
// CHECK: memref.copy %[[X]], %[[OUT]]
// CHECK: %[[IN:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[T:.*]] = call @cotangent_collective_start(%c0_i64, %c0_i64, %c4_i64, %[[IN]], %[[OUTP]], %c1_i64, %c12_i64, %c0, %c0_i64)
// CHECK-NEXT: call @cotangent_collective_wait(%[[T]])
// CHECK: return %[[OUT]]
// CHECK: func.func private @cotangent_collective_start(i64, i64, i64, index, index, i64, i64, index, i64) -> i64
// CHECK: func.func private @cotangent_collective_wait(i64)
// REFUSED: error: jx.psum is not compiled for this target yet: collectives run on the CPU (MPI) and on the reference interpreter's simulated ranks
func.func @psum(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = jx.psum %x, axis = "data" : tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// all_gather along dimension 1 of [2, 6] over 2 ranks: [outer 2][rank][inner 6];
// psum_scatter tiled along dimension 1: [outer 2][rank][inner 3].
// CHECK-LABEL: func.func @gather_scatter
// CHECK: %[[G:.*]] = memref.alloc() {{.*}} : memref<2x2x6xf32>
// CHECK: call @cotangent_collective_start(%c2_i64, %c0_i64, %c4_i64, %{{.*}}, %{{.*}}, %c2_i64, %c6_i64, %c0, %c0_i64)
// CHECK: %[[S:.*]] = memref.alloc() {{.*}} : memref<2x3xf32>
// CHECK: call @cotangent_collective_start(%c3_i64, %c0_i64, %c4_i64, %{{.*}}, %{{.*}}, %c2_i64, %c3_i64, %c0, %c0_i64)
// CHECK: return %[[G]], %[[S]]
// REFUSED: error: jx.all_gather is not compiled for this target yet
func.func @gather_scatter(%x: tensor<2x6xf32>) -> (tensor<2x2x6xf32>, tensor<2x3xf32>) {
  %0 = jx.all_gather %x, axis = "data"(2), dimension = 1 : tensor<2x6xf32> -> tensor<2x2x6xf32>
  %1 = jx.psum_scatter %x, axis = "data"(2), dimension = 1 tiled : tensor<2x6xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<2x2x6xf32>, tensor<2x3xf32>
}

// -----

// ppermute's pairs are a constant global; bf16 is element kind 2, 2 bytes.
// CHECK-LABEL: func.func @ring
// CHECK: %[[PAIRS:.*]] = memref.get_global @__jx_ppermute_pairs : memref<4xi64>
// CHECK: %[[PAIRSP:.*]] = memref.extract_aligned_pointer_as_index %[[PAIRS]]
// CHECK: call @cotangent_collective_start(%c4_i64, %c2_i64, %c2_i64, %{{.*}}, %{{.*}}, %c1_i64, %c4_i64, %[[PAIRSP]], %c2_i64)
// CHECK: memref.global "private" constant @__jx_ppermute_pairs : memref<4xi64> = dense<[0, 1, 1, 0]>
func.func @ring(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = jx.ppermute %x, axis = "data", perm = [0, 1, 1, 0] : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// axis_index writes one i32 (kind 5) into its own buffer.
// CHECK-LABEL: func.func @index
// CHECK: %[[I:.*]] = memref.alloc() {{.*}} : memref<i32>
// CHECK: %[[IP:.*]] = memref.extract_aligned_pointer_as_index %[[I]]
// CHECK: call @cotangent_collective_start(%c5_i64, %c4_i64, %c4_i64, %c0, %[[IP]], %c1_i64, %c1_i64, %c0, %c0_i64)
// CHECK: return %[[I]]
func.func @index() -> tensor<i32> {
  %0 = jx.axis_index axis = "data" : tensor<i32>
  return %0 : tensor<i32>
}
