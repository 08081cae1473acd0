// RUN: cotangent-opt %s --jx-parallel-loops=openmp=false | FileCheck %s
// RUN: cotangent-opt %s --jx-parallel-loops="min-work=1000000 openmp=false" | FileCheck %s --check-prefix=SMALL
// RUN: cotangent-opt %s --jx-parallel-loops | FileCheck %s --check-prefix=OMP

// Of a large parallel loop only the leading dimension stays parallel (256
// rows are enough to share out); the row's 1024 columns become a plain loop
// inside, which LLVM vectorizes.
// CHECK-LABEL: func.func @rows
// CHECK:         scf.parallel (%[[I:.*]]) = (%c0) to (%c256) step (%c1) {
// CHECK-NEXT:      scf.for %[[J:.*]] = %c0 to %c1024 step %c1 {
// CHECK-NEXT:        %[[V:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NEXT:        %[[T:.*]] = math.tanh %[[V]]
// CHECK-NEXT:        memref.store %[[T]], %arg1[%[[I]], %[[J]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
// With the conversion, the kept dimension is an OpenMP work-shared loop, the
// column loop a plain loop in its body, with no alloca_scope around it.
// OMP-LABEL: func.func @rows
// OMP:         omp.parallel {
// OMP-NEXT:      omp.wsloop {
// OMP-NEXT:        omp.loop_nest (%[[I:.*]]) : index = (%c0) to (%c256) step (%c1) {
// OMP-NOT:           memref.alloca_scope
// OMP:               scf.for %[[J:.*]] = %c0 to %c1024 step %c1 {
// OMP-NEXT:            memref.load %arg0[%[[I]], %[[J]]]
// OMP-NOT:     scf.parallel
// Below min-work every dimension is a plain loop.
// SMALL-LABEL: func.func @rows
// SMALL-NOT:     scf.parallel
// SMALL:         scf.for %[[I:.*]] = %c0 to %c256 step %c1 {
// SMALL-NEXT:      scf.for %[[J:.*]] = %c0 to %c1024 step %c1 {
// SMALL-NEXT:        memref.load %arg0[%[[I]], %[[J]]]
func.func @rows(%x: memref<256x1024xf32>, %y: memref<256x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    %t = math.tanh %v : f32
    memref.store %t, %y[%i, %j] : memref<256x1024xf32>
    scf.reduce
  }
  return
}

// A leading dimension too short to share out keeps the next one parallel too.
// CHECK-LABEL: func.func @batched
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c512 step %c1 {
func.func @batched(%x: memref<2x64x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c64, %c512) step (%c1, %c1, %c1) {
    memref.store %f, %x[%b, %i, %j] : memref<2x64x512xf32>
    scf.reduce
  }
  return
}

// A row reduction: the rows are parallel, the reduced axis an scf.for
// inside, and its trip count counts as work (128 x 4096 elements).
// CHECK-LABEL: func.func @row_sums
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c128) step (%c1) {
// CHECK-NEXT:      scf.for
func.func @row_sums(%x: memref<128x4096xf32>, %s: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
    scf.for %k = %c0 to %c4096 step %c1 {
      %v = memref.load %x[%i, %k] : memref<128x4096xf32>
      %a = memref.load %s[%i] : memref<128xf32>
      %r = arith.addf %a, %v : f32
      memref.store %r, %s[%i] : memref<128xf32>
    }
    scf.reduce
  }
  return
}

// Small loops, loops with dynamic bounds, and parallel loops nested in a
// parallel loop all become plain loops.
// CHECK-LABEL: func.func @small_dynamic_nested
// CHECK-NOT:     scf.parallel (%{{.*}}) = (%c0) to (%c8)
// CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK:         scf.for %{{.*}} = %c0 to %arg1 step %c1 {
// CHECK:         scf.parallel (%[[O:.*]]) = (%c0) to (%c4096) step (%c1) {
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK-NOT:       scf.parallel
// CHECK:           scf.reduce
func.func @small_dynamic_nested(%x: memref<?xf32>, %n: index, %y: memref<4096x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      memref.store %f, %y[%i, %j] : memref<4096x16xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
