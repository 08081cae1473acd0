// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-interchange-reductions))" | FileCheck %s
// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-interchange-reductions,convert-linalg-to-parallel-loops,jx-gpu-block-reductions))" | FileCheck %s --check-prefix=LOOPS

// A sum over rows (reduced dimension 0) becomes a generic whose kept
// dimension comes first, reading the input transposed.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[IN3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[OUT3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @column_sums
// CHECK:         linalg.generic {indexing_maps = [#[[T]], #[[K]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%arg0 : memref<256x512xf32>) outs(%arg1 : memref<512xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     linalg.reduce
// Then one block per column instead of a host loop over the rows that
// launches a kernel per row.
// LOOPS-LABEL: func.func @column_sums
// LOOPS-NOT:     scf.for
// LOOPS:         gpu.launch blocks({{.*}}) in ({{.*}} = %c512{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}},
// LOOPS:           memref.load %arg0[%{{.*}}, %{{.*}}] : memref<256x512xf32>
// LOOPS:           gpu.all_reduce add
func.func @column_sums(%in: memref<256x512xf32>, %out: memref<512xf32>) {
  linalg.reduce ins(%in : memref<256x512xf32>) outs(%out : memref<512xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// A reduced dimension between two kept ones moves last; the kept ones keep
// their order.
// CHECK-LABEL: func.func @middle
// CHECK:         linalg.generic {indexing_maps = [#[[IN3]], #[[OUT3]]], iterator_types = ["parallel", "parallel", "reduction"]}
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle(%in: memref<8x256x64xf32>, %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%in : memref<8x256x64xf32>) outs(%out : memref<8x64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// Kept dimensions already first (a row sum): left as it is.
// CHECK-LABEL: func.func @row_sums
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1]
func.func @row_sums(%in: memref<256x512xf32>, %out: memref<256xf32>) {
  linalg.reduce ins(%in : memref<256x512xf32>) outs(%out : memref<256xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}
